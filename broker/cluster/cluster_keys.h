// The keys under /spillway/<cluster>/ in etcd and their JSON values
// (docs/replication-controller.md):
//   brokers/<id>          {"native","kafka","rack","shutting_down"}   lease-attached
//   controller            {"broker"}                                  lease-attached
//   topics/<t>            {"replicas":[[..],..],"reassigning":{"<p>":[..]},
//                          "moves":{"<p>":{"from":[..],"throttle":N}},"settings":{..}}
//   partitions/<t>/<p>    {"leader","leader_epoch","isr","controller_epoch"}
// and, outside that prefix, /spillway-groups/<cluster>/offsets/<hex group>
// {"offsets":[[topic,partition,offset],..]} (a group's committed offsets).
// Decoding is strict and bounded: a value above kMaxValueBytes, a field of
// the wrong type, an id, count or length out of range, is refused with
// kCorruptMessage (the caller logs it and ignores the key); unknown fields
// are ignored so that a newer broker may add some.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_state.h"
#include "spillway/common/status.h"

namespace spillway::broker::cluster {

inline constexpr size_t kMaxValueBytes = 1 << 20;
inline constexpr int32_t kMaxPartitions = 100'000;
inline constexpr int32_t kMaxReplicationFactor = 16;
inline constexpr size_t kMaxAddressBytes = 255;
inline constexpr size_t kMaxRackBytes = 255;

class ClusterKeys {
 public:
  explicit ClusterKeys(std::string_view cluster_name);

  const std::string& prefix() const { return prefix_; }  // "/spillway/<cluster>/"
  std::string broker(BrokerId id) const;
  std::string controller() const;
  std::string topic(std::string_view name) const;
  std::string partitions_of(std::string_view topic) const;  // prefix of its partition keys
  std::string partition(std::string_view topic, int32_t p) const;
  // A consumer group's committed offsets (cluster/cluster_offsets.h):
  // "/spillway-groups/<cluster>/offsets/<hex of the group name>". Outside
  // prefix() on purpose: commits are not state every broker watches.
  std::string group_offsets(std::string_view group) const;

  struct Parsed {
    enum class Kind { kUnknown, kBroker, kController, kTopic, kPartition };
    Kind kind = Kind::kUnknown;
    BrokerId broker = kNoBroker;
    std::string topic;
    int32_t partition = -1;
  };
  // What a full key names; kUnknown for anything this version does not use.
  Parsed parse(std::string_view key) const;

 private:
  std::string prefix_;
  std::string groups_prefix_;
};

// A broker id as stored: 0 .. INT32_MAX.
bool valid_broker_id(int64_t id);

std::string encode_broker(const BrokerInfo& b);
// `id` and `epoch` come from the key, not the value.
Result<BrokerInfo> decode_broker(std::string_view value, BrokerId id, int64_t epoch);

std::string encode_controller(BrokerId id);
Result<BrokerId> decode_controller(std::string_view value);

std::string encode_topic(const TopicAssignment& t);
Result<TopicAssignment> decode_topic(std::string_view value, std::string_view name);

std::string encode_partition(const PartitionState& p);
Result<PartitionState> decode_partition(std::string_view value);

// One committed offset of a group: {"offsets":[["<topic>",<partition>,<offset>],...]}.
struct GroupOffset {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
};
std::string encode_group_offsets(const std::vector<GroupOffset>& offsets);
Result<std::vector<GroupOffset>> decode_group_offsets(std::string_view value);

}  // namespace spillway::broker::cluster
