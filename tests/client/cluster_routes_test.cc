// ClusterRoutes: a DescribeCluster answer becomes each partition's leader
// and each broker's address; the answers of a broker that is not in a
// cluster become routes that send everything to the bootstrap broker.
#include "cluster_routes.h"

#include <gtest/gtest.h>

#include <vector>

#include "spillway/common/messages/replication.h"

namespace spillway::wire {
namespace {

std::vector<std::byte> encode(const messages::DescribeClusterResponse& response) {
  std::byte scratch[4096];
  WriteBuffer out(scratch);
  EXPECT_TRUE(messages::encode_describe_cluster_response(response, out).ok());
  std::vector<std::byte> bytes;
  out.for_each_piece(0, [&](std::span<const std::byte> piece) {
    bytes.insert(bytes.end(), piece.begin(), piece.end());
  });
  return bytes;
}

TEST(ClusterRoutes, LeadersAndAddressesOfACluster) {
  const std::vector<messages::ClusterBrokerBody> brokers = {
      {.id = 1, .native_address = "10.0.0.1:9093"}, {.id = 2, .native_address = "10.0.0.2:9093"}};
  const std::vector<int32_t> replicas = {1, 2, 3};
  const std::vector<messages::ClusterPartitionBody> parts = {
      {.partition = 0, .leader = 1, .replicas = replicas, .isr = replicas},
      {.partition = 1, .leader = 2, .replicas = replicas, .isr = replicas},
      {.partition = 2, .leader = -1, .replicas = replicas, .offline = true},
      {.partition = 3, .leader = 3, .replicas = replicas},        // broker 3 is not live
      {.partition = 1 << 30, .leader = 1, .replicas = replicas},  // past any topic's size
  };
  const std::vector<messages::ClusterTopicBody> topics = {{.name = "t", .partitions = parts}};
  const std::vector<std::byte> body =
      encode({.controller_id = 1, .controller_epoch = 7, .brokers = brokers, .topics = topics});

  Result<ClusterRoutes> routes = routes_from_answer(Status::Ok(), body);
  ASSERT_TRUE(routes.ok()) << routes.status().to_string();
  EXPECT_TRUE(routes->cluster());
  EXPECT_EQ(routes->leader("t", 0), 1);
  EXPECT_EQ(routes->leader("t", 1), 2);
  EXPECT_EQ(routes->leader("t", 2), kNoLeader);
  EXPECT_EQ(routes->leader("t", 3), kNoLeader);
  EXPECT_EQ(routes->leader("t", 4), kNoLeader);
  EXPECT_EQ(routes->leader("t", -1), kNoLeader);
  EXPECT_EQ(routes->leader("other", 0), kNoLeader);
  EXPECT_LE(routes->leaders.at("t").size(), 4u);
  ASSERT_NE(routes->address(2), nullptr);
  EXPECT_EQ(*routes->address(2), "10.0.0.2:9093");
  EXPECT_EQ(routes->address(3), nullptr);

  Result<ClusterDescription> described = decode_cluster_description(body);
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(described->controller_epoch, 7);
  EXPECT_EQ(described->partitions.size(), parts.size());
}

TEST(ClusterRoutes, AStandaloneBrokerGetsEverything) {
  for (ErrorCode code : {ErrorCode::kInvalidArgument, ErrorCode::kUnsupportedVersion,
                         ErrorCode::kClusterAuthorizationFailed}) {
    Result<ClusterRoutes> routes = routes_from_answer(Status(code, "no"), {});
    ASSERT_TRUE(routes.ok()) << error_code_name(code);
    EXPECT_FALSE(routes->cluster());
    EXPECT_EQ(routes->leader("t", 5), kBootstrapBroker);
  }
}

TEST(ClusterRoutes, OtherErrorsAndGarbageAreNotRoutes) {
  EXPECT_EQ(routes_from_answer(Status(ErrorCode::kShuttingDown, "bye"), {}).status().code(),
            ErrorCode::kShuttingDown);
  const std::byte junk[3] = {std::byte{1}, std::byte{2}, std::byte{3}};
  EXPECT_EQ(routes_from_answer(Status::Ok(), junk).status().code(), ErrorCode::kCorruptMessage);
}

TEST(ClusterRoutes, WhichErrorsAskForNewRoutes) {
  EXPECT_TRUE(needs_new_routes(ErrorCode::kNotLeaderOrFollower));
  EXPECT_TRUE(needs_new_routes(ErrorCode::kFencedLeaderEpoch));
  EXPECT_TRUE(needs_new_routes(ErrorCode::kUnknownLeaderEpoch));
  EXPECT_FALSE(needs_new_routes(ErrorCode::kOk));
  EXPECT_FALSE(needs_new_routes(ErrorCode::kUnknownTopic));
}

}  // namespace
}  // namespace spillway::wire
