// TopicRegistry over a real data directory, one core driven by the test
// thread: deletes that stick for every legal name length, a delete cut
// short by a crash completed at start, deletion failures reported; at start,
// a topic that cannot be opened is offline while the others serve. Then the
// failures of its file work, through the in-memory file system.
#include "core/topic_registry.h"

#include <gtest/gtest.h>
#include <sys/mount.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "broker_process.h"
#include "memory_file_system.h"
#include "private_mounts.h"
#include "spillway/common/batch_builder.h"
#include "spillway/common/buffer_pool.h"

namespace spillway::broker {
namespace {

using spillway::testing::enter_private_mount_namespace;
using spillway::testing::TempDir;

constexpr size_t kMaxTopicName = 249;  // validate_topic_name()

// One batch of `n` one-byte records.
std::vector<std::byte> batch_of(int n) {
  std::array<std::byte, 256> scratch;
  WriteBuffer buf(scratch);
  batch::BatchBuilder builder;
  EXPECT_TRUE(builder.start(buf, {}).ok());
  const std::byte value[1] = {std::byte{'v'}};
  for (int i = 0; i < n; ++i) {
    batch::RecordInput r;
    r.timestamp = 1'700'000'000'000 + i;
    r.key_is_null = true;
    r.value = value;
    EXPECT_TRUE(builder.append(r).ok());
  }
  EXPECT_TRUE(builder.finish().ok());
  std::vector<std::byte> out(buf.bytes_written());
  buf.copy_to(out);
  return out;
}

// A registry with one core, which the test thread runs (bound as core 0)
// until the operation under test has answered; its files in `fs`.
class Registry {
 public:
  explicit Registry(std::string data_dir, storage::FileSystem& fs = storage::posix_file_system())
      : fs_(fs) {
    config_.data_dir = std::move(data_dir);
    config_.segment_bytes = 1 << 20;
  }
  ~Registry() { stop(); }

  Status start() {
    cores_ = std::make_unique<CoreSet>(1);
    registry_ = std::make_unique<TopicRegistry>(config_, *cores_, fs_);
    Status st = registry_->start();
    if (st.ok()) poll();  // the periodic tasks are armed
    return st;
  }
  // A clean stop, as at broker shutdown.
  void stop() {
    if (!registry_) return;
    registry_->stop_core(0);
    cores_->stop_core(0);
    poll();
    registry_->close_all();
    poll();
    registry_.reset();
    cores_.reset();
  }
  Status restart() {
    stop();
    return start();
  }

  // Settings for the next start().
  BrokerConfig& config() { return config_; }

  // Runs the core (its timers too) until `done()`.
  template <typename Done>
  void run_until(Done done) {
    core().restart();
    // The answer needs only posted work, never a timer: run_one() returns
    // as soon as the next handler ran.
    while (!done()) core().run_one();
  }

  TopicRegistry& operator*() { return *registry_; }
  TopicRegistry* operator->() { return registry_.get(); }

  Status create(const std::string& name, int32_t partitions = 1) {
    CreateTopicSpec spec;
    spec.name = name;
    spec.partitions = partitions;
    std::optional<Status> done;
    auto created = registry_->create(spec, core().get_executor(), [&](Status st) { done = st; });
    if (!created.ok()) return created.status();
    run_until([&] { return done.has_value(); });
    return *done;
  }

  Status remove(const std::string& name) {
    std::optional<Status> done;
    Status st = registry_->remove(name, core().get_executor(), [&](Status s) { done = s; });
    if (!st.ok()) return st;
    run_until([&] { return done.has_value(); });
    return *done;
  }

  Status grow(const std::string& name, int32_t count) {
    std::optional<Status> done;
    Status st =
        registry_->add_partitions(name, count, core().get_executor(), [&](Status s) { done = s; });
    if (!st.ok()) return st;
    run_until([&] { return done.has_value(); });
    return *done;
  }

  // Appends a batch of `records` records to partition `p` of `name`; its
  // base offset.
  Result<int64_t> produce(const std::string& name, int records, size_t p = 0) {
    Topic* topic = registry_->find(name);
    if (topic == nullptr) return Status(ErrorCode::kUnknownTopic, name);
    if (topic->partitions.size() <= p) return Status(ErrorCode::kUnknownPartition, name);
    Partition& partition = *topic->partitions[p];
    const std::vector<std::byte> bytes = batch_of(records);
    std::span<std::byte> rented = BufferPool::global().rent(bytes.size());
    if (rented.empty()) return Status(ErrorCode::kResourceExhausted, "no buffer");
    std::memcpy(rented.data(), bytes.data(), bytes.size());
    struct Answer {
      std::optional<PartitionReply> reply;
    } answer;
    Reply reply;
    reply.executor = tracked_executor(core());
    reply.ctx = &answer;
    reply.fn = [](void* ctx, uint32_t, PartitionReply& r) {
      static_cast<Answer*>(ctx)->reply = std::move(r);
    };
    partition.append(rented.first(bytes.size()), rented.data(), AckAfter::kWrite, std::move(reply));
    run_until([&] { return answer.reply.has_value(); });
    if (!answer.reply->status.ok()) return answer.reply->status;
    return answer.reply->base_offset.value();
  }

  // Names of the entries of DATA_DIR/topics.
  std::set<std::string> topic_dir_entries() const {
    Result<std::vector<std::string>> names = fs_.list_dir(config_.data_dir + "/topics");
    EXPECT_TRUE(names.ok()) << names.status().to_string();
    return names.ok() ? std::set<std::string>(names->begin(), names->end())
                      : std::set<std::string>();
  }

  std::set<std::string> topic_names() const {
    std::set<std::string> out;
    for (const auto& t : registry_->snapshot()) out.insert(t->name);
    return out;
  }

 private:
  asio::io_context& core() { return cores_->context(0); }
  void poll() {
    core().restart();
    core().poll();
  }
  storage::FileSystem& fs_;
  BrokerConfig config_;
  CoreSet::Binding bound_{0};  // the test thread is core 0
  std::unique_ptr<CoreSet> cores_;
  std::unique_ptr<TopicRegistry> registry_;
};

TEST(TopicRegistryDelete, EveryNameLengthStaysDeletedAfterARestartAndCanBeRecreated) {
  TempDir dir;
  Registry registry(dir.path().string());
  ASSERT_TRUE(registry.start().ok());
  for (size_t length = 1; length <= kMaxTopicName; ++length) {
    // "a", "ab", ...: letters only, so no length collides with "." or "..".
    std::string name;
    for (size_t i = 0; i < length; ++i) name.push_back(static_cast<char>('a' + i % 26));
    SCOPED_TRACE("name length " + std::to_string(length));
    ASSERT_TRUE(registry.create(name).ok());
    Result<int64_t> offset = registry.produce(name, 3);
    ASSERT_TRUE(offset.ok()) << offset.status().to_string();
    EXPECT_EQ(*offset, 0);

    Status deleted = registry.remove(name);
    ASSERT_TRUE(deleted.ok()) << deleted.to_string();
    EXPECT_TRUE(registry.topic_names().empty());
    EXPECT_TRUE(registry.topic_dir_entries().empty()) << "files left behind";

    ASSERT_TRUE(registry.restart().ok());
    EXPECT_TRUE(registry.topic_names().empty()) << "the deleted topic came back";

    // The name is free: a new, empty topic.
    ASSERT_TRUE(registry.create(name).ok());
    offset = registry.produce(name, 1);
    ASSERT_TRUE(offset.ok()) << offset.status().to_string();
    EXPECT_EQ(*offset, 0);
    ASSERT_TRUE(registry.remove(name).ok());
  }
}

// A delete cut short by a crash leaves the renamed directory (the deletion
// mark, docs/architecture.md); start-up removes it instead
// of restoring the topic, and so for the marks of older brokers.
TEST(TopicRegistryDelete, ADeleteCutShortIsCompletedAtStart) {
  TempDir dir;
  Registry registry(dir.path().string());
  ASSERT_TRUE(registry.start().ok());
  ASSERT_TRUE(registry.create("cut", 2).ok());
  ASSERT_TRUE(registry.create("old", 1).ok());
  ASSERT_TRUE(registry.produce("cut", 5).ok());
  registry.stop();
  const auto topics = dir.path() / "topics";
  std::filesystem::rename(topics / "cut", topics / "~deleted-00000000000000000001");
  std::filesystem::rename(topics / "old", topics / ".deleted-7-old");

  ASSERT_TRUE(registry.start().ok());
  EXPECT_TRUE(registry.topic_names().empty());
  EXPECT_TRUE(registry.topic_dir_entries().empty());
  EXPECT_TRUE(registry.create("cut", 1).ok());
}

TEST(TopicRegistryDelete, ReservedNamesOfOldDeletionMarksAreRefused) {
  TempDir dir;
  Registry registry(dir.path().string());
  ASSERT_TRUE(registry.start().ok());
  EXPECT_EQ(registry.create(".deleted-1-x").code(), ErrorCode::kInvalidArgument);
}

// Bind mounts (in a private mount namespace) make rename and rmdir fail
// with EBUSY.
bool bind_onto_itself(const std::filesystem::path& p) {
  return ::mount(p.c_str(), p.c_str(), nullptr, MS_BIND, nullptr) == 0;
}

TEST(TopicRegistryDelete, ARenameThatFailsIsAnErrorAndChangesNothing) {
  if (!enter_private_mount_namespace())
    GTEST_SKIP() << "needs CAP_SYS_ADMIN for a private mount namespace";
  TempDir dir;
  Registry registry(dir.path().string());
  ASSERT_TRUE(registry.start().ok());
  ASSERT_TRUE(registry.create("pinned").ok());
  ASSERT_TRUE(registry.produce("pinned", 2).ok());
  const auto topic_dir = dir.path() / "topics" / "pinned";
  ASSERT_TRUE(bind_onto_itself(topic_dir));

  Status st = registry.remove("pinned");
  EXPECT_EQ(st.code(), ErrorCode::kIoError);
  EXPECT_NE(st.message().find("pinned was not deleted"), std::string_view::npos) << st.message();
  EXPECT_EQ(registry.topic_names(), std::set<std::string>{"pinned"});
  Result<int64_t> offset = registry.produce("pinned", 1);
  ASSERT_TRUE(offset.ok()) << offset.status().to_string();
  EXPECT_EQ(*offset, 2);

  ASSERT_EQ(::umount(topic_dir.c_str()), 0);
  EXPECT_TRUE(registry.remove("pinned").ok());
  EXPECT_TRUE(registry.topic_dir_entries().empty());
}

TEST(TopicRegistryDelete, FilesThatCannotBeRemovedAreAnErrorAndGoAtTheNextStart) {
  if (!enter_private_mount_namespace())
    GTEST_SKIP() << "needs CAP_SYS_ADMIN for a private mount namespace";
  TempDir dir;
  Registry registry(dir.path().string());
  ASSERT_TRUE(registry.start().ok());
  ASSERT_TRUE(registry.create("stuck", 2).ok());
  // Partition 1's directory cannot be removed (EBUSY); the rename of the
  // topic's directory itself still works.
  const auto partition_dir = dir.path() / "topics" / "stuck" / "1";
  ASSERT_TRUE(bind_onto_itself(partition_dir));

  Status st = registry.remove("stuck");
  EXPECT_EQ(st.code(), ErrorCode::kIoError);
  EXPECT_NE(st.message().find("stuck was deleted, but removing its files failed"),
            std::string_view::npos)
      << st.message();
  EXPECT_TRUE(registry.topic_names().empty());
  EXPECT_TRUE(registry.create("stuck").ok()) << "the name is free";
  ASSERT_TRUE(registry.remove("stuck").ok());

  // The mount moved with the renamed directory; once it is gone the next
  // start removes what is left.
  std::set<std::string> left = registry.topic_dir_entries();
  ASSERT_EQ(left.size(), 1u);
  const auto mark = dir.path() / "topics" / *left.begin();
  EXPECT_EQ(mark.filename().string().size(), 29u) << mark;
  ASSERT_EQ(::umount((mark / "1").c_str()), 0);
  ASSERT_TRUE(registry.restart().ok());
  EXPECT_TRUE(registry.topic_names().empty());
  EXPECT_TRUE(registry.topic_dir_entries().empty());
}

TEST(TopicRegistryStart, ATopicThatCannotBeOpenedIsOfflineAndTheOthersServe) {
  TempDir dir;
  Registry registry(dir.path().string());
  ASSERT_TRUE(registry.start().ok());
  for (const char* name : {"good", "garbled", "no-meta"})
    ASSERT_TRUE(registry.create(name, 2).ok());
  ASSERT_TRUE(registry.produce("good", 3).ok());
  registry.stop();
  const auto topics = dir.path() / "topics";
  std::ofstream(topics / "garbled" / "topic.meta", std::ios::trunc) << "partitions=1\nwho=2\n";
  std::filesystem::remove(topics / "no-meta" / "topic.meta");  // its partitions stay

  ASSERT_TRUE(registry.start().ok()) << "one bad topic stopped the start";
  EXPECT_EQ(registry.topic_names(), (std::set<std::string>{"garbled", "good", "no-meta"}));
  for (const char* name : {"garbled", "no-meta"}) {
    SCOPED_TRACE(name);
    Topic* topic = registry->find(name);
    ASSERT_NE(topic, nullptr);
    EXPECT_EQ(topic->offline.code(), ErrorCode::kIoError);
    EXPECT_NE(topic->offline.message().find(std::string("topic ") + name + " is offline"),
              std::string_view::npos)
        << topic->offline.message();
    EXPECT_TRUE(topic->partitions.empty());
    EXPECT_EQ(topic->check_partition(0).message(), topic->offline.message());
    EXPECT_EQ(registry.create(name).code(), ErrorCode::kTopicExists);
  }
  EXPECT_NE(registry->find("garbled")->offline.message().find("unknown key or bad value: who=2"),
            std::string_view::npos);
  EXPECT_NE(registry->find("no-meta")->offline.message().find("No such file or directory"),
            std::string_view::npos);
  EXPECT_TRUE(registry->find("good")->offline.ok());
  EXPECT_EQ(registry->find("good")->check_partition(2).code(), ErrorCode::kUnknownPartition);
  Result<int64_t> offset = registry.produce("good", 1);
  ASSERT_TRUE(offset.ok()) << offset.status().to_string();
  EXPECT_EQ(*offset, 3);

  // An offline topic can be deleted, and its name used again.
  ASSERT_TRUE(registry.remove("garbled").ok());
  ASSERT_TRUE(registry.remove("no-meta").ok());
  EXPECT_EQ(registry.topic_dir_entries(), std::set<std::string>{"good"});
  EXPECT_TRUE(registry.create("garbled").ok());
}

TEST(TopicRegistryStart, ACreateCutShortIsRemoved) {
  TempDir dir;
  Registry registry(dir.path().string());
  ASSERT_TRUE(registry.start().ok());
  registry.stop();
  // The directory of a create that stopped before its topic.meta was in
  // place (the create was never answered, no partition exists).
  const auto half = dir.path() / "topics" / "half";
  std::filesystem::create_directories(half);
  std::ofstream(half / "topic.meta.tmp") << "partitions=";

  ASSERT_TRUE(registry.start().ok());
  EXPECT_TRUE(registry.topic_names().empty());
  EXPECT_TRUE(registry.topic_dir_entries().empty());
  EXPECT_TRUE(registry.create("half").ok());
}

// Every failure of the registry's file work, through the in-memory file
// system (the bind-mount tests above need CAP_SYS_ADMIN; these run anywhere).
class TopicRegistryFiles : public ::testing::Test {
 protected:
  storage::testing::MemoryFileSystem fs_;
  Registry registry_{"/data", fs_};
};

TEST_F(TopicRegistryFiles, AFailedTopicMetaWriteLeavesNoHalfTopic) {
  ASSERT_TRUE(registry_.start().ok());
  fs_.faults().fail_sync = true;  // the fsync of topic.meta.tmp
  Status st = registry_.create("half", 3);
  EXPECT_EQ(st.code(), ErrorCode::kIoError) << st.to_string();
  fs_.faults().fail_sync = false;
  fs_.faults().capacity_bytes = fs_.used_bytes() + 4;  // topic.meta does not fit
  st = registry_.create("half", 3);
  EXPECT_EQ(st.code(), ErrorCode::kNotEnoughSpace) << st.to_string();
  fs_.faults().capacity_bytes = UINT64_MAX;
  EXPECT_TRUE(registry_.topic_names().empty());
  EXPECT_TRUE(registry_.topic_dir_entries().empty()) << "a half topic was left";
  EXPECT_FALSE(fs_.exists("/data/topics/half"));

  ASSERT_TRUE(registry_.create("half", 3).ok()) << "the name is free";
  ASSERT_TRUE(registry_.restart().ok());
  EXPECT_EQ(registry_.topic_names(), std::set<std::string>{"half"});
  EXPECT_EQ(registry_->find("half")->partitions.size(), 3u);
}

TEST_F(TopicRegistryFiles, AGrowthThatFailsChangesNothing) {
  ASSERT_TRUE(registry_.start().ok());
  ASSERT_TRUE(registry_.create("grown").ok());
  ASSERT_TRUE(registry_.produce("grown", 2).ok());
  EXPECT_EQ(registry_->check_add_partitions("grown", 1).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(registry_->check_add_partitions("nowhere", 2).code(), ErrorCode::kUnknownTopic);
  EXPECT_TRUE(registry_->check_add_partitions("grown", 3).ok());
  fs_.faults().fail_sync = true;  // a new log's or topic.meta's fsync
  EXPECT_FALSE(registry_.grow("grown", 3).ok());
  fs_.faults().fail_sync = false;
  EXPECT_EQ(registry_->find("grown")->partitions.size(), 1u);
  Result<std::vector<std::string>> entries = fs_.list_dir("/data/topics/grown");
  ASSERT_TRUE(entries.ok());
  EXPECT_EQ(std::set<std::string>(entries->begin(), entries->end()),
            (std::set<std::string>{"0", "topic.meta"}));

  ASSERT_TRUE(registry_.grow("grown", 3).ok());
  EXPECT_EQ(registry_->find("grown")->partitions.size(), 3u);
  Result<int64_t> offset = registry_.produce("grown", 1);
  ASSERT_TRUE(offset.ok()) << offset.status().to_string();
  EXPECT_EQ(*offset, 2) << "the old partitions carry on";
  ASSERT_TRUE(registry_.restart().ok());
  EXPECT_EQ(registry_->find("grown")->partitions.size(), 3u);
  EXPECT_EQ(registry_->find("grown")->partitions[0]->high_watermark().value(), 3);
}

TEST_F(TopicRegistryFiles, AGrowthCutShortLeavesNothingTheNextOneKeeps) {
  ASSERT_TRUE(registry_.start().ok());
  ASSERT_TRUE(registry_.create("grown").ok());
  registry_.stop();
  // A partition directory made before a crash, topic.meta never updated.
  ASSERT_TRUE(fs_.create_dirs("/data/topics/grown/1").ok());
  ASSERT_TRUE(
      storage::write_file_atomically(fs_, "/data/topics/grown/1/stray", "not a segment").ok());
  ASSERT_TRUE(registry_.start().ok());
  EXPECT_EQ(registry_->find("grown")->partitions.size(), 1u);
  ASSERT_TRUE(registry_.grow("grown", 2).ok());
  EXPECT_FALSE(fs_.exists("/data/topics/grown/1/stray"));
  EXPECT_EQ(registry_->find("grown")->partitions[1]->high_watermark().value(), 0);
}

TEST_F(TopicRegistryFiles, ACreatedTopicSurvivesAPowerLoss) {
  ASSERT_TRUE(registry_.start().ok());
  ASSERT_TRUE(registry_.create("kept", 2).ok());
  registry_.stop();
  fs_.simulate_power_loss();
  ASSERT_TRUE(registry_.start().ok());
  EXPECT_EQ(registry_.topic_names(), std::set<std::string>{"kept"});
  EXPECT_TRUE(registry_->find("kept")->offline.ok());
}

// A shutdown closes every partition cleanly, the writes of many at once on
// several threads (close_all): after a power loss right after it, each
// partition still has its clean-shutdown marker and its records, and the
// next start syncs no tail.
TEST_F(TopicRegistryFiles, AShutdownClosesEveryPartitionDurably) {
  ASSERT_TRUE(registry_.start().ok());
  ASSERT_TRUE(registry_.create("many", 40).ok());
  ASSERT_TRUE(registry_.produce("many", 3).ok());
  registry_.stop();
  fs_.simulate_power_loss();
  for (int p = 0; p < 40; ++p) {
    EXPECT_TRUE(fs_.exists("/data/topics/many/" + std::to_string(p) + "/.clean_shutdown")) << p;
  }
  const uint64_t syncs = fs_.sync_count();
  ASSERT_TRUE(registry_.start().ok());
  EXPECT_EQ(fs_.sync_count(), syncs);  // nothing left unsynced to sync
  // The records survived: the next append follows them.
  Result<int64_t> next = registry_.produce("many", 1);
  ASSERT_TRUE(next.ok()) << next.status().to_string();
  EXPECT_EQ(*next, 3);
}

// The `interval` flushes of a core's partitions that fall due together are
// one sync of the file system (interval_flush.h), not one fdatasync per
// partition, and what it synced survives a power loss.
TEST_F(TopicRegistryFiles, IntervalFlushesOfManyPartitionsAreOneGroupSync) {
  registry_.config().flush_interval_ms = 20;
  ASSERT_TRUE(registry_.start().ok());
  ASSERT_TRUE(registry_.create("many", 40).ok());
  const uint64_t syncs = fs_.sync_count();
  const uint64_t groups = fs_.group_sync_count();
  for (size_t p = 0; p < 40; ++p) ASSERT_TRUE(registry_.produce("many", 3, p).ok()) << p;
  Topic* topic = registry_->find("many");
  ASSERT_NE(topic, nullptr);
  for (const auto& partition : topic->partitions) {
    registry_.run_until([&] { return partition->durable_offset() == Offset(3); });
  }
  EXPECT_GT(fs_.group_sync_count(), groups);
  EXPECT_EQ(fs_.sync_count(), syncs) << "a partition synced its log on its own";

  // Power is lost before the clean stop could sync anything.
  fs_.faults().ops_until_crash = 0;
  registry_.stop();
  fs_.simulate_power_loss();
  fs_.faults().ops_until_crash = -1;
  ASSERT_TRUE(registry_.start().ok());
  for (size_t p = 0; p < 40; ++p) {
    Result<int64_t> next = registry_.produce("many", 1, p);
    ASSERT_TRUE(next.ok()) << p << ": " << next.status().to_string();
    EXPECT_EQ(*next, 3) << "partition " << p << " lost records the group sync covered";
  }
}

// A group sync that fails is each file's failure: every partition in it
// learns that its flush failed and stops taking writes (as after a failed
// fdatasync of its own), none counts its records as durable.
TEST_F(TopicRegistryFiles, AFailedGroupSyncFailsTheFlushOfEveryPartitionInIt) {
  registry_.config().flush_interval_ms = 20;
  ASSERT_TRUE(registry_.start().ok());
  ASSERT_TRUE(registry_.create("many", 8).ok());
  fs_.faults().fail_sync = true;
  // Each partition's first write is taken (nothing flushed it yet).
  for (size_t p = 0; p < 8; ++p) ASSERT_TRUE(registry_.produce("many", 2, p).ok()) << p;
  // Each partition's failed flush makes it refuse appends.
  for (size_t p = 0; p < 8; ++p) {
    registry_.run_until([&] { return !registry_.produce("many", 1, p).ok(); });
  }
  fs_.faults().fail_sync = false;
  EXPECT_EQ(fs_.group_sync_count(), 0u);
  Topic* topic = registry_->find("many");
  ASSERT_NE(topic, nullptr);
  for (size_t p = 0; p < 8; ++p) {
    EXPECT_FALSE(registry_.produce("many", 1, p).ok()) << p;
    EXPECT_EQ(topic->partitions[p]->durable_offset(), Offset(0)) << p;
  }
}

TEST_F(TopicRegistryFiles, ARenameThatFailsIsAnErrorAndChangesNothing) {
  ASSERT_TRUE(registry_.start().ok());
  ASSERT_TRUE(registry_.create("pinned").ok());
  ASSERT_TRUE(registry_.produce("pinned", 2).ok());
  fs_.faults().fail_renames = true;
  Status st = registry_.remove("pinned");
  EXPECT_EQ(st.code(), ErrorCode::kIoError);
  EXPECT_EQ(st.message(),
            "topic pinned was not deleted: cannot rename its directory: Input/output error (the "
            "broker's log has the details)");
  EXPECT_EQ(registry_.topic_names(), std::set<std::string>{"pinned"});
  Result<int64_t> offset = registry_.produce("pinned", 1);
  ASSERT_TRUE(offset.ok()) << offset.status().to_string();
  EXPECT_EQ(*offset, 2);
  fs_.faults().fail_renames = false;
  EXPECT_TRUE(registry_.remove("pinned").ok());
  EXPECT_TRUE(registry_.topic_dir_entries().empty());
}

TEST_F(TopicRegistryFiles, ADeleteThatCannotBeMadeDurableIsReported) {
  ASSERT_TRUE(registry_.start().ok());
  ASSERT_TRUE(registry_.create("gone").ok());
  fs_.faults().fail_sync = true;  // the fsync of topics/ after the rename
  Status st = registry_.remove("gone");
  fs_.faults().fail_sync = false;
  EXPECT_EQ(st.code(), ErrorCode::kIoError);
  EXPECT_NE(st.message().find("topic gone was deleted, but the deletion may not survive a crash"),
            std::string_view::npos)
      << st.message();
  EXPECT_TRUE(registry_.topic_names().empty());
  EXPECT_TRUE(registry_.topic_dir_entries().empty());
}

TEST_F(TopicRegistryFiles, FilesThatCannotBeRemovedAreAnErrorAndGoAtTheNextStart) {
  ASSERT_TRUE(registry_.start().ok());
  ASSERT_TRUE(registry_.create("stuck", 2).ok());
  fs_.faults().fail_removes = true;
  Status st = registry_.remove("stuck");
  EXPECT_EQ(st.code(), ErrorCode::kIoError);
  EXPECT_NE(st.message().find("stuck was deleted, but removing its files failed: Device or "
                              "resource busy; the broker removes them at its next start"),
            std::string_view::npos)
      << st.message();
  EXPECT_TRUE(registry_.topic_names().empty());
  fs_.faults().fail_removes = false;
  EXPECT_TRUE(registry_.create("stuck").ok()) << "the name is free";
  std::set<std::string> left = registry_.topic_dir_entries();
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left.count("stuck"), 1u);
  ASSERT_TRUE(registry_.restart().ok());
  EXPECT_EQ(registry_.topic_names(), std::set<std::string>{"stuck"});
  EXPECT_EQ(registry_.topic_dir_entries(), std::set<std::string>{"stuck"});
}

TEST_F(TopicRegistryFiles, AStrayFileAmongTheTopicsIsNoTopic) {
  fs_.set_contents("/data/topics/notes", {std::byte{'x'}});
  ASSERT_TRUE(registry_.start().ok());
  EXPECT_TRUE(registry_.topic_names().empty());
}

}  // namespace
}  // namespace spillway::broker
