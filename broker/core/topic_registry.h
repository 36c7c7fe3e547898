// TopicRegistry: the broker's topics and the cores that own their
// partitions.
//
// Topics live in DATA_DIR/topics/NAME/ (topic.meta, written atomically, and
// one directory per partition) and are restored at start; one that cannot be
// restored starts offline (Topic::offline) while the others serve. Partition
// p of topic t is owned by core hash(t, p) % cores; all its work runs there.
//
// Lookups are lock-free: each core has its own copy of the name -> topic
// table, read only on that core. Admin operations (create, delete) are
// serialised by a mutex, do their blocking file work on the calling thread,
// then post the table change to every core and report once every core has
// applied it, so a request sent after the answer sees the change on any
// connection.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "config/broker_config.h"
#include "partition.h"
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
};

class TopicRegistry {
 public:
  // `cores` are the server's shard contexts (they must outlive this).
  TopicRegistry(const BrokerConfig& config, std::vector<asio::io_context*> cores);
  ~TopicRegistry();
  TopicRegistry(const TopicRegistry&) = delete;
  TopicRegistry& operator=(const TopicRegistry&) = delete;

  // Before the cores run: opens every topic found in the data directory and
  // starts the sync threads and the per-core timers (flush tick, retention).
  // A topic that cannot be opened is logged (file and problem) and kept
  // offline; it does not fail the start. Finishes deletes cut short and
  // removes topic directories of creates cut short (no topic.meta, no
  // partition). Error only when the topics directory cannot be listed.
  Status start();
  // On core `core`'s thread when the server stops: cancels its timers.
  void stop_core(size_t core);
  // After the cores have stopped: closes every log cleanly, ends the sync
  // threads.
  void close_all();

  size_t core_count() const { return cores_.size(); }
  // The calling thread's core index. Precondition: called on a core thread.
  static size_t current_core();
  size_t owner_of(std::string_view topic, int32_t partition) const;

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
  // Core `core`'s blocking-sync thread (fdatasyncs, offset commits).
  asio::io_context& sync_context(size_t core) { return cores_[core]->sync; }

  // Every topic (for metrics), under the admin lock.
  std::vector<std::shared_ptr<Topic>> snapshot() const;

 private:
  struct Core {
    asio::io_context* context = nullptr;
    TopicTable table;
    std::vector<std::shared_ptr<Partition>> owned;
    std::unique_ptr<asio::steady_timer> tick_timer;
    int64_t ticks = 0;
    asio::io_context sync{1};
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> sync_work;
    std::thread sync_thread;
  };

  Result<std::shared_ptr<Topic>> open_topic(const std::string& name, const TopicConfig& config,
                                            bool create);
  // Opens the existing topic `name` from its metadata file; the error names
  // the file or partition and the problem.
  Result<std::shared_ptr<Topic>> restore_topic(const std::string& name);
  // Posts `apply(core)` to every core; `done` on `executor` after the last.
  void broadcast(std::function<void(size_t core)> apply, asio::any_io_executor executor,
                 std::function<void(Status)> done);
  void schedule_tick(size_t core);
  std::string topic_dir(std::string_view name) const;
  // A deletion-mark path not in use (under admin_mu_).
  std::string next_deletion_mark();

  const BrokerConfig& config_;
  std::vector<std::unique_ptr<Core>> cores_;
  mutable std::mutex admin_mu_;
  std::map<std::string, std::shared_ptr<Topic>, std::less<>> all_;  // under admin_mu_
  uint64_t deletion_marks_ = 0;                                     // under admin_mu_
};

}  // namespace spillway::broker
