// AlterPartitionReassignments (native key 29) and ListPartitionReassignments
// (30) against an in-process broker whose ClusterAdmin is a fake: the
// orders it is handed, the results mapped back to the request, the whole-
// request refusals, the moves listed from the snapshot, "not a cluster"
// without one, and the Alter / Describe checks on the cluster.
#include <gtest/gtest.h>

#include <asio/post.hpp>
#include <mutex>

#include "cluster/cluster_admin.h"
#include "cluster/reassignment.h"
#include "fake_cluster.h"
#include "in_process_broker.h"
#include "spillway/common/messages/reassignments.h"

namespace spillway::broker::testing {
namespace {

using Ids = std::vector<int32_t>;

template <typename T>
std::vector<T> collect(const messages::Array<T>& a) {
  std::vector<T> out;
  for (const T& v : a) out.push_back(v);
  return out;
}

// A ClusterAdmin whose reassign_partitions applies the orders to its
// snapshot's topic with the real rules (cluster/reassignment.h) and
// remembers what it was asked.
class FakeAdmin final : public cluster::ClusterAdmin {
 public:
  explicit FakeAdmin(cluster::SnapshotPtr snapshot) : snapshot_(std::move(snapshot)) {}
  void create_topic(cluster::NewTopic, asio::any_io_executor,
                    std::function<void(Status)>) override {}
  void delete_topic(std::string, asio::any_io_executor, std::function<void(Status)>) override {}
  void read_group_offsets(std::string, asio::any_io_executor,
                          std::function<void(Result<StoredOffsets>)>) override {}
  void write_group_offsets(std::string, int64_t, std::vector<cluster::GroupOffset>,
                           asio::any_io_executor, std::function<void(Result<int64_t>)>) override {}
  void reassign_partitions(std::string topic, std::vector<cluster::ReassignOrder> orders,
                           asio::any_io_executor executor,
                           std::function<void(std::vector<Status>)> done) override {
    std::vector<Status> results;
    auto t = snapshot_->topics.find(topic);
    if (t == snapshot_->topics.end()) {
      results.assign(orders.size(), Status(ErrorCode::kUnknownTopic, "no topic " + topic));
    } else {
      cluster::TopicAssignment copy = t->second;
      bool changed = false;
      results = cluster::apply_reassign_orders(*snapshot_, orders, &copy, &changed);
    }
    {
      std::lock_guard lock(mu_);
      asked.emplace_back(topic, orders);
    }
    asio::post(executor, [done = std::move(done), results = std::move(results)]() mutable {
      done(std::move(results));
    });
  }
  cluster::SnapshotPtr snapshot() const override { return snapshot_; }
  BrokerId broker_id() const override { return 1; }

  std::mutex mu_;
  std::vector<std::pair<std::string, std::vector<cluster::ReassignOrder>>> asked;

 private:
  cluster::SnapshotPtr snapshot_;
};

// Brokers 1-3; "orders" with partitions 0 {1,2} and 1 {2,3}, partition 1
// moving to {3,1} at 4096 B/s; "other" with one partition on {1}.
cluster::SnapshotPtr cluster_snapshot() {
  auto s = std::make_shared<cluster::ClusterSnapshot>();
  for (BrokerId b : {1, 2, 3}) s->brokers[b] = {.id = b, .native_address = "h:1"};
  s->topics["orders"] = {.name = "orders", .replicas = {{1, 2}, {2, 3, 1}}};
  s->topics["orders"].reassigning[1] = {
      .target = {3, 1}, .original = {2, 3}, .throttle_bytes_per_sec = 4096};
  s->topics["other"] = {.name = "other", .replicas = {{1}}};
  s->partitions[{"orders", 0}] = {.leader = 1, .leader_epoch = 1, .isr = {1, 2}};
  s->partitions[{"orders", 1}] = {.leader = 2, .leader_epoch = 1, .isr = {2, 3}};
  return s;
}

std::optional<RawResponse> alter(uint16_t port,
                                 const messages::AlterPartitionReassignmentsRequest& request) {
  RawClient client(port);
  return client.call(frame::ApiKey::kAlterPartitionReassignments, [&](WriteBuffer& out) {
    return messages::encode_alter_partition_reassignments_request(request, out);
  });
}

std::optional<RawResponse> list(uint16_t port,
                                const messages::ListPartitionReassignmentsRequest& request) {
  RawClient client(port);
  return client.call(frame::ApiKey::kListPartitionReassignments, [&](WriteBuffer& out) {
    return messages::encode_list_partition_reassignments_request(request, out);
  });
}

std::string error_message(const RawResponse& r) {
  return std::string(frame::decode_error_body(r.code, r.body).message());
}

TEST(ReassignmentHandlers, AlterHandsEachTopicsOrdersOverAndAnswersPerPartition) {
  FakeAdmin admin(cluster_snapshot());
  InProcessBroker broker({.cluster_admin = &admin});
  ASSERT_TRUE(broker.started().ok()) << broker.started().to_string();
  const Ids to23{2, 3}, dead{1, 9};
  const std::array<messages::ReassignPartitionRequest, 2> orders_parts = {
      messages::ReassignPartitionRequest{.partition = 0, .replicas = to23},
      messages::ReassignPartitionRequest{.partition = 0, .replicas = dead}};
  const std::array<messages::ReassignPartitionRequest, 1> missing_parts = {
      messages::ReassignPartitionRequest{.partition = 0, .replicas = to23}};
  const std::array<messages::ReassignPartitionRequest, 1> cancel_parts = {
      messages::ReassignPartitionRequest{.partition = 1, .replicas = {}}};
  const std::array<messages::ReassignTopicRequest, 3> topics = {
      messages::ReassignTopicRequest{.name = "orders", .partitions = orders_parts},
      messages::ReassignTopicRequest{.name = "nosuch", .partitions = missing_parts},
      messages::ReassignTopicRequest{.name = "orders", .partitions = cancel_parts}};
  auto r = alter(broker.port(), {.throttle_bytes_per_sec = 1000, .topics = topics});
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->code, ErrorCode::kOk) << error_message(*r);
  auto got = messages::decode_alter_partition_reassignments_response(r->body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 3u);  // as the request named them
  EXPECT_EQ(t[0].name, "orders");
  auto first = collect(t[0].results);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].error_code, ErrorCode::kOk);
  EXPECT_EQ(first[1].error_code, ErrorCode::kInvalidArgument);  // partition 0 twice
  EXPECT_EQ(t[1].name, "nosuch");
  EXPECT_EQ(collect(t[1].results).at(0).error_code, ErrorCode::kUnknownTopic);
  EXPECT_EQ(collect(t[2].results).at(0).partition, 1);
  EXPECT_EQ(collect(t[2].results).at(0).error_code, ErrorCode::kOk);  // the cancel

  // One call per topic, the request's two "orders" entries together.
  std::lock_guard lock(admin.mu_);
  ASSERT_EQ(admin.asked.size(), 2u);
  EXPECT_EQ(admin.asked[0].first, "orders");
  ASSERT_EQ(admin.asked[0].second.size(), 3u);
  EXPECT_EQ(admin.asked[0].second[0].replicas, (std::vector<BrokerId>{2, 3}));
  EXPECT_EQ(admin.asked[0].second[0].throttle_bytes_per_sec, 1000);
  EXPECT_TRUE(admin.asked[0].second[2].replicas.empty());
  EXPECT_EQ(admin.asked[1].first, "nosuch");
}

TEST(ReassignmentHandlers, AlterRefusesWholeRequestsBeforeCopyingThem) {
  FakeAdmin admin(cluster_snapshot());
  InProcessBroker broker({.cluster_admin = &admin});
  ASSERT_TRUE(broker.started().ok());
  auto none = alter(broker.port(), {});
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(error_message(*none), "no partitions to move");

  const Ids seventeen(17, 1);
  const std::array<messages::ReassignPartitionRequest, 1> wide = {
      messages::ReassignPartitionRequest{.partition = 0, .replicas = seventeen}};
  const std::array<messages::ReassignTopicRequest, 1> wide_topics = {
      messages::ReassignTopicRequest{.name = "orders", .partitions = wide}};
  auto r = alter(broker.port(), {.topics = wide_topics});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, ErrorCode::kInvalidReplicaAssignment) << error_message(*r);

  const std::vector<messages::ReassignPartitionRequest> many(
      messages::kMaxReassignPartitions + 1, messages::ReassignPartitionRequest{.partition = 0});
  const std::array<messages::ReassignTopicRequest, 1> many_topics = {
      messages::ReassignTopicRequest{.name = "orders", .partitions = many}};
  r = alter(broker.port(), {.topics = many_topics});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, ErrorCode::kInvalidArgument) << error_message(*r);

  const Ids one{1};
  const std::array<messages::ReassignPartitionRequest, 1> ok_parts = {
      messages::ReassignPartitionRequest{.partition = 0, .replicas = one}};
  const std::array<messages::ReassignTopicRequest, 1> ok_topics = {
      messages::ReassignTopicRequest{.name = "orders", .partitions = ok_parts}};
  r = alter(broker.port(), {.throttle_bytes_per_sec = -5, .topics = ok_topics});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, ErrorCode::kInvalidArgument) << error_message(*r);
  std::lock_guard lock(admin.mu_);
  EXPECT_TRUE(admin.asked.empty());
}

TEST(ReassignmentHandlers, ListShowsTheMovesOfTheSnapshot) {
  FakeAdmin admin(cluster_snapshot());
  InProcessBroker broker({.cluster_admin = &admin});
  ASSERT_TRUE(broker.started().ok());
  auto r = list(broker.port(), {});
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->code, ErrorCode::kOk) << error_message(*r);
  auto got = messages::decode_list_partition_reassignments_response(r->body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  auto t = collect(got->topics);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].name, "orders");
  auto m = collect(t[0].partitions);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].partition, 1);
  EXPECT_EQ(collect(m[0].replicas), (Ids{2, 3, 1}));
  EXPECT_EQ(collect(m[0].target), (Ids{3, 1}));
  EXPECT_EQ(collect(m[0].adding), (Ids{1}));
  EXPECT_EQ(collect(m[0].removing), (Ids{2}));
  EXPECT_EQ(collect(m[0].isr), (Ids{2, 3}));
  EXPECT_EQ(m[0].leader, 2);
  EXPECT_EQ(m[0].throttle_bytes_per_sec, 4096);

  // Filters: a topic without moves lists nothing; an unknown one is refused.
  const std::array<messages::ListReassignmentsTopicRequest, 1> other = {
      messages::ListReassignmentsTopicRequest{.name = "other"}};
  r = list(broker.port(), {other});
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->code, ErrorCode::kOk);
  EXPECT_TRUE(messages::decode_list_partition_reassignments_response(r->body)->topics.empty());
  const Ids zero{0};
  const std::array<messages::ListReassignmentsTopicRequest, 1> orders0 = {
      messages::ListReassignmentsTopicRequest{.name = "orders", .partitions = zero}};
  r = list(broker.port(), {orders0});
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(messages::decode_list_partition_reassignments_response(r->body)->topics.empty());
  const std::array<messages::ListReassignmentsTopicRequest, 1> missing = {
      messages::ListReassignmentsTopicRequest{.name = "nosuch"}};
  r = list(broker.port(), {missing});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, ErrorCode::kUnknownTopic);
}

TEST(ReassignmentHandlers, WithoutAClusterNeitherIsServed) {
  InProcessBroker broker({});
  ASSERT_TRUE(broker.started().ok());
  auto r = list(broker.port(), {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, ErrorCode::kInvalidArgument);
  EXPECT_NE(error_message(*r).find("not a cluster"), std::string::npos);
  const Ids one{1};
  const std::array<messages::ReassignPartitionRequest, 1> parts = {
      messages::ReassignPartitionRequest{.partition = 0, .replicas = one}};
  const std::array<messages::ReassignTopicRequest, 1> topics = {
      messages::ReassignTopicRequest{.name = "t", .partitions = parts}};
  r = alter(broker.port(), {.topics = topics});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, ErrorCode::kInvalidArgument);
  EXPECT_NE(error_message(*r).find("not a cluster"), std::string::npos);
}

// Kafka's rules: Alter on the cluster to move, Describe to list.
TEST(ReassignmentHandlers, NeedAlterOrDescribeOnTheCluster) {
  FakeAdmin admin(cluster_snapshot());
  const Ids one{1};
  const std::array<messages::ReassignPartitionRequest, 1> parts = {
      messages::ReassignPartitionRequest{.partition = 0, .replicas = one}};
  const std::array<messages::ReassignTopicRequest, 1> topics = {
      messages::ReassignTopicRequest{.name = "orders", .partitions = parts}};

  ClusterOnlyAuthorizer describe_only({security::AclOperation::kDescribe});
  InProcessBroker reader({.cluster_admin = &admin, .authorizer = &describe_only});
  ASSERT_TRUE(reader.started().ok());
  auto r = alter(reader.port(), {.topics = topics});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, ErrorCode::kClusterAuthorizationFailed);
  r = list(reader.port(), {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, ErrorCode::kOk);

  ClusterOnlyAuthorizer alter_only({security::AclOperation::kAlter});
  InProcessBroker mover({.cluster_admin = &admin, .authorizer = &alter_only});
  ASSERT_TRUE(mover.started().ok());
  r = alter(mover.port(), {.topics = topics});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, ErrorCode::kOk);
  r = list(mover.port(), {});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, ErrorCode::kClusterAuthorizationFailed);
}

}  // namespace
}  // namespace spillway::broker::testing
