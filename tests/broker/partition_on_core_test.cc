// The ownership check (runtime/core_set.h, check_on_core): a Partition
// touched on a thread other than its owner core's aborts, naming the method
// and both cores. The suite builds Release, where the check is compiled out,
// so this binary compiles the Partition and the CoreSet again with
// SPILLWAY_CHECK_CORES=1 (tests/broker/CMakeLists.txt).
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/partition.h"
#include "memory_file_system.h"
#include "runtime/core_set.h"
#include "spillway/common/buffer_pool.h"
#include "test_batches.h"

namespace spillway::broker {
namespace {

static_assert(kCheckCores, "this test needs the checks compiled in (SPILLWAY_CHECK_CORES=1)");

// A partition owned by core 0 of two; no core thread runs, so the test
// thread plays whichever core it binds to.
class OnCoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Death tests fork; the CoreSet has sync threads, so the child starts
    // afresh instead of inheriting a copy of them.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    storage::LogConfig config;
    config.segment_bytes = 4096;
    auto log = storage::PartitionLog::open(fs_, "/d/p", config);
    ASSERT_TRUE(log.ok()) << log.status().to_string();
    partition_ = std::make_shared<Partition>("t", PartitionId(0), std::move(*log), cores_, 0);
  }
  void TearDown() override {
    CoreSet::Binding owner(0);
    partition_->close(Closing::kShutdown);
  }

  // Every method that runs on the owner core, each called once.
  std::vector<std::pair<const char*, std::function<void()>>> owner_methods() {
    return {
        {"append",
         [this] {
           storage::testing::Bytes batch = storage::testing::make_batch(1, 10, 1);
           std::span<std::byte> rented = BufferPool::global().rent(batch.size());
           std::copy(batch.begin(), batch.end(), rented.begin());
           partition_->append(rented.first(batch.size()), rented.data(), AckAfter::kWrite, reply());
         }},
        {"read", [this] { partition_->read(Offset(0), 1024, reply()); }},
        {"add_waiter",
         [this] {
           partition_->add_waiter(FetchWaiter{.context = &cores_.context(1),
                                              .keep_alive = nullptr,
                                              .armed = &armed_,
                                              .generation = 0,
                                              .fetch_offset = Offset(0),
                                              .wake = [](void*, uint64_t) {},
                                              .ctx = nullptr});
         }},
        {"tick", [this] { partition_->tick(); }},
        {"enforce_retention", [this] { partition_->enforce_retention(); }},
        {"wake_waiters", [this] { partition_->wake_waiters(); }},
        {"close", [this] { partition_->close(Closing::kShutdown); }},
    };
  }

  Reply reply() {
    Reply r;
    r.executor = tracked_executor(cores_.context(1));
    r.fn = [](void*, uint32_t, PartitionReply&) {};
    return r;
  }

  storage::testing::MemoryFileSystem fs_;
  CoreSet cores_{2};
  std::atomic<uint64_t> armed_{0};
  std::shared_ptr<Partition> partition_;
};

TEST_F(OnCoreTest, EveryOwnerMethodAbortsOnAnotherCore) {
  for (auto& [name, call] : owner_methods()) {
    SCOPED_TRACE(name);
    EXPECT_DEATH(
        {
          CoreSet::Binding wrong(1);
          call();
        },
        std::string("Partition::") + name + ".*owned by core 0, called on core 1");
  }
}

TEST_F(OnCoreTest, EveryOwnerMethodAbortsOnAThreadThatIsNoCore) {
  ASSERT_EQ(CoreSet::current(), CoreSet::kNoCore);
  for (auto& [name, call] : owner_methods()) {
    SCOPED_TRACE(name);
    EXPECT_DEATH(call(), std::string("Partition::") + name +
                             ".*owned by core 0, called on a thread that is no core");
  }
}

TEST_F(OnCoreTest, TheOwnerCoreMayCallEveryMethod) {
  CoreSet::Binding owner(0);
  for (auto& [name, call] : owner_methods()) {
    SCOPED_TRACE(name);
    call();
  }
  // The accessors any thread may use are not checked.
  CoreSet::Binding other(1);
  EXPECT_EQ(partition_->high_watermark().value(), 1);
  EXPECT_FALSE(partition_->corrupt());
}

TEST(CoreSetOnCore, TheBindingIsRestoredWhenItEnds) {
  EXPECT_EQ(CoreSet::current(), CoreSet::kNoCore);
  {
    CoreSet::Binding outer(3);
    {
      CoreSet::Binding inner(1);
      EXPECT_EQ(CoreSet::current(), 1u);
    }
    EXPECT_EQ(CoreSet::current(), 3u);
  }
  EXPECT_EQ(CoreSet::current(), CoreSet::kNoCore);
}

}  // namespace
}  // namespace spillway::broker
