// Round trips and malformed input for the native group membership codecs
// (messages/groups.h).
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "spillway/common/messages/groups.h"

namespace spillway::messages {
namespace {

template <typename Fn>
std::vector<std::byte> encode(Fn&& fn) {
  std::array<std::byte, 32> scratch;  // small, so bodies spill
  WriteBuffer buf(scratch);
  Status st = fn(buf);
  EXPECT_TRUE(st.ok()) << st.to_string();
  std::vector<std::byte> out(buf.bytes_written());
  buf.copy_to(out);
  return out;
}

std::span<const std::byte> as_bytes(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

template <typename T>
std::vector<T> collect(const Array<T>& a) {
  std::vector<T> out;
  for (const T& v : a) out.push_back(v);
  return out;
}

TEST(GroupCodecs, JoinGroupRoundTrip) {
  const std::array<JoinGroupProtocol, 2> protocols = {
      JoinGroupProtocol{"cooperative-sticky", as_bytes("meta-a")},
      JoinGroupProtocol{"range", as_bytes("meta-b")}};
  JoinGroupRequest req{.group_id = "g",
                       .member_id = "",
                       .group_instance_id = std::nullopt,
                       .session_timeout_ms = 6000,
                       .rebalance_timeout_ms = 30000,
                       .protocol_type = "consumer",
                       .protocols = protocols};
  const auto body = encode([&](WriteBuffer& b) { return encode_join_group_request(req, b); });
  auto got = decode_join_group_request(body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->group_id, "g");
  EXPECT_EQ(got->member_id, "");
  EXPECT_FALSE(got->group_instance_id.has_value());
  EXPECT_EQ(got->session_timeout_ms, 6000);
  EXPECT_EQ(got->rebalance_timeout_ms, 30000);
  const auto ps = collect(got->protocols);
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[1].name, "range");
  EXPECT_EQ(
      std::string(reinterpret_cast<const char*>(ps[1].metadata.data()), ps[1].metadata.size()),
      "meta-b");

  const std::array<JoinGroupMember, 1> members = {
      JoinGroupMember{"m-1", std::string_view("static-1"), as_bytes("x")}};
  JoinGroupResponse resp{.generation_id = 4,
                         .protocol_type = "consumer",
                         .protocol_name = "range",
                         .leader_id = "m-1",
                         .member_id = "m-1",
                         .members = members};
  const auto rbody = encode([&](WriteBuffer& b) { return encode_join_group_response(resp, b); });
  auto rgot = decode_join_group_response(rbody);
  ASSERT_TRUE(rgot.ok()) << rgot.status().to_string();
  EXPECT_EQ(rgot->generation_id, 4);
  EXPECT_EQ(rgot->leader_id, "m-1");
  const auto ms = collect(rgot->members);
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0].group_instance_id, std::optional<std::string_view>("static-1"));
}

TEST(GroupCodecs, SyncHeartbeatLeaveRoundTrip) {
  const std::array<SyncGroupAssignment, 2> assignments = {SyncGroupAssignment{"a", as_bytes("1")},
                                                          SyncGroupAssignment{"b", as_bytes("22")}};
  SyncGroupRequest sync{.group_id = "g",
                        .member_id = "a",
                        .generation_id = 3,
                        .group_instance_id = std::nullopt,
                        .assignments = assignments};
  const auto s_body = encode([&](WriteBuffer& b) { return encode_sync_group_request(sync, b); });
  auto s = decode_sync_group_request(s_body);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->generation_id, 3);
  EXPECT_EQ(collect(s->assignments)[1].assignment.size(), 2u);

  SyncGroupResponse sresp{
      .protocol_type = "consumer", .protocol_name = "range", .assignment = as_bytes("abc")};
  const auto sr_body = encode([&](WriteBuffer& b) { return encode_sync_group_response(sresp, b); });
  auto sr = decode_sync_group_response(sr_body);
  ASSERT_TRUE(sr.ok());
  EXPECT_EQ(sr->assignment.size(), 3u);

  HeartbeatRequest hb{
      .group_id = "g", .member_id = "a", .generation_id = 7, .group_instance_id = std::nullopt};
  const auto h_body = encode([&](WriteBuffer& b) { return encode_heartbeat_request(hb, b); });
  auto h = decode_heartbeat_request(h_body);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->generation_id, 7);

  const std::array<LeaveGroupMember, 1> leaving = {LeaveGroupMember{"a", std::nullopt}};
  const auto l_body = encode([&](WriteBuffer& b) {
    return encode_leave_group_request({"g", leaving}, b);
  });
  auto l = decode_leave_group_request(l_body);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(collect(l->members)[0].member_id, "a");
  const std::array<LeaveGroupMemberResult, 1> results = {
      LeaveGroupMemberResult{"a", ErrorCode::kUnknownMember, "no such member"}};
  const auto lr_body =
      encode([&](WriteBuffer& b) { return encode_leave_group_response({results}, b); });
  auto lr = decode_leave_group_response(lr_body);
  ASSERT_TRUE(lr.ok());
  EXPECT_EQ(collect(lr->members)[0].error_code, ErrorCode::kUnknownMember);
}

TEST(GroupCodecs, TruncatedLyingAndTrailingBodiesAreRejected) {
  HeartbeatRequest hb{
      .group_id = "g", .member_id = "a", .generation_id = 7, .group_instance_id = std::nullopt};
  auto body = encode([&](WriteBuffer& b) { return encode_heartbeat_request(hb, b); });
  for (size_t n = 0; n < body.size(); ++n) {
    EXPECT_FALSE(decode_heartbeat_request(std::span(body).first(n)).ok()) << n;
  }
  body.push_back(std::byte{0});
  EXPECT_EQ(decode_heartbeat_request(body).status().code(), ErrorCode::kCorruptMessage);
  // A protocol count far above the bytes left.
  std::vector<std::byte> lying = {
      std::byte{0},    std::byte{1},    std::byte{'g'},  // group_id
      std::byte{0},    std::byte{0},                     // member_id ""
      std::byte{0xff}, std::byte{0xff},                  // instance null
      std::byte{0},    std::byte{0},    std::byte{0},    std::byte{1},   std::byte{0},
      std::byte{0},    std::byte{0},    std::byte{1},    std::byte{0},   std::byte{0},  // type ""
      std::byte{0x7f}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}};
  EXPECT_FALSE(decode_join_group_request(lying).ok());
}

}  // namespace
}  // namespace spillway::messages
