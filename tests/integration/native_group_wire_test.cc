// The native group membership requests on the wire against the real broker
// (docs/protocol.md, "Consumer groups"): one member's whole life (join,
// sync, heartbeat, leave), and bad input answered with an error in the
// frame while the connection keeps serving.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "spillway/common/messages/group_admin.h"
#include "spillway/common/messages/groups.h"

namespace spillway::testing {
namespace {

using namespace messages;

class NativeGroupWire : public ::testing::Test {
 protected:
  void SetUp() override {
    BrokerProcess::Options options;
    options.args = {"--group-min-session-timeout-ms", "100", "--group-initial-rebalance-delay-ms",
                    "0"};
    auto broker = BrokerProcess::start(options);
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(*broker);
    client_ = std::make_unique<WireClient>(broker_->port());
    ASSERT_TRUE(client_->connected());
  }

  std::optional<RawClient::Response> join(std::string_view member, int32_t session_ms,
                                          std::span<const JoinGroupProtocol> protocols) {
    const JoinGroupRequest req{.group_id = "g",
                               .member_id = member,
                               .group_instance_id = std::nullopt,
                               .session_timeout_ms = session_ms,
                               .rebalance_timeout_ms = 5'000,
                               .protocol_type = "consumer",
                               .protocols = protocols};
    return client_->call(frame::ApiKey::kJoinGroup, encode_body([&](WriteBuffer& b) {
                           return encode_join_group_request(req, b);
                         }));
  }

  ErrorCode heartbeat(std::string_view group, std::string_view member, int32_t generation) {
    const HeartbeatRequest req{.group_id = group,
                               .member_id = member,
                               .generation_id = generation,
                               .group_instance_id = std::nullopt};
    auto r = client_->call(frame::ApiKey::kHeartbeat, encode_body([&](WriteBuffer& b) {
                             return encode_heartbeat_request(req, b);
                           }));
    return r ? r->header.error_code : ErrorCode::kNotConnected;
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<WireClient> client_;
};

TEST_F(NativeGroupWire, OneMembersWholeLife) {
  const std::array<JoinGroupProtocol, 1> protocols = {JoinGroupProtocol{"range", bytes_of("sub")}};
  auto joined = join("", 6'000, protocols);
  ASSERT_TRUE(joined.has_value());
  ASSERT_EQ(joined->header.error_code, ErrorCode::kOk) << client_->last_error();
  auto j = decode_join_group_response(joined->body);
  ASSERT_TRUE(j.ok()) << j.status().to_string();
  const std::string member(j->member_id);
  EXPECT_FALSE(member.empty());
  EXPECT_EQ(j->leader_id, member);
  EXPECT_EQ(j->protocol_name, "range");
  ASSERT_EQ(j->members.size(), 1);
  EXPECT_EQ(string_of((*j->members.begin()).metadata), "sub");
  const int32_t generation = j->generation_id;

  const std::array<SyncGroupAssignment, 1> assignments = {
      SyncGroupAssignment{member, bytes_of("mine")}};
  const SyncGroupRequest sync{.group_id = "g",
                              .member_id = member,
                              .generation_id = generation,
                              .group_instance_id = std::nullopt,
                              .assignments = assignments};
  auto synced = client_->call(frame::ApiKey::kSyncGroup, encode_body([&](WriteBuffer& b) {
                                return encode_sync_group_request(sync, b);
                              }));
  ASSERT_TRUE(synced.has_value());
  ASSERT_EQ(synced->header.error_code, ErrorCode::kOk) << client_->last_error();
  auto s = decode_sync_group_response(synced->body);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(string_of(s->assignment), "mine");

  EXPECT_EQ(heartbeat("g", member, generation), ErrorCode::kOk);
  EXPECT_EQ(heartbeat("g", member, generation + 1), ErrorCode::kIllegalGeneration);

  // Described as Kafka describes its members: the client and its host.
  const std::array<std::string_view, 1> names = {"g"};
  auto described = client_->call(frame::ApiKey::kDescribeGroups, encode_body([&](WriteBuffer& b) {
                                   return encode_describe_groups_request({names}, b);
                                 }));
  ASSERT_TRUE(described.has_value());
  ASSERT_EQ(described->header.error_code, ErrorCode::kOk) << client_->last_error();
  auto d = decode_describe_groups_response(described->body);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  ASSERT_EQ(d->groups.size(), 1);
  const DescribedGroup group = *d->groups.begin();
  EXPECT_EQ(group.state, "Stable");
  ASSERT_EQ(group.members.size(), 1);
  const DescribedMember described_member = *group.members.begin();
  EXPECT_EQ(described_member.member_id, member);
  EXPECT_EQ(described_member.client_id, "spillway-native");
  EXPECT_EQ(described_member.client_host, "/127.0.0.1");
  EXPECT_EQ(string_of(described_member.assignment), "mine");

  const std::array<LeaveGroupMember, 1> leaving = {LeaveGroupMember{member, std::nullopt}};
  auto left = client_->call(frame::ApiKey::kLeaveGroup, encode_body([&](WriteBuffer& b) {
                              return encode_leave_group_request({"g", leaving}, b);
                            }));
  ASSERT_TRUE(left.has_value());
  ASSERT_EQ(left->header.error_code, ErrorCode::kOk) << client_->last_error();
  auto l = decode_leave_group_response(left->body);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ((*l->members.begin()).error_code, ErrorCode::kOk);
  EXPECT_EQ(heartbeat("g", member, generation), ErrorCode::kUnknownMember);
}

TEST_F(NativeGroupWire, BadInputIsAnErrorAndTheConnectionServesOn) {
  // Unknown group and member.
  EXPECT_EQ(heartbeat("nobody", "ghost", 1), ErrorCode::kUnknownMember);
  // A protocol count far above the bytes sent.
  std::vector<std::byte> lying = encode_body([&](WriteBuffer& b) {
    const std::array<JoinGroupProtocol, 1> one = {JoinGroupProtocol{"range", bytes_of("x")}};
    const JoinGroupRequest req{.group_id = "g",
                               .member_id = "",
                               .group_instance_id = std::nullopt,
                               .session_timeout_ms = 6'000,
                               .rebalance_timeout_ms = 5'000,
                               .protocol_type = "consumer",
                               .protocols = one};
    return encode_join_group_request(req, b);
  });
  // protocols' count sits right after group_id(3) member_id(2) instance(2)
  // session(4) rebalance(4) protocol_type(2 + 8).
  const size_t count_at = 3 + 2 + 2 + 4 + 4 + 2 + 8;
  lying[count_at] = std::byte{0x7f};
  auto r = client_->call(frame::ApiKey::kJoinGroup, lying);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->header.error_code, ErrorCode::kCorruptMessage);
  // Too many protocols for the coordinator, and a session below the minimum.
  std::vector<std::string> names;
  for (int i = 0; i < 100; ++i) names.push_back("p" + std::to_string(i));
  std::vector<JoinGroupProtocol> many;
  for (const std::string& n : names) many.push_back({n, bytes_of("m")});
  r = join("", 6'000, many);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->header.error_code, ErrorCode::kInvalidArgument);
  const std::array<JoinGroupProtocol, 1> one = {JoinGroupProtocol{"range", bytes_of("x")}};
  r = join("", 10, one);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->header.error_code, ErrorCode::kInvalidSessionTimeout);
  // Still serving.
  EXPECT_FALSE(client_->api_versions_round_trip(99).empty());
}

}  // namespace
}  // namespace spillway::testing
