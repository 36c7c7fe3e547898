// ClusterAdmin: what the request handlers of both protocols ask of the
// cluster (cluster_node.h implements it): create and delete topics, which
// in a cluster are keys in etcd rather than directories of one broker, and
// move partitions between brokers.
// Callable from any thread; `done` runs on `executor` once this broker's
// own snapshot shows the change (so a Metadata request sent after the
// answer, to this broker, sees it), or with the error.
#pragma once

#include <asio/any_io_executor.hpp>
#include <functional>
#include <string>
#include <vector>

#include "cluster/cluster_keys.h"
#include "cluster/cluster_member.h"
#include "spillway/common/status.h"

namespace spillway::broker::cluster {

class ClusterAdmin {
 public:
  virtual ~ClusterAdmin() = default;
  // The replication factor -1 means [cluster] default_replication_factor.
  virtual void create_topic(NewTopic topic, asio::any_io_executor executor,
                            std::function<void(Status)> done) = 0;
  virtual void delete_topic(std::string name, asio::any_io_executor executor,
                            std::function<void(Status)> done) = 0;
  // A consumer group's committed offsets as etcd holds them
  // (ClusterKeys::group_offsets, cluster/cluster_offsets.h), with the key's
  // mod_revision (0: no key yet). kCoordinationUnavailable when etcd does
  // not answer; kCorruptMessage for a value that does not decode.
  struct StoredOffsets {
    std::vector<GroupOffset> offsets;
    int64_t mod_revision = 0;
  };
  virtual void read_group_offsets(std::string group, asio::any_io_executor executor,
                                  std::function<void(Result<StoredOffsets>)> done) = 0;
  // Replaces them if the key's mod_revision is still `expected` (0: the key
  // must not exist): the new mod_revision, or 0 when the compare failed
  // (another broker wrote them since).
  virtual void write_group_offsets(std::string group, int64_t expected,
                                   std::vector<GroupOffset> offsets, asio::any_io_executor executor,
                                   std::function<void(Result<int64_t>)> done) = 0;

  // Records moves of partitions of `topic` (ClusterMember::reassign has the
  // rules; the controller carries them out). `done` gets one Status per
  // order, in order, once this broker's snapshot shows what was written.
  virtual void reassign_partitions(std::string topic, std::vector<ReassignOrder> orders,
                                   asio::any_io_executor executor,
                                   std::function<void(std::vector<Status>)> done) = 0;

  // The cluster as this broker last saw it (any thread).
  virtual SnapshotPtr snapshot() const = 0;
  virtual BrokerId broker_id() const = 0;
};

}  // namespace spillway::broker::cluster
