// The broker fences native commits (docs/consumer-groups.md, "Committed
// offsets"), seen through the client library and the CLI against a broker
// in the test process (EmbeddedBroker; the CLI still runs as a process of
// its own): while a subscribed Consumer is a member, simple commits (an
// assign()ed consumer's, `spillway group reset-offsets`', one sent on the
// wire without Admin's look at the group first) are refused; a member
// dropped from the group has its late commit refused, hears the loss as a
// revoke, and commits again once it has rejoined.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "spillway/admin.h"
#include "spillway/consumer.h"
#include "spillway/testing/embedded_broker.h"

namespace spillway::testing {
namespace {

using std::chrono::milliseconds;

constexpr char kTopic[] = "events";
constexpr char kGroup[] = "workers";

// Remembers what was revoked, then does what the default does (commit).
class RecordingListener : public RebalanceListener {
 public:
  void on_partitions_revoked(Consumer& consumer,
                             std::span<const TopicPartition> partitions) override {
    revoked.insert(revoked.end(), partitions.begin(), partitions.end());
    RebalanceListener::on_partitions_revoked(consumer, partitions);
  }
  std::vector<TopicPartition> revoked;
};

class CommitFencing : public ::testing::Test {
 protected:
  void SetUp() override {
    auto broker = EmbeddedBroker::start({.group_min_session_timeout = milliseconds(100)});
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(broker).value();
    auto admin = Admin::connect(broker_->native_address());
    ASSERT_TRUE(admin.ok()) << admin.status().to_string();
    admin_ = std::make_unique<Admin>(std::move(admin).value());
    TopicOptions t;
    t.partitions = 2;
    ASSERT_TRUE(admin_->create_topic(kTopic, t).ok());
  }

  // A subscribed consumer; the first poll joins (the broker waits for no
  // one before a first rebalance).
  std::unique_ptr<Consumer> member(std::shared_ptr<RebalanceListener> listener = nullptr) {
    ConsumerOptions o;
    o.bootstrap = broker_->native_address();
    o.group_id = kGroup;
    o.session_timeout = milliseconds(10'000);
    o.heartbeat_interval = milliseconds(300);
    o.rebalance_timeout = milliseconds(1'000);
    o.fetch_max_wait = milliseconds(50);
    auto c = Consumer::create(o);
    EXPECT_TRUE(c.ok()) << c.status().to_string();
    if (!c.ok()) return nullptr;
    EXPECT_TRUE((*c)->subscribe({kTopic}, std::move(listener)).ok());
    return std::move(c).value();
  }

  // Polls at least once, then until `consumer` holds `count` partitions
  // (the bound only turns a hang into a failure).
  static void poll_until_holding(Consumer& consumer, size_t count) {
    for (int i = 0; i < 100; ++i) {
      Result<ConsumerRecords> r = consumer.poll(milliseconds(100));
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      if (consumer.assignment().size() == count) break;
    }
    ASSERT_EQ(consumer.assignment().size(), count);
  }

  int64_t committed(int32_t partition) {
    WireClient client(broker_->native_port());
    return client.committed(kGroup, kTopic, partition);
  }

  std::unique_ptr<EmbeddedBroker> broker_;
  std::unique_ptr<Admin> admin_;
};

TEST_F(CommitFencing, SimpleCommitsAndResetsAreRefusedWhileASubscribedMemberIsIn) {
  std::unique_ptr<Consumer> m = member();
  ASSERT_NE(m, nullptr);
  ASSERT_NO_FATAL_FAILURE(poll_until_holding(*m, 2));
  const TopicPartitionOffset first[] = {{kTopic, 0, 1}};
  ASSERT_TRUE(m->commit(first).ok());  // the member's commit, in its generation
  EXPECT_EQ(committed(0), 1);

  // Admin's look at the group names the member ...
  OffsetResetSpec earliest;
  earliest.kind = OffsetResetSpec::Kind::kEarliest;
  EXPECT_EQ(admin_->reset_offsets(kGroup, kTopic, earliest).status().code(),
            ErrorCode::kGroupNotEmpty);
  Result<ProcessExit> cli =
      run_process(cli_binary(), {"group", "reset-offsets", kGroup, "--topic", kTopic, "--to-offset",
                                 "0", "--broker", broker_->native_address()});
  ASSERT_TRUE(cli.ok());
  EXPECT_EQ(cli->exit_code, 1) << cli->output;
  // ... and without that look (the commit reset-offsets sends, straight on
  // the wire) the broker refuses it itself.
  WireClient wire(broker_->native_port());
  CommitResult simple = wire.commit(kGroup, kTopic, 0, 0);
  EXPECT_EQ(simple.code, ErrorCode::kUnknownMember) << simple.message;
  // So does an assign()ed consumer's commit to the same group.
  ConsumerOptions o;
  o.bootstrap = broker_->native_address();
  o.group_id = kGroup;
  auto manual = Consumer::create(o);
  ASSERT_TRUE(manual.ok());
  const TopicPartitionOffset zero[] = {{kTopic, 0, 0}};
  EXPECT_EQ((*manual)->commit(zero).code(), ErrorCode::kUnknownMember);
  EXPECT_EQ(committed(0), 1);

  // Once the member left, the group's offsets may be reset.
  ASSERT_TRUE(m->close().ok());
  Result<std::vector<OffsetResetResult>> reset = admin_->reset_offsets(kGroup, kTopic, earliest);
  ASSERT_TRUE(reset.ok()) << reset.status().to_string();
  EXPECT_EQ(committed(0), 0);
}

TEST_F(CommitFencing, ADroppedMembersLateCommitIsRefusedAndItRejoins) {
  auto listener = std::make_shared<RecordingListener>();
  std::unique_ptr<Consumer> a = member(listener);
  ASSERT_NE(a, nullptr);
  ASSERT_NO_FATAL_FAILURE(poll_until_holding(*a, 2));
  const TopicPartitionOffset one[] = {{kTopic, 0, 1}};
  ASSERT_TRUE(a->commit(one).ok());

  // A stops polling; B's arrival rebalances, A does not rejoin within the
  // rebalance timeout and is dropped; B takes everything.
  std::unique_ptr<Consumer> b = member();
  ASSERT_NE(b, nullptr);
  ASSERT_NO_FATAL_FAILURE(poll_until_holding(*b, 2));

  // A still believes it holds both partitions; its commit is refused.
  const TopicPartitionOffset late[] = {{kTopic, 0, 5}};
  const ErrorCode refused = a->commit(late).code();
  EXPECT_TRUE(refused == ErrorCode::kUnknownMember || refused == ErrorCode::kIllegalGeneration ||
              refused == ErrorCode::kRebalanceInProgress)
      << static_cast<int>(refused);
  EXPECT_EQ(committed(0), 1);

  // Its next poll hears the loss as a revoke and joins afresh (B, not
  // polling now, is dropped in turn).
  listener->revoked.clear();
  ASSERT_NO_FATAL_FAILURE(poll_until_holding(*a, 2));
  std::sort(listener->revoked.begin(), listener->revoked.end());
  EXPECT_EQ(listener->revoked, (std::vector<TopicPartition>{{kTopic, 0}, {kTopic, 1}}));
  EXPECT_EQ(committed(0), 1);  // the revoke's commit was refused too
  const TopicPartitionOffset six[] = {{kTopic, 0, 6}};
  EXPECT_TRUE(a->commit(six).ok());
  EXPECT_EQ(committed(0), 6);
}

}  // namespace
}  // namespace spillway::testing
