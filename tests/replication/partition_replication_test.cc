// Partition's replication methods on a real owner core (partition_driver.h):
// roles, acks=all against the ISR, replica reads and their fencing, reads
// capped at the high watermark, the follower's verbatim appends,
// truncation and epoch-end answers.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <mutex>

#include "log_testing.h"
#include "memory_file_system.h"
#include "partition_driver.h"
#include "spillway/common/endian.h"
#include "test_batches.h"

namespace spillway::broker {
namespace {

using replication::FollowerRole;
using replication::LeaderRole;
using replication::ReplicaReadRequest;
using storage::testing::Bytes;
using storage::testing::make_batch;
using storage::testing::MemoryFileSystem;
using testing::PartitionDriver;

constexpr char kDir[] = "/d/t/0";
constexpr BrokerId kSelf = 1;

std::unique_ptr<PartitionDriver> open(
    MemoryFileSystem& fs, storage::FlushPolicy policy = storage::FlushPolicy::kInterval) {
  storage::LogConfig c = storage::testing::small_log_config(policy);
  if (policy == storage::FlushPolicy::kInterval) {
    c.flush_interval_ms = INT64_MAX / 2;
    c.flush_interval_bytes = UINT64_MAX;
  }
  auto driver = PartitionDriver::open(fs, kDir, c);
  EXPECT_TRUE(driver.ok()) << driver.status().to_string();
  return driver.ok() ? std::move(*driver) : nullptr;
}

LeaderRole leader_role(int32_t epoch, std::vector<BrokerId> isr, int32_t min_insync = 1) {
  LeaderRole role;
  role.state.leader = kSelf;
  role.state.leader_epoch = epoch;
  role.state.isr = std::move(isr);
  role.state.mod_revision = 10;
  role.replicas = {1, 2, 3};
  role.registered = role.replicas;
  role.min_insync_replicas = min_insync;
  return role;
}

void become_leader(PartitionDriver& d, LeaderRole role) {
  d.on_owner([&](Partition& p, storage::PartitionLog&) {
    p.become_leader(role);
    return 0;
  });
}
void become_follower(PartitionDriver& d, int32_t epoch) {
  d.on_owner([&](Partition& p, storage::PartitionLog&) {
    p.become_follower(FollowerRole{.leader = 2, .leader_epoch = LeaderEpoch(epoch)});
    return 0;
  });
}

PartitionReply replica_read(PartitionDriver& d, BrokerId replica, int64_t fetch_offset,
                            int32_t epoch, int64_t broker_epoch = 1) {
  ReplicaReadRequest request{.replica = replica,
                             .broker_epoch = broker_epoch,
                             .current_leader_epoch = LeaderEpoch(epoch),
                             .fetch_offset = Offset(fetch_offset),
                             .max_bytes = 1 << 20};
  return d.call(
      [request](Partition& p, Reply reply) { p.replica_read(request, std::move(reply)); });
}

PartitionReply read(PartitionDriver& d, int64_t offset) {
  return d.call(
      [offset](Partition& p, Reply reply) { p.read(Offset(offset), 1 << 20, std::move(reply)); });
}

// Whether the owner has answered `f` yet: a round trip through the owner
// core first, so a reply it posted before is on its way.
bool answered(PartitionDriver& d, std::future<PartitionReply>& f) {
  d.on_owner([](Partition&, storage::PartitionLog&) { return 0; });
  return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

TEST(PartitionReplication, StandaloneTreatsAcksAllAsDurable) {
  MemoryFileSystem fs;
  auto d = open(fs);
  PartitionReply r = d->append(make_batch(2, 8, 1), AckAfter::kIsr);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(d->partition().role(), replication::Role::kStandalone);
  EXPECT_GT(
      d->on_owner([](Partition&, storage::PartitionLog& log) { return log.durable_offset(); }),
      r.last_offset);
  EXPECT_FALSE(fs.exists(std::string(kDir) + "/" + storage::LeaderEpochCache::kFileName));
}

TEST(PartitionReplication, AcksAllIsAnsweredWhenTheIsrHasTheBatch) {
  MemoryFileSystem fs;
  auto d = open(fs);
  become_leader(*d, leader_role(4, {1, 2}));
  Bytes batch = make_batch(3, 8, 1);
  std::future<PartitionReply> ack = d->append_async(batch, AckAfter::kIsr);
  EXPECT_FALSE(answered(*d, ack));
  // The follower fetches the batch: the HW moves only once it fetches
  // past it.
  PartitionReply fetched = replica_read(*d, 2, 0, 4);
  ASSERT_TRUE(fetched.status.ok()) << fetched.status.to_string();
  EXPECT_EQ(fetched.slice.next_offset, Offset(3));
  EXPECT_EQ(fetched.high_watermark, Offset(0));
  EXPECT_EQ(fetched.leader_epoch, LeaderEpoch(4));
  // The leader stamped its epoch on the batch.
  Bytes stored(fetched.slice.length);
  ASSERT_TRUE(storage::read_slice(fetched.slice, stored).ok());
  EXPECT_EQ(load_be<int32_t>(stored.data() + batch::kLeaderEpochPos), 4);
  EXPECT_FALSE(answered(*d, ack));
  // Consumers see nothing yet.
  PartitionReply client = read(*d, 0);
  ASSERT_TRUE(client.status.ok());
  EXPECT_TRUE(client.slice.empty());
  EXPECT_EQ(client.high_watermark, Offset(0));
  PartitionReply caught_up = replica_read(*d, 2, 3, 4);
  ASSERT_TRUE(caught_up.status.ok());
  EXPECT_EQ(caught_up.high_watermark, Offset(3));
  PartitionReply r = ack.get();
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.last_offset, Offset(2));
  EXPECT_EQ(d->partition().high_watermark(), Offset(3));
  client = read(*d, 0);
  EXPECT_EQ(client.slice.next_offset, Offset(3));
}

TEST(PartitionReplication, ClientReadsAreCutAtTheHighWatermark) {
  MemoryFileSystem fs;
  auto d = open(fs);
  become_leader(*d, leader_role(1, {1, 2}));
  ASSERT_TRUE(d->append(make_batch(2, 8, 1), AckAfter::kWrite).status.ok());
  ASSERT_TRUE(d->append(make_batch(2, 8, 2), AckAfter::kWrite).status.ok());
  ASSERT_TRUE(replica_read(*d, 2, 2, 1).status.ok());  // has the first batch only
  PartitionReply client = read(*d, 0);
  ASSERT_TRUE(client.status.ok());
  EXPECT_EQ(client.high_watermark, Offset(2));
  EXPECT_EQ(client.slice.first_offset, Offset(0));
  EXPECT_EQ(client.slice.next_offset, Offset(2));
  client = read(*d, 2);
  ASSERT_TRUE(client.status.ok());
  EXPECT_TRUE(client.slice.empty());
}

TEST(PartitionReplication, ReplicaReadsAreFenced) {
  MemoryFileSystem fs;
  auto d = open(fs);
  become_leader(*d, leader_role(5, {1, 2, 3}));
  EXPECT_EQ(replica_read(*d, 2, 0, 4).status.code(), ErrorCode::kFencedLeaderEpoch);
  EXPECT_EQ(replica_read(*d, 2, 0, 6).status.code(), ErrorCode::kUnknownLeaderEpoch);
  EXPECT_TRUE(replica_read(*d, 2, 0, 5, /*broker_epoch=*/7).status.ok());
  EXPECT_EQ(replica_read(*d, 2, 0, 5, /*broker_epoch=*/6).status.code(),
            ErrorCode::kStaleBrokerEpoch);
  EXPECT_TRUE(replica_read(*d, 2, 0, 5, /*broker_epoch=*/8).status.ok());
  EXPECT_EQ(replica_read(*d, 9, 0, 5).status.code(), ErrorCode::kNotLeaderOrFollower);
  EXPECT_EQ(replica_read(*d, 3, 10, 5).status.code(), ErrorCode::kOffsetOutOfRange);
}

TEST(PartitionReplication, AcksAllRefusedBelowMinInsync) {
  MemoryFileSystem fs;
  auto d = open(fs);
  become_leader(*d, leader_role(1, {1}, /*min_insync=*/2));
  PartitionReply r = d->append(make_batch(1, 8, 1), AckAfter::kIsr);
  EXPECT_EQ(r.status.code(), ErrorCode::kNotEnoughReplicas);
  EXPECT_EQ(
      d->on_owner([](Partition&, storage::PartitionLog& log) { return log.log_end_offset(); }),
      Offset(0));
  // acks=1 is still taken.
  EXPECT_TRUE(d->append(make_batch(1, 8, 2), AckAfter::kWrite).status.ok());
}

TEST(PartitionReplication, AcksAllTimesOutAfterAppend) {
  MemoryFileSystem fs;
  auto d = open(fs);
  become_leader(*d, leader_role(1, {1, 2}));
  std::future<PartitionReply> ack =
      d->append_async(make_batch(1, 8, 1), AckAfter::kIsr, /*timeout_ms=*/1);
  // tick() answers it once its millisecond is over.
  while (!answered(*d, ack)) {
    d->on_owner([](Partition& p, storage::PartitionLog&) {
      p.tick();
      return 0;
    });
  }
  EXPECT_EQ(ack.get().status.code(), ErrorCode::kNotEnoughReplicasAfterAppend);
}

TEST(PartitionReplication, LosingLeadershipAnswersWaitersAndRefusesClients) {
  MemoryFileSystem fs;
  auto d = open(fs);
  become_leader(*d, leader_role(1, {1, 2}));
  std::future<PartitionReply> ack = d->append_async(make_batch(1, 8, 1), AckAfter::kIsr);
  EXPECT_FALSE(answered(*d, ack));
  become_follower(*d, 2);
  EXPECT_EQ(ack.get().status.code(), ErrorCode::kNotLeaderOrFollower);
  EXPECT_EQ(d->append(make_batch(1, 8, 2), AckAfter::kWrite).status.code(),
            ErrorCode::kNotLeaderOrFollower);
  EXPECT_EQ(read(*d, 0).status.code(), ErrorCode::kNotLeaderOrFollower);
  EXPECT_EQ(replica_read(*d, 2, 0, 2).status.code(), ErrorCode::kNotLeaderOrFollower);
  d->on_owner([](Partition& p, storage::PartitionLog&) {
    p.become_none();
    return 0;
  });
  EXPECT_EQ(d->append(make_batch(1, 8, 3), AckAfter::kWrite).status.code(),
            ErrorCode::kNotLeaderOrFollower);
}

// A stored batch as a leader wrote it: base offset and epoch stamped.
Bytes stored_batch(int64_t base, int32_t epoch, int32_t records, uint64_t seed) {
  Bytes b = make_batch(records, 8, seed);
  store_be<int64_t>(b.data() + batch::kBaseOffsetPos, base);
  store_be<int32_t>(b.data() + batch::kLeaderEpochPos, epoch);
  return b;
}

PartitionReply append_replicated(PartitionDriver& d, Bytes bytes, int64_t leader_hw) {
  std::span<std::byte> rented = BufferPool::global().rent(bytes.size());
  std::copy(bytes.begin(), bytes.end(), rented.begin());
  return d.call([rented, size = bytes.size(), leader_hw](Partition& p, Reply reply) {
    p.append_replicated(rented.first(size), rented.data(), Offset(leader_hw), std::move(reply));
  });
}

PartitionReply epoch_end(PartitionDriver& d, int32_t requested, int32_t current) {
  return d.call([=](Partition& p, Reply reply) {
    p.epoch_end(LeaderEpoch(requested), LeaderEpoch(current), std::move(reply));
  });
}

TEST(PartitionReplication, FollowerAppendsTruncatesAndAnswersEpochEnds) {
  MemoryFileSystem fs;
  auto d = open(fs);
  become_follower(*d, 3);
  Bytes batches = stored_batch(0, 1, 2, 1);
  Bytes second = stored_batch(2, 3, 3, 2);
  batches.insert(batches.end(), second.begin(), second.end());
  PartitionReply r = append_replicated(*d, batches, /*leader_hw=*/2);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.last_offset, Offset(4));
  EXPECT_EQ(r.high_watermark, Offset(2));
  EXPECT_EQ(d->partition().log_end_offset(), Offset(5));
  EXPECT_EQ(d->partition().high_watermark(), Offset(2));
  // Epochs 1 from 0, 3 from 2.
  r = epoch_end(*d, 2, 3);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.leader_epoch, LeaderEpoch(1));
  EXPECT_EQ(r.last_offset, Offset(2));
  r = epoch_end(*d, 3, -1);
  EXPECT_EQ(r.leader_epoch, LeaderEpoch(3));
  EXPECT_EQ(r.last_offset, Offset(5));
  EXPECT_EQ(epoch_end(*d, 3, 2).status.code(), ErrorCode::kFencedLeaderEpoch);
  EXPECT_EQ(epoch_end(*d, 3, 4).status.code(), ErrorCode::kUnknownLeaderEpoch);
  // Truncation: the epoch-3 batch goes, and epoch 3 with it.
  r = d->call([](Partition& p, Reply reply) { p.truncate_to(Offset(2), std::move(reply)); });
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.last_offset, Offset(1));
  EXPECT_EQ(d->partition().log_end_offset(), Offset(2));
  r = epoch_end(*d, 1, 3);
  EXPECT_EQ(r.leader_epoch, LeaderEpoch(1));
  EXPECT_EQ(r.last_offset, Offset(2));
  // Newer than any epoch it has: a follower answers its latest epoch's end
  // (the fetcher asks itself this way; Kafka's UNDEFINED here made it
  // throw its log away). A leader always has its own epoch, so one is
  // never asked above it.
  r = epoch_end(*d, 3, 3);
  EXPECT_EQ(r.leader_epoch, LeaderEpoch(1));
  EXPECT_EQ(r.last_offset, Offset(2));
  // A batch that does not start at the log end is refused.
  EXPECT_FALSE(append_replicated(*d, stored_batch(7, 3, 1, 3), 2).status.ok());
  // Becoming leader: the new epoch starts at the log end.
  become_leader(*d, leader_role(5, {1}));
  r = epoch_end(*d, 5, 5);
  EXPECT_EQ(r.leader_epoch, LeaderEpoch(5));
  EXPECT_EQ(r.last_offset, Offset(2));
  r = epoch_end(*d, 4, 5);
  EXPECT_EQ(r.leader_epoch, LeaderEpoch(1));
  EXPECT_EQ(r.last_offset, Offset(2));
}

TEST(PartitionReplication, LeaderProposesIsrChangesThroughTheWriter) {
  MemoryFileSystem fs;
  auto d = open(fs);
  std::mutex mu;
  std::vector<std::vector<BrokerId>> proposals;
  d->on_owner([&](Partition& p, storage::PartitionLog&) {
    p.set_isr_writer([&](const cluster::PartitionKey& key, const cluster::PartitionState& expected,
                         std::vector<BrokerId> isr) {
      EXPECT_EQ(key.topic, "t");
      EXPECT_EQ(expected.mod_revision, 10);
      std::lock_guard lock(mu);
      proposals.push_back(std::move(isr));
    });
    return 0;
  });
  LeaderRole role = leader_role(2, {1});
  role.replicas = {1, 2};
  role.registered = role.replicas;
  become_leader(*d, role);
  PartitionReply first = d->append(make_batch(1, 8, 1), AckAfter::kIsr);  // ISR {1}
  ASSERT_TRUE(first.status.ok()) << first.status.to_string();
  // Broker 2 catches up: the leader proposes adding it.
  ASSERT_TRUE(replica_read(*d, 2, 1, 2).status.ok());
  {
    std::lock_guard lock(mu);
    ASSERT_EQ(proposals.size(), 1u);
    EXPECT_EQ(proposals[0], (std::vector<BrokerId>{1, 2}));
  }
  // Stored: acks=all now waits for 2 as well.
  cluster::PartitionState stored = role.state;
  stored.isr = {1, 2};
  stored.mod_revision = 11;
  d->on_owner([&](Partition& p, storage::PartitionLog&) {
    p.isr_changed(stored);
    return 0;
  });
  std::future<PartitionReply> ack = d->append_async(make_batch(1, 8, 2), AckAfter::kIsr);
  EXPECT_FALSE(answered(*d, ack));
  ASSERT_TRUE(replica_read(*d, 2, 2, 2).status.ok());
  EXPECT_TRUE(ack.get().status.ok());
}

// A stored state older than the one the leader has (a snapshot built
// before the leader's own ISR write was answered) must not replace it:
// taking it shrank the leader's ISR back and made every later
// compare-and-swap compare a revision etcd no longer had, so no ISR change
// of the partition could be stored again (seen in the network-partition
// fault run).
TEST(PartitionReplication, AnOlderStoredStateIsIgnored) {
  MemoryFileSystem fs;
  auto d = open(fs);
  LeaderRole role = leader_role(2, {1});
  role.replicas = {1, 2};
  role.registered = role.replicas;
  become_leader(*d, role);
  cluster::PartitionState newer = role.state;
  newer.isr = {1, 2};
  newer.mod_revision = 11;
  cluster::PartitionState older = role.state;  // ISR {1}, revision 10
  d->on_owner([&](Partition& p, storage::PartitionLog&) {
    p.isr_changed(newer);
    p.isr_changed(older);
    return 0;
  });
  // Still ISR {1, 2}: acks=all waits for broker 2.
  std::future<PartitionReply> ack = d->append_async(make_batch(1, 8, 1), AckAfter::kIsr);
  EXPECT_FALSE(answered(*d, ack));
  ASSERT_TRUE(replica_read(*d, 2, 1, 2).status.ok());
  EXPECT_TRUE(ack.get().status.ok());
}

// The fetcher's first step after an epoch change asks the follower itself
// where its latest epoch ends, with an epoch above every epoch. Kafka's
// endOffsetFor answers UNDEFINED there, and the follower then threw its
// whole log away (seen in a three-broker run: every follower truncated to
// offset 0 after each leader change, leaving ISR members with empty logs).
TEST(PartitionReplication, FollowerAskedAboveItsLatestEpochAnswersTheLatestEpochsEnd) {
  MemoryFileSystem fs;
  auto d = open(fs);
  become_follower(*d, 3);
  Bytes batches = stored_batch(0, 1, 2, 1);
  Bytes second = stored_batch(2, 3, 3, 2);
  batches.insert(batches.end(), second.begin(), second.end());
  ASSERT_TRUE(append_replicated(*d, batches, /*leader_hw=*/2).status.ok());
  PartitionReply r = epoch_end(*d, INT32_MAX, -1);
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.leader_epoch, LeaderEpoch(3));
  EXPECT_EQ(r.last_offset, Offset(5));
}

}  // namespace
}  // namespace spillway::broker
