// TopicRegistry: the broker's topics and the cores that own their
// partitions.
//
// Topics live in DATA_DIR/topics/NAME/ (topic.meta, written atomically, and
// one directory per partition), all through the storage::FileSystem seam,
// and are restored at start; one that cannot be
// restored starts offline (Topic::offline) while the others serve. Partition
// p of topic t is owned by core hash(t, p) % cores; all its work runs there.
//
// Lookups are lock-free: each core (runtime/core_set.h) has its own copy of
// the name -> topic table, read only on that core. Admin operations (create, delete) are
// serialised by a mutex, do their blocking file work on the calling thread,
// then post the table change to every core and report once every core has
// applied it, so a request sent after the answer sees the change on any
// connection.
#pragma once

#include <asio/any_io_executor.hpp>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/broker_config.h"
#include "interval_flush.h"
#include "partition.h"
#include "runtime/core_set.h"
#include "spillway/storage/file_system.h"
#include "topic_config.h"

namespace spillway::broker {

// Per-topic traffic counters (any thread, relaxed).
struct TopicCounters {
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<uint64_t> messages_in{0};
  std::atomic<uint64_t> bytes_out{0};
  std::atomic<uint64_t> messages_out{0};
};

struct Topic {
  std::string name;
  TopicConfig config;
  std::vector<std::shared_ptr<Partition>> partitions;  // index = partition id; none when offline
  std::atomic<uint32_t> sticky{0};                     // round-robin for keyless routed batches
  TopicCounters counters;
  // Ok for a topic that serves. Otherwise the topic is offline: at start its
  // metadata could not be read or parsed, or a partition could not be
  // opened. It is listed (Metadata carries this as the topic's error), every
  // produce, fetch and offset request to it gets this error, and it can be
  // deleted; nothing else.
  Status offline;

  // Ok iff partition `index` serves; otherwise the error for a request to it:
  // `offline`, or kUnknownPartition naming the valid range.
  Status check_partition(int32_t index) const;
};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>()(s); }
};
using TopicTable =
    std::unordered_map<std::string, std::shared_ptr<Topic>, StringHash, std::equal_to<>>;

// The settings of a CreateTopics request after defaults are applied.
struct CreateTopicSpec {
  std::string name;
  int32_t partitions = 1;
  std::string flush_policy;  // "" = broker default
  int64_t retention_bytes = -2;
  int64_t retention_ms = -2;
  int64_t segment_bytes = -2;
  // Replication (a cluster only; a standalone broker ignores them): 0 / -1
  // = the [cluster] defaults.
  int32_t min_insync_replicas = 0;
  int32_t unclean_leader_election = -1;
};

class TopicRegistry {
 public:
  // The partitions live on the cores of `cores`, the files in `fs`; every
  // argument must outlive the registry.
  TopicRegistry(const BrokerConfig& config, CoreSet& cores, storage::FileSystem& fs);
  TopicRegistry(const TopicRegistry&) = delete;
  TopicRegistry& operator=(const TopicRegistry&) = delete;

  // Before the cores run: opens every topic found in the data directory and
  // adds the per-core periodic tasks (the flush tick, which also paces the
  // sealed-segment checks and the scrubber, and retention every
  // retention_check_interval_ms). A topic that cannot be opened is logged
  // (file and problem) and kept offline; it does not fail the start.
  // Finishes deletes cut short and removes topic directories of creates cut
  // short (no topic.meta, no partition). Error only when the topics
  // directory cannot be listed.
  Status start();
  // On core `core`'s thread when the broker stops: wakes the long polls
  // waiting on its partitions (they answer with what there is).
  void stop_core(size_t core);
  // After the cores have stopped (their threads ended): closes every log
  // cleanly, each bound to its owner core.
  void close_all();

  // The core that owns `partition` of `topic`.
  size_t owner_of(std::string_view topic, PartitionId partition) const;

  // The calling core's table (read only on that core).
  const TopicTable& table() const;
  // The topic named `name` in the calling core's table, or null.
  Topic* find(std::string_view name) const;
  // The same, as an owning pointer (for work that outlives the call).
  std::shared_ptr<Topic> find_shared(std::string_view name) const;

  // Creates a topic (blocking file work on this thread). On success returns
  // the topic at once and calls `done(Ok)` on `executor` once every core's
  // table has it. Errors (returned, `done` not called): kTopicExists,
  // kInvalidArgument naming the field, kIoError.
  Result<std::shared_ptr<Topic>> create(const CreateTopicSpec& spec, asio::any_io_executor executor,
                                        std::function<void(Status)> done);
  // The checks create() makes, without creating (Kafka's validate_only):
  // Ok, or the error create() would return short of a file error.
  Status check_create(const CreateTopicSpec& spec) const;
  // The settings a topic made from `spec` gets: the broker's defaults
  // applied, every value checked (kInvalidArgument naming the field).
  Result<TopicConfig> resolve(const CreateTopicSpec& spec) const;

  // Raises the partition count of topic `name` to `count`: the new
  // partitions' directories, then topic.meta (blocking, on this thread);
  // then every core's table takes the grown topic and done(Ok) runs on
  // `executor`. Errors returned (nothing changed, `done` not called):
  // kUnknownTopic, the topic's offline status, kInvalidArgument when
  // `count` is not above the current count or above the limit, kIoError.
  Status add_partitions(std::string_view name, int32_t count, asio::any_io_executor executor,
                        std::function<void(Status)> done);
  // The checks add_partitions() makes, without changing anything.
  Status check_add_partitions(std::string_view name, int32_t count) const;
  // Deletes a topic: its directory is renamed to a fixed-length deletion
  // mark (the delete itself: the name is free at once, and start()
  // completes a delete the broker did not finish), every core drops it, its
  // partitions close, the mark is removed; then done(status) on `executor`.
  // Errors returned (nothing changed, `done` not called): kUnknownTopic,
  // kIoError when the rename fails. done(kIoError) when the topic is deleted
  // but its files could not all be removed, or the rename could not be made
  // durable (the message says which).
  Status remove(std::string_view name, asio::any_io_executor executor,
                std::function<void(Status)> done);

  const BrokerConfig& config() const { return config_; }

  // Every topic (for metrics), under the admin lock.
  std::vector<std::shared_ptr<Topic>> snapshot() const;

 private:
  // What each core holds of the topics; touched only on that core.
  struct CoreTopics {
    TopicTable table;
    std::vector<std::shared_ptr<Partition>> owned;
    // The core's interval flushes, synced as one group; null when the data
    // directory's group could not be opened (each log then syncs alone).
    std::unique_ptr<IntervalFlush> interval_flush;
  };

  // Whether open_topic() makes the topic's directory and topic.meta first.
  enum class TopicFiles { kCreate, kExisting };
  Result<std::shared_ptr<Topic>> open_topic(const std::string& name, const TopicConfig& config,
                                            TopicFiles files);
  // Opens the existing topic `name` from its metadata file; the error names
  // the file or partition and the problem.
  Result<std::shared_ptr<Topic>> restore_topic(const std::string& name);
  // The log settings of a topic's partitions (kInvalidArgument if the log
  // refuses them).
  Result<storage::LogConfig> log_config_for(const TopicConfig& config) const;
  // Partition `id` of `topic` over `log`, owned by its core.
  std::shared_ptr<Partition> make_partition(const Topic& topic, PartitionId id,
                                            std::unique_ptr<storage::PartitionLog> log);
  static Status exists_error(const Topic& topic);
  // add_partitions()'s checks on `topic` (null: unknown), under admin_mu_.
  static Status check_growth(const Topic* topic, std::string_view name, int32_t count);
  // Adds `topic` to core `core`'s table and its partitions there to the
  // core's owned list (on that core, or before the cores run).
  void adopt(size_t core, const std::shared_ptr<Topic>& topic);
  std::string topic_dir(std::string_view name) const;
  // A deletion-mark path not in use (under admin_mu_).
  std::string next_deletion_mark();

  const BrokerConfig& config_;
  CoreSet& cores_;
  storage::FileSystem& fs_;
  std::vector<CoreTopics> per_core_;  // index = core
  mutable std::mutex admin_mu_;
  std::map<std::string, std::shared_ptr<Topic>, std::less<>> all_;  // under admin_mu_
  uint64_t deletion_marks_ = 0;                                     // under admin_mu_
};

}  // namespace spillway::broker
