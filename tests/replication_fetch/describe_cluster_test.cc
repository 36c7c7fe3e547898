// DescribeCluster (native key 28) against an in-process broker whose
// cluster is a fake snapshot: the encoded view of the snapshot, "not a
// cluster" without one, and the Describe-on-cluster check.
#include <gtest/gtest.h>

#include "fake_cluster.h"
#include "in_process_broker.h"
#include "spillway/common/messages/replication.h"

namespace spillway::broker::testing {
namespace {

template <typename T>
std::vector<T> collect(const messages::Array<T>& a) {
  std::vector<T> out;
  for (const T& v : a) out.push_back(v);
  return out;
}

std::optional<RawResponse> describe(uint16_t port) {
  RawClient client(port);
  return client.call(frame::ApiKey::kDescribeCluster, [](WriteBuffer& out) {
    return messages::encode_describe_cluster_request({}, out);
  });
}

cluster::SnapshotPtr two_brokers() {
  auto s = std::make_shared<cluster::ClusterSnapshot>();
  s->revision = 10;
  s->controller = 2;
  s->controller_epoch = 7;
  s->brokers[1] = {.id = 1,
                   .native_address = "10.0.0.1:9093",
                   .kafka_address = "10.0.0.1:9092",
                   .rack = "a",
                   .epoch = 3};
  s->brokers[2] = {.id = 2, .native_address = "10.0.0.2:9093", .rack = "b", .epoch = 5};
  s->topics["orders"] = {.name = "orders", .replicas = {{1, 2}, {2, 3}}};
  s->partitions[{"orders", 0}] = {.leader = 1, .leader_epoch = 4, .isr = {1, 2}};
  // Partition 1's leader, broker 3, is not alive: offline.
  s->partitions[{"orders", 1}] = {.leader = 3, .leader_epoch = 2, .isr = {3}};
  return s;
}

TEST(DescribeCluster, EncodesTheSnapshot) {
  FakeCluster cluster;
  cluster.set_snapshot(two_brokers());
  InProcessBroker broker({.cluster = &cluster});
  ASSERT_TRUE(broker.started().ok()) << broker.started().to_string();
  auto r = describe(broker.port());
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->code, ErrorCode::kOk);
  auto got = messages::decode_describe_cluster_response(r->body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->controller_id, 2);
  EXPECT_EQ(got->controller_epoch, 7);
  auto brokers = collect(got->brokers);
  ASSERT_EQ(brokers.size(), 2u);
  EXPECT_EQ(brokers[0].id, 1);
  EXPECT_EQ(brokers[0].kafka_address, "10.0.0.1:9092");
  EXPECT_EQ(brokers[0].rack, "a");
  EXPECT_EQ(brokers[0].epoch, 3);
  EXPECT_EQ(brokers[1].native_address, "10.0.0.2:9093");
  EXPECT_EQ(brokers[1].kafka_address, "");
  auto topics = collect(got->topics);
  ASSERT_EQ(topics.size(), 1u);
  EXPECT_EQ(topics[0].name, "orders");
  auto parts = collect(topics[0].partitions);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].leader, 1);
  EXPECT_EQ(parts[0].leader_epoch, 4);
  EXPECT_EQ(collect(parts[0].replicas), (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(collect(parts[0].isr), (std::vector<int32_t>{1, 2}));
  EXPECT_FALSE(parts[0].offline);
  EXPECT_EQ(parts[1].leader, 3);
  EXPECT_EQ(collect(parts[1].replicas), (std::vector<int32_t>{2, 3}));
  EXPECT_TRUE(parts[1].offline);
}

TEST(DescribeCluster, WithoutAClusterIsInvalid) {
  InProcessBroker broker({});
  ASSERT_TRUE(broker.started().ok()) << broker.started().to_string();
  auto r = describe(broker.port());
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(frame::decode_error_body(r->code, r->body).message(), "not a cluster");
}

TEST(DescribeCluster, NeedsDescribeOnTheCluster) {
  FakeCluster cluster;
  cluster.set_snapshot(two_brokers());
  ClusterOnlyAuthorizer replicate_only({security::AclOperation::kClusterAction});
  InProcessBroker denied({.cluster = &cluster, .authorizer = &replicate_only});
  ASSERT_TRUE(denied.started().ok());
  auto r = describe(denied.port());
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->code, ErrorCode::kClusterAuthorizationFailed);

  ClusterOnlyAuthorizer describe_only({security::AclOperation::kDescribe});
  InProcessBroker allowed({.cluster = &cluster, .authorizer = &describe_only});
  ASSERT_TRUE(allowed.started().ok());
  auto ok = describe(allowed.port());
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->code, ErrorCode::kOk);
}

}  // namespace
}  // namespace spillway::broker::testing
