// TopicRegistry: topic metadata on disk, per-core tables, partition owners,
// and the per-core timers.
#include "topic_registry.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <asio/post.hpp>
#include <cassert>
#include <filesystem>

#include "spillway/storage/file_system.h"

namespace spillway::broker {

namespace {

constexpr size_t kNoCore = SIZE_MAX;
thread_local size_t t_core = kNoCore;

// Retention runs every this many ticks of the flush timer.
constexpr int64_t kRetentionEveryMs = 5'000;
constexpr const char* kMetaFile = "topic.meta";
constexpr const char* kTombstonePrefix = ".deleted-";

std::chrono::milliseconds tick_period(const BrokerConfig& config) {
  return std::chrono::milliseconds(std::clamp<int64_t>(config.flush_interval_ms / 2, 10, 1000));
}

}  // namespace

TopicRegistry::TopicRegistry(const BrokerConfig& config, std::vector<asio::io_context*> cores)
    : config_(config) {
  for (asio::io_context* context : cores) {
    auto core = std::make_unique<Core>();
    core->context = context;
    cores_.push_back(std::move(core));
  }
}

TopicRegistry::~TopicRegistry() {
  for (auto& core : cores_) {
    core->sync_work.reset();
    if (core->sync_thread.joinable()) core->sync_thread.join();
  }
}

size_t TopicRegistry::current_core() {
  assert(t_core != kNoCore);
  return t_core == kNoCore ? 0 : t_core;
}

size_t TopicRegistry::owner_of(std::string_view topic, int32_t partition) const {
  const size_t h = std::hash<std::string_view>()(topic) ^
                   (static_cast<size_t>(partition) * 0x9e3779b97f4a7c15ull);
  return h % cores_.size();
}

const TopicTable& TopicRegistry::table() const {
  return cores_[current_core()]->table;
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
                                                         const TopicConfig& config, bool create) {
  auto topic = std::make_shared<Topic>();
  topic->name = name;
  topic->config = config;
  const std::string dir = topic_dir(name);
  storage::FileSystem& fs = storage::posix_file_system();
  if (create) {
    SPILLWAY_RETURN_IF_ERROR(fs.create_dirs(dir));
    SPILLWAY_RETURN_IF_ERROR(
        write_file_atomically(dir + "/" + kMetaFile, serialize_topic_config(config)));
    SPILLWAY_RETURN_IF_ERROR(fs.sync_dir(config_.data_dir + "/topics"));
  }
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
  for (int32_t p = 0; p < config.partitions; ++p) {
    Result<std::unique_ptr<storage::PartitionLog>> log =
        storage::PartitionLog::open(fs, dir + "/" + std::to_string(p), log_config);
    if (!log.ok()) return log.status();
    Core& owner = *cores_[owner_of(name, p)];
    topic->partitions.push_back(
        std::make_shared<Partition>(name, p, std::move(*log), *owner.context, owner.sync,
                                    interval ? config_.flush_interval_ms : 0));
  }
  return topic;
}

Status TopicRegistry::start() {
  const std::string topics_dir = config_.data_dir + "/topics";
  storage::FileSystem& fs = storage::posix_file_system();
  SPILLWAY_RETURN_IF_ERROR(fs.create_dirs(topics_dir));
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(topics_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kTombstonePrefix, 0) == 0) {
      std::filesystem::remove_all(entry.path(), ec);  // a delete cut short by a crash
      continue;
    }
    if (!entry.is_directory() || !validate_topic_name(name).ok()) continue;
    Result<std::string> text = read_small_file(entry.path().string() + "/" + kMetaFile);
    if (!text.ok()) {
      spdlog::warn("skipping {}: {}", entry.path().string(), text.status().message());
      continue;
    }
    Result<TopicConfig> config = parse_topic_config(*text);
    if (!config.ok()) {
      return Status(ErrorCode::kConfig, entry.path().string() + "/topic.meta: " +
                                            std::string(config.status().message()));
    }
    Result<std::shared_ptr<Topic>> topic = open_topic(name, *config, false);
    if (!topic.ok()) return topic.status();
    spdlog::info("restored topic {} ({} partition(s))", name, config->partitions);
    all_[name] = *topic;
  }
  if (ec) return Status(ErrorCode::kIoError, "list " + topics_dir + ": " + ec.message());

  for (size_t i = 0; i < cores_.size(); ++i) {
    Core& core = *cores_[i];
    for (auto& [name, topic] : all_) {
      core.table[name] = topic;
      for (auto& partition : topic->partitions) {
        if (&partition->owner() == core.context) core.owned.push_back(partition);
      }
    }
    core.sync_work.emplace(core.sync.get_executor());
    core.sync_thread = std::thread([&core] { core.sync.run(); });
    core.tick_timer = std::make_unique<asio::steady_timer>(*core.context);
    // Runs first on the core's thread: it learns its index.
    asio::post(*core.context, [this, i] {
      t_core = i;
      schedule_tick(i);
    });
  }
  return Status::Ok();
}

void TopicRegistry::schedule_tick(size_t i) {
  Core& core = *cores_[i];
  core.tick_timer->expires_after(tick_period(config_));
  core.tick_timer->async_wait([this, i](asio::error_code ec) {
    if (ec) return;
    Core& c = *cores_[i];
    ++c.ticks;
    const bool retention =
        (c.ticks * tick_period(config_).count()) % kRetentionEveryMs < tick_period(config_).count();
    for (auto& partition : c.owned) {
      partition->tick();
      if (retention) partition->enforce_retention();
    }
    schedule_tick(i);
  });
}

void TopicRegistry::stop_core(size_t core) {
  if (cores_[core]->tick_timer) cores_[core]->tick_timer->cancel();
  for (auto& partition : cores_[core]->owned) partition->wake_waiters();
}

void TopicRegistry::close_all() {
  for (auto& core : cores_) {
    for (auto& partition : core->owned) partition->close();
    core->owned.clear();
    core->table.clear();
  }
  for (auto& core : cores_) {
    core->sync_work.reset();
    if (core->sync_thread.joinable()) core->sync_thread.join();
  }
  std::lock_guard lock(admin_mu_);
  all_.clear();
}

void TopicRegistry::broadcast(std::function<void(size_t core)> apply,
                              asio::any_io_executor executor, std::function<void(Status)> done) {
  struct Pending {
    std::atomic<size_t> left;
    std::function<void(size_t)> apply;
    asio::any_io_executor executor;
    std::function<void(Status)> done;
  };
  auto pending = std::make_shared<Pending>();
  pending->left = cores_.size();
  pending->apply = std::move(apply);
  pending->executor = std::move(executor);
  pending->done = std::move(done);
  for (size_t i = 0; i < cores_.size(); ++i) {
    asio::post(*cores_[i]->context, [pending, i] {
      pending->apply(i);
      if (pending->left.fetch_sub(1) == 1) {
        asio::post(pending->executor, [pending] { pending->done(Status::Ok()); });
      }
    });
  }
}

Result<std::shared_ptr<Topic>> TopicRegistry::create(const CreateTopicSpec& spec,
                                                     asio::any_io_executor executor,
                                                     std::function<void(Status)> done) {
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

  std::shared_ptr<Topic> topic;
  {
    std::lock_guard lock(admin_mu_);
    if (all_.count(spec.name)) {
      return Status(ErrorCode::kTopicExists, "topic " + spec.name + " already exists");
    }
    Result<std::shared_ptr<Topic>> opened = open_topic(spec.name, config, true);
    if (!opened.ok()) {
      std::error_code ec;
      std::filesystem::remove_all(topic_dir(spec.name), ec);
      return opened.status();
    }
    topic = *opened;
    all_[spec.name] = topic;
  }
  spdlog::info("created topic {} ({} partition(s), flush {})", spec.name, config.partitions,
               flush_policy_name(config.flush_policy));
  broadcast(
      [this, topic](size_t i) {
        Core& core = *cores_[i];
        core.table[topic->name] = topic;
        for (auto& partition : topic->partitions) {
          if (&partition->owner() == core.context) core.owned.push_back(partition);
        }
      },
      std::move(executor), std::move(done));
  return topic;
}

Status TopicRegistry::remove(std::string_view name, asio::any_io_executor executor,
                             std::function<void(Status)> done) {
  std::shared_ptr<Topic> topic;
  std::string tombstone;
  {
    std::lock_guard lock(admin_mu_);
    auto it = all_.find(name);
    if (it == all_.end()) {
      return Status(ErrorCode::kUnknownTopic, "unknown topic " + std::string(name));
    }
    topic = it->second;
    all_.erase(it);
    // Renamed at once so the name is free for a new topic while the old
    // partitions close on their cores.
    tombstone = config_.data_dir + "/topics/" + kTombstonePrefix + std::to_string(++tombstones_) +
                "-" + std::string(name);
    std::error_code ec;
    std::filesystem::rename(topic_dir(name), tombstone, ec);
    if (ec) spdlog::warn("delete topic {}: rename: {}", name, ec.message());
  }
  spdlog::info("deleting topic {}", name);
  broadcast(
      [this, topic](size_t i) {
        Core& core = *cores_[i];
        auto it = core.table.find(topic->name);
        if (it != core.table.end() && it->second == topic) core.table.erase(it);
        std::erase_if(core.owned, [&](const std::shared_ptr<Partition>& p) {
          if (&p->owner() != core.context) return false;
          for (auto& mine : topic->partitions) {
            if (mine == p) {
              p->close(/*clean=*/false);
              return true;
            }
          }
          return false;
        });
      },
      std::move(executor),
      [tombstone, done = std::move(done)](Status st) {
        std::error_code ec;
        std::filesystem::remove_all(tombstone, ec);
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
