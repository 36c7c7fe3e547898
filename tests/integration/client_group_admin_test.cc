// Consumer group administration against the real broker: the `spillway
// group` CLI and spillway::Admin (list, describe with lag, reset-offsets in
// each mode, delete), the refusals while the group has a member (held
// through the Kafka listener's JoinGroup/SyncGroup), and the group metrics
// on /metrics.
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "kafka_wire_client.h"
#include "spillway/admin.h"
#include "spillway/common/kafka/consumer_protocol.h"
#include "spillway/common/kafka/join_group.h"
#include "spillway/common/kafka/sync_group.h"
#include "spillway/common/messages/group_admin.h"
#include "spillway/consumer.h"

namespace spillway::testing {
namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class GroupAdmin : public ::testing::Test {
 protected:
  void SetUp() override {
    BrokerProcess::Options options;
    options.args = {"--metrics-listen", "127.0.0.1:0"};
    auto broker = BrokerProcess::start(options);
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(broker).value();
    auto admin = Admin::connect(broker_->address());
    ASSERT_TRUE(admin.ok()) << admin.status().to_string();
    admin_ = std::make_unique<Admin>(std::move(admin).value());
  }

  ProcessExit cli(std::vector<std::string> args) {
    args.push_back("--broker");
    args.push_back(broker_->address());
    Result<ProcessExit> r = run_process(cli_binary(), args);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? *r : ProcessExit{};
  }

  // Topic `name` with `counts[p]` records in partition p, produced in one
  // batch per partition by make_batch (record i has time
  // 1,700,000,000,000 + i ms).
  void make_topic(const std::string& name, const std::vector<int>& counts) {
    TopicOptions t;
    t.partitions = static_cast<int32_t>(counts.size());
    ASSERT_TRUE(admin_->create_topic(name, t).ok());
    WireClient client(broker_->port());
    for (size_t p = 0; p < counts.size(); ++p) {
      std::vector<std::pair<std::optional<std::string>, std::string>> records;
      for (int i = 0; i < counts[p]; ++i)
        records.emplace_back(std::nullopt, "v" + std::to_string(i));
      if (records.empty()) continue;
      auto result = client.produce(name, static_cast<int32_t>(p), make_batch(records));
      ASSERT_EQ(result.size(), 1u);
      ASSERT_EQ(result[0].code, ErrorCode::kOk);
    }
  }

  // A commit through the native client's Consumer, as an application makes.
  void commit(const std::string& group, std::vector<TopicPartitionOffset> offsets) {
    ConsumerOptions options;
    options.bootstrap = broker_->address();
    options.group_id = group;
    auto consumer = Consumer::create(options);
    ASSERT_TRUE(consumer.ok()) << consumer.status().to_string();
    Status st = (*consumer)->commit(offsets);
    ASSERT_TRUE(st.ok()) << st.to_string();
  }

  std::string metrics() { return scrape(metrics_port(*broker_)); }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<Admin> admin_;
};

TEST_F(GroupAdmin, ListAndDescribeShowCommittedOffsetsAndLag) {
  make_topic("orders", {5, 3});
  commit("billing", {{"orders", 0, 2}, {"orders", 1, 3}});

  ProcessExit r = cli({"group", "list"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "GROUP    STATE  PROTOCOL-TYPE\nbilling  Empty  -\n")) << r.output;

  r = cli({"group", "describe", "billing"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "group billing: state Empty, protocol -, generation")) << r.output;
  EXPECT_TRUE(contains(r.output, "0 members")) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "TOPIC   PARTITION  MEMBER  CLIENT  COMMITTED  LOG-END  LAG\n"
                       "orders  0          -       -       2          5        3\n"
                       "orders  1          -       -       3          3        0\n"))
      << r.output;

  Result<GroupDescription> d = admin_->describe_group("billing");
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->state, "Empty");
  EXPECT_TRUE(d->members.empty());
  ASSERT_EQ(d->partitions.size(), 2u);
  EXPECT_EQ(d->partitions[0].committed, 2);
  EXPECT_EQ(d->partitions[0].log_end_offset, 5);
  EXPECT_EQ(d->partitions[0].lag, 3);
  EXPECT_EQ(d->partitions[1].lag, 0);

  const std::string page = metrics();
  EXPECT_EQ(metric(page, "spillway_group_lag{group=\"billing\",topic=\"orders\",partition=\"0\"}"),
            3)
      << page;
  EXPECT_EQ(metric(page, "spillway_group_lag{group=\"billing\",topic=\"orders\",partition=\"1\"}"),
            0);
  EXPECT_TRUE(contains(page, "# TYPE spillway_group_members gauge")) << page;
  EXPECT_TRUE(contains(page, "# TYPE spillway_group_rebalances_total counter")) << page;

  // Group names are any bytes: label values are escaped.
  commit("we\"ird\\", {{"orders", 0, 4}});
  const std::string escaped = metrics();
  EXPECT_EQ(metric(escaped,
                   "spillway_group_lag{group=\"we\\\"ird\\\\\",topic=\"orders\",partition=\"0\"}"),
            1)
      << escaped;

  r = cli({"group", "describe", "nobody"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "spillway group describe: ")) << r.output;
  EXPECT_TRUE(contains(r.output, "nobody")) << r.output;
}

TEST_F(GroupAdmin, ResetOffsetsOfAnEmptyGroupInEveryMode) {
  make_topic("events", {4, 2});
  commit("g", {{"events", 0, 1}});

  ProcessExit r = cli({"group", "reset-offsets", "g", "--topic", "events", "--to-latest"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "group g, topic events: offsets reset\n"
                       "  partition 0: 1 -> 4\n"
                       "  partition 1: - -> 2\n"))
      << r.output;

  r = cli({"group", "reset-offsets", "g", "--topic", "events", "--to-earliest"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "  partition 0: 4 -> 0\n  partition 1: 2 -> 0\n")) << r.output;

  // Beyond a partition's end: its end, as Kafka's tool does.
  r = cli({"group", "reset-offsets", "g", "--topic", "events", "--to-offset", "3"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "  partition 0: 0 -> 3\n  partition 1: 0 -> 2\n")) << r.output;

  Result<GroupDescription> d = admin_->describe_group("g");
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  ASSERT_EQ(d->partitions.size(), 2u);
  EXPECT_EQ(d->partitions[0].committed, 3);
  EXPECT_EQ(d->partitions[0].lag, 1);
  EXPECT_EQ(d->partitions[1].committed, 2);

  // By time: the first record at or after it. make_topic's batches are
  // made by make_batch: record i of a partition has time
  // 1,700,000,000,000 + i ms (2023-11-14T22:13:20.000Z + i ms).
  r = cli({"group", "reset-offsets", "g", "--topic", "events", "--to-datetime", "1700000000002"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "  partition 0: 3 -> 2\n  partition 1: 2 -> 2\n")) << r.output;
  r = cli({"group", "reset-offsets", "g", "--topic", "events", "--to-datetime",
           "2023-11-14T22:13:20.001Z"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "  partition 0: 2 -> 1\n  partition 1: 2 -> 1\n")) << r.output;
  r = cli({"group", "reset-offsets", "g", "--topic", "events", "--to-datetime",
           "2023-11-15T00:13:20.003+02:00"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "  partition 0: 1 -> 3\n  partition 1: 1 -> 2\n")) << r.output;
  r = cli({"group", "reset-offsets", "g", "--topic", "events", "--to-datetime",
           "1970-01-01T00:00:00Z"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "  partition 0: 3 -> 0\n  partition 1: 2 -> 0\n")) << r.output;
  r = cli({"group", "reset-offsets", "g", "--topic", "events", "--to-datetime", "yesterday"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--to-datetime")) << r.output;

  // A group nobody knows yet may be given offsets.
  Result<std::vector<OffsetResetResult>> fresh =
      admin_->reset_offsets("new-group", "events", OffsetResetSpec::to_offset(1));
  ASSERT_TRUE(fresh.ok()) << fresh.status().to_string();
  ASSERT_EQ(fresh->size(), 2u);
  EXPECT_EQ((*fresh)[0].old_offset, -1);
  EXPECT_EQ((*fresh)[0].new_offset, 1);

  // Usage and operation errors.
  r = cli({"group", "reset-offsets", "g", "--topic", "events"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = cli({"group", "reset-offsets", "g", "--topic", "events", "--to-earliest", "--to-latest"});
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = cli({"group", "reset-offsets", "g", "--topic", "missing", "--to-earliest"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "spillway group reset-offsets: ")) << r.output;
  EXPECT_TRUE(contains(r.output, "missing")) << r.output;
}

TEST_F(GroupAdmin, DeleteRemovesTheGroupAndItsOffsets) {
  make_topic("t", {2});
  commit("doomed", {{"t", 0, 1}});
  ProcessExit r = cli({"group", "delete", "doomed"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "deleted group doomed\n")) << r.output;

  r = cli({"group", "list"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "doomed")) << r.output;
  Result<GroupDescription> d = admin_->describe_group("doomed");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), ErrorCode::kUnknownGroup) << d.status().to_string();
  EXPECT_EQ(metric(metrics(), "spillway_group_lag{group=\"doomed\",topic=\"t\",partition=\"0\"}"),
            -2);

  r = cli({"group", "delete", "doomed"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "spillway group delete: ")) << r.output;
}

TEST_F(GroupAdmin, MalformedAndOversizedRequestsGetClearErrors) {
  WireClient client(broker_->port());
  const std::array<std::byte, 3> stub{};
  for (auto api :
       {frame::ApiKey::kListGroups, frame::ApiKey::kDescribeGroups, frame::ApiKey::kDeleteGroups}) {
    auto response = client.call(api, stub);
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->header.error_code, ErrorCode::kCorruptMessage);
  }
  // More groups than one request may name.
  std::vector<std::string_view> names(1'001, "g");
  const messages::DescribeGroupsRequest many{.groups = names};
  auto body = encode_body(
      [&](WriteBuffer& b) { return messages::encode_describe_groups_request(many, b); });
  auto response = client.call(frame::ApiKey::kDescribeGroups, body);
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->header.error_code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(contains(client.last_error(), "at most 1000 groups")) << client.last_error();
  // Still serving.
  Result<std::vector<GroupListing>> groups = admin_->list_groups();
  ASSERT_TRUE(groups.ok()) << groups.status().to_string();
  EXPECT_TRUE(groups->empty());
}

// One member of `group`, held through the Kafka listener: a JoinGroup v1
// (the group's only member, so its leader), then a SyncGroup v1 in which it
// assigns itself `partitions` of `topic`. It stays a member for the
// session timeout (30 s) without heartbeats, longer than the test needs.
class KafkaMember {
 public:
  explicit KafkaMember(uint16_t kafka_port) : client_(kafka_port) {}

  // Joins and syncs; a failure fails the test (fatally).
  void join(const std::string& group, const std::string& topic, std::vector<int32_t> partitions) {
    const std::string_view topics[] = {topic};
    kafka::ConsumerProtocolSubscription subscription;
    subscription.topics = topics;
    Result<std::vector<std::byte>> metadata = kafka::consumer_subscription_bytes(subscription);
    ASSERT_TRUE(metadata.ok());
    const kafka::JoinGroupRequest::Protocol protocols[] = {{"range", *metadata}};
    kafka::JoinGroupRequest join;
    join.group_id = group;
    join.session_timeout_ms = 30'000;
    join.rebalance_timeout_ms = 30'000;
    join.member_id = "";
    join.protocol_type = "consumer";
    join.protocols = protocols;
    KafkaWireClient::Reply join_reply;
    auto joined = client_.call<kafka::JoinGroupResponse>(join, 1, &join_reply);
    ASSERT_EQ(joined.error_code, 0);
    member_id_ = std::string(joined.member_id);
    generation_ = joined.generation_id;
    ASSERT_EQ(std::string(joined.leader), member_id_);

    const kafka::ConsumerTopicPartitions assigned[] = {{topic, partitions}};
    kafka::ConsumerProtocolAssignment assignment;
    assignment.assigned_partitions = assigned;
    Result<std::vector<std::byte>> bytes = kafka::consumer_assignment_bytes(assignment);
    ASSERT_TRUE(bytes.ok());
    const kafka::SyncGroupRequest::Assignment assignments[] = {{member_id_, *bytes}};
    kafka::SyncGroupRequest sync;
    sync.group_id = group;
    sync.generation_id = generation_;
    sync.member_id = member_id_;
    sync.assignments = assignments;
    KafkaWireClient::Reply sync_reply;
    auto synced = client_.call<kafka::SyncGroupResponse>(sync, 1, &sync_reply);
    ASSERT_EQ(synced.error_code, 0);
  }

  const std::string& member_id() const { return member_id_; }
  int32_t generation() const { return generation_; }

 private:
  KafkaWireClient client_;
  std::string member_id_;
  int32_t generation_ = -1;
};

TEST_F(GroupAdmin, AGroupWithAMemberIsDescribedAndNeitherResetNorDeleted) {
  // The first rebalance of an empty group would wait 3 s for more members.
  BrokerProcess::Options options;
  options.args = {"--metrics-listen", "127.0.0.1:0", "--group-initial-rebalance-delay-ms", "0"};
  auto broker = BrokerProcess::start(options);
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  broker_ = std::move(broker).value();
  auto admin = Admin::connect(broker_->address());
  ASSERT_TRUE(admin.ok()) << admin.status().to_string();
  admin_ = std::make_unique<Admin>(std::move(admin).value());

  make_topic("events", {3, 1});
  commit("readers", {{"events", 0, 1}});
  KafkaMember member(broker_->kafka_port());
  member.join("readers", "events", {0, 1});
  if (::testing::Test::HasFatalFailure()) return;

  ProcessExit r = cli({"group", "list"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "readers  Stable  consumer\n")) << r.output;

  r = cli({"group", "describe", "readers"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "group readers: state Stable, protocol range, generation " +
                                     std::to_string(member.generation()) + ", 1 member\n"))
      << r.output;
  EXPECT_TRUE(contains(r.output, member.member_id())) << r.output;
  EXPECT_TRUE(contains(r.output, "events:0,1")) << r.output;
  EXPECT_TRUE(contains(r.output, "events  0          " + member.member_id())) << r.output;

  Result<GroupDescription> d = admin_->describe_group("readers");
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  ASSERT_EQ(d->members.size(), 1u);
  ASSERT_EQ(d->members[0].assignment.size(), 1u);
  EXPECT_EQ(d->members[0].assignment[0].topic, "events");
  EXPECT_EQ(d->members[0].assignment[0].partitions, (std::vector<int32_t>{0, 1}));
  ASSERT_EQ(d->partitions.size(), 2u);
  EXPECT_EQ(d->partitions[0].lag, 2);
  EXPECT_EQ(d->partitions[1].member_id, member.member_id());
  EXPECT_EQ(d->partitions[1].committed, -1);
  EXPECT_EQ(d->partitions[1].lag, -1);

  r = cli({"group", "reset-offsets", "readers", "--topic", "events", "--to-earliest"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "spillway group reset-offsets: group readers has 1 member (state "
                       "Stable); stop its consumers before resetting its offsets"))
      << r.output;
  // Nothing was committed.
  d = admin_->describe_group("readers");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->partitions[0].committed, 1);

  r = cli({"group", "delete", "readers"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "spillway group delete: ")) << r.output;
  EXPECT_EQ(admin_->delete_group("readers").code(), ErrorCode::kGroupNotEmpty);

  const std::string page = metrics();
  EXPECT_EQ(metric(page, "spillway_group_members{group=\"readers\"}"), 1) << page;
  EXPECT_EQ(metric(page, "spillway_group_generation{group=\"readers\"}"), member.generation());
  EXPECT_GE(metric(page, "spillway_group_rebalances_total{group=\"readers\"}"), 1);
  EXPECT_EQ(metric(page, "spillway_group_lag{group=\"readers\",topic=\"events\",partition=\"0\"}"),
            2);
}

}  // namespace
}  // namespace spillway::testing
