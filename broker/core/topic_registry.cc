// TopicRegistry: topic metadata on disk, per-core tables, partition owners,
// and the periodic work of the partitions on each core.
#include "topic_registry.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cassert>
#include <cstdio>

#include "spillway/common/parallel_for.h"

namespace spillway::broker {

namespace {

constexpr const char* kMetaFile = "topic.meta";
// A deleted topic's directory is first renamed to DATA_DIR/topics/
// kDeletionMark + 20 digits (29 bytes, whatever the topic's name: a name
// derived from the topic's could exceed the file-name limit), then removed.
// '~' is not a topic-name character, so a mark can never be a topic.
constexpr std::string_view kDeletionMark = "~deleted-";
// Marks of brokers before the change above: ".deleted-N-NAME" (topic names
// with this prefix are refused, see validate_topic_name).
constexpr std::string_view kLegacyDeletionMark = ".deleted-";

bool is_deletion_mark(std::string_view entry) {
  return entry.starts_with(kDeletionMark) || entry.starts_with(kLegacyDeletionMark);
}

// Threads that open a topic's partition logs (PartitionLog::open_many).
constexpr unsigned kOpenThreads = 4;
// Threads that write the partitions' clean closes at shutdown (close_all):
// waiting on the disk, not computing, so more than the cores. Measured on
// fdatasync of many small files here: 8 threads 3.6x one, 32 threads 5.8x.
constexpr size_t kCloseThreads = 16;

std::chrono::milliseconds tick_period(const BrokerConfig& config) {
  return std::chrono::milliseconds(std::clamp<int64_t>(config.flush_interval_ms / 2, 10, 1000));
}

// True iff `dir` holds nothing but, perhaps, the temporary metadata file: a
// create that stopped before its topic.meta was in place (the create was
// never acknowledged, and there is no data to lose).
bool is_unfinished_create(storage::FileSystem& fs, const std::string& dir) {
  Result<std::vector<std::string>> entries = fs.list_dir(dir);
  if (!entries.ok()) return false;
  for (const std::string& entry : *entries) {
    if (entry != std::string(kMetaFile) + ".tmp") return false;
  }
  return !fs.exists(dir + "/" + kMetaFile);
}

// The reason of a FileSystem error without the operation and paths in
// front of it (status_from_errno: "what: reason"), for clients, which are
// not shown the broker's directories.
std::string_view reason(const Status& st) {
  const std::string_view message = st.message();
  const size_t colon = message.rfind(": ");
  return colon == std::string_view::npos ? message : message.substr(colon + 2);
}

// True iff `a` and `b` are the same topic, perhaps before and after
// add_partitions() (which replaces the Topic but keeps its partitions), not
// merely two topics of one name.
bool same_topic(const Topic& a, const Topic& b) {
  if (&a == &b) return true;
  return !a.partitions.empty() && !b.partitions.empty() && a.partitions[0] == b.partitions[0];
}

}  // namespace

Status Topic::check_partition(int32_t index) const {
  if (!offline.ok()) return offline;
  if (index < 0 || static_cast<size_t>(index) >= partitions.size()) {
    return Status(ErrorCode::kUnknownPartition, "topic " + name + " has partitions 0 to " +
                                                    std::to_string(partitions.size() - 1) +
                                                    ", not " + std::to_string(index));
  }
  return Status::Ok();
}

TopicRegistry::TopicRegistry(const BrokerConfig& config, CoreSet& cores, storage::FileSystem& fs)
    : config_(config), cores_(cores), fs_(fs), per_core_(cores.size()) {}

size_t TopicRegistry::owner_of(std::string_view topic, PartitionId partition) const {
  const size_t h = std::hash<std::string_view>()(topic) ^
                   (static_cast<size_t>(partition.value()) * 0x9e3779b97f4a7c15ull);
  return h % per_core_.size();
}

const TopicTable& TopicRegistry::table() const {
  const size_t core = CoreSet::current();
  assert(core < per_core_.size());
  return per_core_[core < per_core_.size() ? core : 0].table;
}

Topic* TopicRegistry::find(std::string_view name) const {
  const TopicTable& t = table();
  auto it = t.find(name);
  return it == t.end() ? nullptr : it->second.get();
}

std::shared_ptr<Topic> TopicRegistry::find_shared(std::string_view name) const {
  const TopicTable& t = table();
  auto it = t.find(name);
  return it == t.end() ? nullptr : it->second;
}

std::string TopicRegistry::topic_dir(std::string_view name) const {
  return config_.data_dir + "/topics/" + std::string(name);
}

Result<std::shared_ptr<Topic>> TopicRegistry::open_topic(const std::string& name,
                                                         const TopicConfig& config,
                                                         TopicFiles files) {
  auto topic = std::make_shared<Topic>();
  topic->name = name;
  topic->config = config;
  const std::string dir = topic_dir(name);
  if (files == TopicFiles::kCreate) {
    SPILLWAY_RETURN_IF_ERROR(fs_.create_dirs(dir));
    SPILLWAY_RETURN_IF_ERROR(
        storage::write_file_atomically(fs_, dir + "/" + kMetaFile, serialize_topic_config(config)));
    SPILLWAY_RETURN_IF_ERROR(fs_.sync_dir(config_.data_dir + "/topics"));
  }
  Result<storage::LogConfig> log_config = log_config_for(config);
  if (!log_config.ok()) return log_config.status();
  std::vector<std::string> dirs;
  for (int32_t p = 0; p < config.partitions; ++p) dirs.push_back(dir + "/" + std::to_string(p));
  // A few threads: the opens wait mostly on fsyncs, which the journal then
  // commits together, and check what was written since the last start on
  // every core (docs/log-storage.md, "Opening many logs").
  std::vector<Result<std::unique_ptr<storage::PartitionLog>>> logs =
      storage::PartitionLog::open_many(fs_, dirs, *log_config, kOpenThreads);
  for (auto& log : logs) {
    if (!log.ok()) return log.status();
  }
  for (int32_t p = 0; p < config.partitions; ++p) {
    topic->partitions.push_back(make_partition(*topic, PartitionId(p), std::move(*logs[p])));
  }
  return topic;
}

Result<storage::LogConfig> TopicRegistry::log_config_for(const TopicConfig& config) const {
  storage::LogConfig log_config;
  log_config.segment_bytes = static_cast<uint64_t>(config.segment_bytes);
  log_config.max_batch_bytes = static_cast<uint32_t>(config_.max_batch_bytes);
  log_config.flush_policy = config.flush_policy;
  // The interval fdatasync is the Partition's job (on the sync thread); the
  // log's own, which would run inside an append on the owner core, is off.
  const bool interval = config.flush_policy == storage::FlushPolicy::kInterval;
  log_config.flush_interval_ms = interval ? INT64_MAX / 2 : config_.flush_interval_ms;
  if (interval) log_config.flush_interval_bytes = UINT64_MAX;
  log_config.retention_bytes = config.retention_bytes;
  log_config.retention_ms = config.retention_ms;
  log_config.verify_reads = config_.verify_reads;
  if (Status st = log_config.validate(); !st.ok()) {
    return Status(ErrorCode::kInvalidArgument, std::string(st.message()));
  }
  return log_config;
}

std::shared_ptr<Partition> TopicRegistry::make_partition(
    const Topic& topic, PartitionId id, std::unique_ptr<storage::PartitionLog> log) {
  const bool interval = topic.config.flush_policy == storage::FlushPolicy::kInterval;
  auto partition = std::make_shared<Partition>(
      topic.name, id, std::move(log), cores_, owner_of(topic.name, id),
      interval ? config_.flush_interval_ms : 0, config_.producer_id_expiration_ms);
  // In a cluster the ReplicaManager decides what it is (leader, follower).
  if (!config_.cluster_etcd_endpoints.empty()) partition->start_unassigned();
  return partition;
}

Result<std::shared_ptr<Topic>> TopicRegistry::restore_topic(const std::string& name) {
  const std::string meta = topic_dir(name) + "/" + kMetaFile;
  Result<std::string> text = fs_.read_file(meta);
  if (!text.ok()) return text.status();
  Result<TopicConfig> config = parse_topic_config(*text);
  if (!config.ok()) {
    return Status(config.status().code(), meta + ": " + std::string(config.status().message()));
  }
  Result<std::shared_ptr<Topic>> topic = open_topic(name, *config, TopicFiles::kExisting);
  if (!topic.ok() && topic.status().code() == ErrorCode::kInvalidArgument) {
    // A setting that parses but that the log refuses.
    return Status(ErrorCode::kInvalidArgument, meta + ": " + std::string(topic.status().message()));
  }
  return topic;
}

Status TopicRegistry::start() {
  const std::string topics_dir = config_.data_dir + "/topics";
  SPILLWAY_RETURN_IF_ERROR(fs_.create_dirs(topics_dir));
  for (size_t core = 0; core < per_core_.size(); ++core) {
    // Opened before any log is opened, so the group sees every write-back
    // error from now on (group_sync.h).
    Result<std::unique_ptr<storage::GroupSync>> group = fs_.open_group_sync(config_.data_dir);
    if (!group.ok()) {
      spdlog::warn("interval flushes sync each partition on its own: {}",
                   group.status().message());
      continue;
    }
    per_core_[core].interval_flush = std::make_unique<IntervalFlush>(
        std::move(*group), cores_.context(core), cores_.sync_context(core));
  }
  Result<std::vector<std::string>> entries = fs_.list_dir(topics_dir);
  if (!entries.ok()) {
    return Status(ErrorCode::kIoError,
                  "list " + topics_dir + ": " + std::string(reason(entries.status())));
  }
  for (const std::string& name : *entries) {
    const std::string path = topics_dir + "/" + name;
    if (is_deletion_mark(name)) {
      // A delete cut short (a crash, or files that could not be removed):
      // the topic was deleted when its directory was renamed; finish it.
      if (Status removed = fs_.remove_all(path); !removed.ok()) {
        spdlog::error("cannot finish removing deleted topic files {}: {}", path, reason(removed));
      } else {
        spdlog::info("removed the files of a topic deleted before the restart ({})", path);
      }
      continue;
    }
    if (!fs_.is_directory(path) || !validate_topic_name(name).ok()) continue;
    if (is_unfinished_create(fs_, path)) {
      if (Status removed = fs_.remove_all(path); !removed.ok()) {
        spdlog::error("cannot remove {} (a topic create that did not finish): {}", path,
                      reason(removed));
      } else {
        spdlog::warn("removed {}: a topic create that did not finish (no {})", path, kMetaFile);
      }
      continue;
    }
    Result<std::shared_ptr<Topic>> topic = restore_topic(name);
    if (!topic.ok()) {
      // One bad topic must not keep the others from serving.
      spdlog::error("topic {} is offline: {}", name, topic.status().message());
      auto offline = std::make_shared<Topic>();
      offline->name = name;
      offline->offline =
          Status(ErrorCode::kIoError, "topic " + name + " is offline (see the broker's log): " +
                                          std::string(topic.status().message()));
      all_[name] = std::move(offline);
      continue;
    }
    spdlog::info("restored topic {} ({} partition(s))", name, (*topic)->partitions.size());
    all_[name] = *topic;
  }

  // No core runs yet: their tables are filled from here.
  for (size_t core = 0; core < per_core_.size(); ++core) {
    for (auto& [name, topic] : all_) adopt(core, topic);
  }
  cores_.every(tick_period(config_), [this](size_t core) {
    CoreTopics& mine = per_core_[core];
    for (auto& partition : mine.owned) partition->tick(mine.interval_flush.get());
    if (mine.interval_flush != nullptr) mine.interval_flush->start();
  });
  cores_.every(std::chrono::milliseconds(config_.retention_check_interval_ms), [this](size_t core) {
    for (auto& partition : per_core_[core].owned) partition->enforce_retention();
  });
  return Status::Ok();
}

void TopicRegistry::adopt(size_t core, const std::shared_ptr<Topic>& topic) {
  CoreTopics& mine = per_core_[core];
  mine.table[topic->name] = topic;
  for (auto& partition : topic->partitions) {
    if (partition->core() == core) mine.owned.push_back(partition);
  }
}

void TopicRegistry::stop_core(size_t core) {
  check_on_core(core);
  for (auto& partition : per_core_[core].owned) partition->wake_waiters();
}

void TopicRegistry::close_all() {
  // Every partition's close but its writes, as each core's owner; then the
  // writes (a snapshot and the log's clean close: several syncs each) on
  // kCloseThreads threads, whose waits for the disk the kernel merges. One
  // after the other, 10,000 partitions took over 30 s to stop.
  // The partitions (and their logs) stay alive through all_ until the end.
  std::vector<Partition::ShutdownClose> writes;
  for (size_t core = 0; core < per_core_.size(); ++core) {
    CoreSet::Binding bound(core);  // the core's thread has ended: act as its owner
    for (auto& partition : per_core_[core].owned)
      writes.push_back(partition->begin_shutdown_close());
    per_core_[core].owned.clear();
    per_core_[core].table.clear();
  }
  parallel_for(writes.size(), kCloseThreads, [&](size_t i) { writes[i].finish(); });
  std::lock_guard lock(admin_mu_);
  all_.clear();
}

Result<TopicConfig> TopicRegistry::resolve(const CreateTopicSpec& spec) const {
  SPILLWAY_RETURN_IF_ERROR(validate_topic_name(spec.name));
  TopicConfig config;
  if (spec.partitions < 1 || spec.partitions > kMaxPartitionsPerTopic) {
    return Status(ErrorCode::kInvalidArgument, "partitions must be 1 to " +
                                                   std::to_string(kMaxPartitionsPerTopic) +
                                                   ", not " + std::to_string(spec.partitions));
  }
  config.partitions = spec.partitions;
  Result<storage::FlushPolicy> policy =
      parse_flush_policy(spec.flush_policy.empty() ? config_.flush_policy : spec.flush_policy);
  if (!policy.ok()) return policy.status();
  config.flush_policy = *policy;
  auto pick = [](int64_t requested, int64_t fallback, const char* field,
                 int64_t min) -> Result<int64_t> {
    if (requested == -2) return fallback;
    if (requested < min) {
      return Status(ErrorCode::kInvalidArgument,
                    std::string(field) + " must be >= " + std::to_string(min) +
                        " (or -2 for the broker default), not " + std::to_string(requested));
    }
    return requested;
  };
  Result<int64_t> rb = pick(spec.retention_bytes, config_.retention_bytes, "retention_bytes", -1);
  if (!rb.ok()) return rb.status();
  Result<int64_t> rm = pick(spec.retention_ms, config_.retention_ms, "retention_ms", -1);
  if (!rm.ok()) return rm.status();
  Result<int64_t> sb = pick(spec.segment_bytes, config_.segment_bytes, "segment_bytes", 4096);
  if (!sb.ok()) return sb.status();
  config.retention_bytes = *rb;
  config.retention_ms = *rm;
  config.segment_bytes = *sb;
  return config;
}

Status TopicRegistry::check_create(const CreateTopicSpec& spec) const {
  Result<TopicConfig> config = resolve(spec);
  if (!config.ok()) return config.status();
  std::lock_guard lock(admin_mu_);
  if (auto it = all_.find(spec.name); it != all_.end()) return exists_error(*it->second);
  return Status::Ok();
}

Status TopicRegistry::exists_error(const Topic& topic) {
  return Status(ErrorCode::kTopicExists,
                "topic " + topic.name + " already exists" +
                    (topic.offline.ok() ? "" : " (offline: delete it first)"));
}

Result<std::shared_ptr<Topic>> TopicRegistry::create(const CreateTopicSpec& spec,
                                                     asio::any_io_executor executor,
                                                     std::function<void(Status)> done) {
  Result<TopicConfig> resolved = resolve(spec);
  if (!resolved.ok()) return resolved.status();
  const TopicConfig& config = *resolved;

  std::shared_ptr<Topic> topic;
  {
    std::lock_guard lock(admin_mu_);
    if (auto it = all_.find(spec.name); it != all_.end()) return exists_error(*it->second);
    Result<std::shared_ptr<Topic>> opened = open_topic(spec.name, config, TopicFiles::kCreate);
    if (!opened.ok()) {
      // The client sees the error; the operator needs it too (a full disk,
      // too few descriptors), since nothing else records the attempt.
      spdlog::error("cannot create topic {} ({} partition(s)): {}", spec.name, config.partitions,
                    opened.status().message());
      // Whatever of it was made goes (a failure here is left to start()).
      (void)fs_.remove_all(topic_dir(spec.name));
      return opened.status();
    }
    topic = *opened;
    all_[spec.name] = topic;
  }
  spdlog::info("created topic {} ({} partition(s), flush {})", spec.name, config.partitions,
               flush_policy_name(config.flush_policy));
  cores_.broadcast([this, topic](size_t core) { adopt(core, topic); }, std::move(executor),
                   [done = std::move(done)] { done(Status::Ok()); });
  return topic;
}

Status TopicRegistry::check_growth(const Topic* topic, std::string_view name, int32_t count) {
  if (topic == nullptr) {
    return Status(ErrorCode::kUnknownTopic, "unknown topic " + std::string(name));
  }
  if (!topic->offline.ok()) return topic->offline;
  const auto current = static_cast<int32_t>(topic->partitions.size());
  if (count <= current || count > kMaxPartitionsPerTopic) {
    return Status(ErrorCode::kInvalidArgument,
                  "topic " + topic->name + " has " + std::to_string(current) +
                      " partition(s); the new count must be more, and at most " +
                      std::to_string(kMaxPartitionsPerTopic) + ", not " + std::to_string(count));
  }
  return Status::Ok();
}

Status TopicRegistry::check_add_partitions(std::string_view name, int32_t count) const {
  std::lock_guard lock(admin_mu_);
  auto it = all_.find(name);
  return check_growth(it == all_.end() ? nullptr : it->second.get(), name, count);
}

Status TopicRegistry::add_partitions(std::string_view name, int32_t count,
                                     asio::any_io_executor executor,
                                     std::function<void(Status)> done) {
  std::shared_ptr<Topic> grown;
  {
    std::lock_guard lock(admin_mu_);
    auto it = all_.find(name);
    SPILLWAY_RETURN_IF_ERROR(
        check_growth(it == all_.end() ? nullptr : it->second.get(), name, count));
    const Topic& old = *it->second;
    const auto first = static_cast<int32_t>(old.partitions.size());
    TopicConfig config = old.config;
    config.partitions = count;
    Result<storage::LogConfig> log_config = log_config_for(config);
    if (!log_config.ok()) return log_config.status();
    const std::string dir = topic_dir(old.name);
    // The new logs first, then topic.meta (the commit point). A directory
    // already there is what a growth cut short left behind: never
    // acknowledged, never served.
    std::vector<std::unique_ptr<storage::PartitionLog>> logs;
    auto undo = [&](Status st) {
      spdlog::error("cannot grow topic {} to {} partition(s): {}", old.name, count, st.message());
      logs.clear();
      for (int32_t p = first; p < count; ++p) (void)fs_.remove_all(dir + "/" + std::to_string(p));
      return st;
    };
    for (int32_t p = first; p < count; ++p) {
      const std::string path = dir + "/" + std::to_string(p);
      if (fs_.exists(path)) {
        if (Status removed = fs_.remove_all(path); !removed.ok()) return undo(removed);
      }
      Result<std::unique_ptr<storage::PartitionLog>> log =
          storage::PartitionLog::open(fs_, path, *log_config);
      if (!log.ok()) return undo(log.status());
      logs.push_back(std::move(*log));
    }
    if (Status st = storage::write_file_atomically(fs_, dir + "/" + kMetaFile,
                                                   serialize_topic_config(config));
        !st.ok()) {
      return undo(st);
    }
    // Cores read a Topic without locks, so it is never changed in place: a
    // new one shares the old partitions and takes the old one's place in
    // every table (as a delete drops one). Its traffic counters carry on
    // from the old one's.
    grown = std::make_shared<Topic>();
    grown->name = old.name;
    grown->config = config;
    grown->partitions = old.partitions;
    for (auto& log : logs) {
      const PartitionId id(static_cast<int32_t>(grown->partitions.size()));
      grown->partitions.push_back(make_partition(*grown, id, std::move(log)));
    }
    auto carry = [](const std::atomic<uint64_t>& from, std::atomic<uint64_t>& to) {
      to.store(from.load(std::memory_order_relaxed), std::memory_order_relaxed);
    };
    carry(old.counters.bytes_in, grown->counters.bytes_in);
    carry(old.counters.messages_in, grown->counters.messages_in);
    carry(old.counters.bytes_out, grown->counters.bytes_out);
    carry(old.counters.messages_out, grown->counters.messages_out);
    it->second = grown;
  }
  spdlog::info("topic {} now has {} partition(s)", name, count);
  cores_.broadcast(
      [this, grown](size_t core) {
        // Skipped where the topic is gone already (a delete's broadcast
        // that overtook this one).
        CoreTopics& mine = per_core_[core];
        auto it = mine.table.find(grown->name);
        if (it == mine.table.end() || !same_topic(*it->second, *grown)) return;
        const size_t known = it->second->partitions.size();
        it->second = grown;
        for (size_t p = known; p < grown->partitions.size(); ++p) {
          if (grown->partitions[p]->core() == core) mine.owned.push_back(grown->partitions[p]);
        }
      },
      std::move(executor), [done = std::move(done)] { done(Status::Ok()); });
  return Status::Ok();
}

std::string TopicRegistry::next_deletion_mark() {
  for (;;) {
    char digits[21];
    std::snprintf(digits, sizeof(digits), "%020llu",
                  static_cast<unsigned long long>(++deletion_marks_));
    std::string mark = config_.data_dir + "/topics/" + std::string(kDeletionMark) + digits;
    // One left by an earlier run whose files could not be removed: skip it.
    if (!fs_.exists(mark)) return mark;
  }
}

Status TopicRegistry::remove(std::string_view name, asio::any_io_executor executor,
                             std::function<void(Status)> done) {
  std::shared_ptr<Topic> topic;
  std::string mark;
  Status durable;
  {
    std::lock_guard lock(admin_mu_);
    auto it = all_.find(name);
    if (it == all_.end()) {
      return Status(ErrorCode::kUnknownTopic, "unknown topic " + std::string(name));
    }
    // The rename is the delete: one atomic step that frees the name for a
    // new topic at once (the old partitions close on their cores meanwhile)
    // and that start() completes if the broker stops before the files are
    // gone. If it fails, nothing has changed and the client is told.
    mark = next_deletion_mark();
    const std::string dir = topic_dir(name);
    if (Status renamed = fs_.rename(dir, mark); !renamed.ok()) {
      spdlog::error("delete topic {}: cannot rename {} to {}: {}", name, dir, mark,
                    reason(renamed));
      return Status(ErrorCode::kIoError, "topic " + std::string(name) +
                                             " was not deleted: cannot rename its directory: " +
                                             std::string(reason(renamed)) +
                                             " (the broker's log has the details)");
    }
    topic = it->second;
    all_.erase(it);
    durable = fs_.sync_dir(config_.data_dir + "/topics");
    if (!durable.ok()) spdlog::error("delete topic {}: {}", name, durable.message());
  }
  spdlog::info("deleting topic {}", name);
  cores_.broadcast(
      [this, topic](size_t core) {
        CoreTopics& mine = per_core_[core];
        auto it = mine.table.find(topic->name);
        if (it != mine.table.end() && same_topic(*it->second, *topic)) mine.table.erase(it);
        std::erase_if(mine.owned, [&](const std::shared_ptr<Partition>& p) {
          for (auto& deleted : topic->partitions) {
            if (deleted == p) {
              p->close(Closing::kDeleted);
              return true;
            }
          }
          return false;
        });
      },
      std::move(executor),
      [this, name = std::string(name), mark, durable = std::move(durable), done = std::move(done)] {
        // From here the topic is gone whatever happens; an error only says
        // that some of it may linger on disk (removed at the next start).
        Status st;
        if (Status removed = fs_.remove_all(mark); !removed.ok()) {
          spdlog::error("delete topic {}: cannot remove {}: {} (retried at the next start)", name,
                        mark, reason(removed));
          st = Status(ErrorCode::kIoError, "topic " + name +
                                               " was deleted, but removing its files failed: " +
                                               std::string(reason(removed)) +
                                               "; the broker removes them at its next start");
        } else if (!durable.ok()) {
          st = Status(ErrorCode::kIoError,
                      "topic " + name +
                          " was deleted, but the deletion may not survive a crash: "
                          "fsync of the topics directory failed: " +
                          std::string(durable.message()));
        }
        done(std::move(st));
      });
  return Status::Ok();
}

std::vector<std::shared_ptr<Topic>> TopicRegistry::snapshot() const {
  std::lock_guard lock(admin_mu_);
  std::vector<std::shared_ptr<Topic>> out;
  for (auto& [name, topic] : all_) out.push_back(topic);
  return out;
}

}  // namespace spillway::broker
