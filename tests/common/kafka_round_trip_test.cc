// Every Kafka request and response description (common/kafka/*.h) in every
// version Spillway serves (so the lowest, the highest and the first flexible
// one among them): a message with every field set encodes, decodes back to
// the same fields (and to the defaults for fields the version lacks), and
// so does one with every nullable field null; every truncation of the body
// is refused. The wire layouts themselves are pinned by the goldens in
// kafka_golden_test.cc.
#include <gtest/gtest.h>

#include "kafka_testing.h"
#include "spillway/common/kafka/api_versions.h"
#include "spillway/common/kafka/create_acls.h"
#include "spillway/common/kafka/create_partitions.h"
#include "spillway/common/kafka/create_topics.h"
#include "spillway/common/kafka/delete_acls.h"
#include "spillway/common/kafka/delete_groups.h"
#include "spillway/common/kafka/delete_topics.h"
#include "spillway/common/kafka/describe_acls.h"
#include "spillway/common/kafka/describe_cluster.h"
#include "spillway/common/kafka/describe_configs.h"
#include "spillway/common/kafka/describe_groups.h"
#include "spillway/common/kafka/fetch.h"
#include "spillway/common/kafka/find_coordinator.h"
#include "spillway/common/kafka/heartbeat.h"
#include "spillway/common/kafka/init_producer_id.h"
#include "spillway/common/kafka/join_group.h"
#include "spillway/common/kafka/leave_group.h"
#include "spillway/common/kafka/list_groups.h"
#include "spillway/common/kafka/list_offsets.h"
#include "spillway/common/kafka/metadata.h"
#include "spillway/common/kafka/offset_commit.h"
#include "spillway/common/kafka/offset_fetch.h"
#include "spillway/common/kafka/offset_for_leader_epoch.h"
#include "spillway/common/kafka/produce.h"
#include "spillway/common/kafka/sasl_authenticate.h"
#include "spillway/common/kafka/sasl_handshake.h"
#include "spillway/common/kafka/sync_group.h"

namespace spillway::kafka {
namespace {

using spillway::testing::encoded;
using spillway::testing::expect_same;
using spillway::testing::Filler;

template <typename T>
class KafkaRoundTrip : public ::testing::Test {};

using Messages = ::testing::Types<
    ApiVersionsRequest, ApiVersionsResponse, MetadataRequest, MetadataResponse, ProduceRequest,
    ProduceResponse, FetchRequest, FetchResponse, ListOffsetsRequest, ListOffsetsResponse,
    OffsetCommitRequest, OffsetCommitResponse, OffsetFetchRequest, OffsetFetchResponse,
    FindCoordinatorRequest, FindCoordinatorResponse, CreateTopicsRequest, CreateTopicsResponse,
    DeleteTopicsRequest, DeleteTopicsResponse, CreatePartitionsRequest, CreatePartitionsResponse,
    DescribeConfigsRequest, DescribeConfigsResponse, DescribeClusterRequest,
    DescribeClusterResponse, InitProducerIdRequest, InitProducerIdResponse,
    OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, SaslHandshakeRequest,
    SaslHandshakeResponse, SaslAuthenticateRequest, SaslAuthenticateResponse, JoinGroupRequest,
    JoinGroupResponse, SyncGroupRequest, SyncGroupResponse, HeartbeatRequest, HeartbeatResponse,
    LeaveGroupRequest, LeaveGroupResponse, DescribeGroupsRequest, DescribeGroupsResponse,
    ListGroupsRequest, ListGroupsResponse, DeleteGroupsRequest, DeleteGroupsResponse,
    DescribeAclsRequest, DescribeAclsResponse, CreateAclsRequest, CreateAclsResponse,
    DeleteAclsRequest, DeleteAclsResponse>;

// Test names carry the message's name ("KafkaRoundTrip/FetchResponse.…").
class MessageNames {
 public:
  template <typename T>
  static std::string GetName(int) {
    const std::string name = ::testing::internal::GetTypeName<T>();
    return name.substr(name.rfind(':') + 1);
  }
};

TYPED_TEST_SUITE(KafkaRoundTrip, Messages, MessageNames);

TYPED_TEST(KafkaRoundTrip, DescriptionIsConsistentWithTheApiTable) {
  const ApiInfo& api = api_info(TypeParam::kApiKey);
  EXPECT_EQ(TypeParam::kVersions.first, api.versions.first);
  EXPECT_EQ(TypeParam::kVersions.last, api.versions.last);
  EXPECT_EQ(TypeParam::kFlexibleFrom, api.flexible_from);
  EXPECT_TRUE(spillway::testing::tags_in_order<TypeParam>());
}

TYPED_TEST(KafkaRoundTrip, EveryServedVersionRoundTripsWithValuesAndWithNulls) {
  for (int16_t v = TypeParam::kVersions.first; v <= TypeParam::kVersions.last; ++v) {
    const Context c = context<TypeParam>(v);
    for (const bool nulls : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "v" << v << (nulls ? " with nulls" : " with values"));
      Filler filler(c, nulls);
      TypeParam sent{};
      filler.fill(sent, false);
      const std::vector<std::byte> body = encoded(sent, c);
      Result<TypeParam> back = wire::decode<TypeParam>(body, c, "test");
      ASSERT_TRUE(back.ok()) << back.status().to_string();
      expect_same(sent, *back, c, "body");
      EXPECT_EQ(encoded(*back, c), body);  // decoded arrays re-encode from the wire
    }
  }
}

TYPED_TEST(KafkaRoundTrip, EveryTruncationIsMalformed) {
  for (int16_t v = TypeParam::kVersions.first; v <= TypeParam::kVersions.last; ++v) {
    const Context c = context<TypeParam>(v);
    Filler filler(c, false);
    TypeParam sent{};
    filler.fill(sent, false);
    const std::vector<std::byte> body = encoded(sent, c);
    for (size_t n = 0; n < body.size(); ++n) {
      Result<TypeParam> r = wire::decode<TypeParam>(std::span(body).first(n), c, "test");
      ASSERT_FALSE(r.ok()) << "v" << v << ", " << n << " of " << body.size() << " bytes";
      EXPECT_EQ(r.status().code(), ErrorCode::kCorruptMessage);
    }
  }
}

}  // namespace
}  // namespace spillway::kafka
