// Round trips, exact bytes and malformed input for the group administration
// codecs (messages/group_admin.h, docs/protocol.md).
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "spillway/common/endian.h"
#include "spillway/common/messages/group_admin.h"

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

template <typename T>
std::vector<T> collect(const Array<T>& a) {
  std::vector<T> out;
  for (const T& v : a) out.push_back(v);
  return out;
}

std::span<const std::byte> bytes_of(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

TEST(GroupAdminCodec, ListGroupsRoundTrip) {
  const auto body = encode([](WriteBuffer& b) { return encode_list_groups_request({}, b); });
  EXPECT_TRUE(body.empty());
  EXPECT_TRUE(decode_list_groups_request(body).ok());

  const std::array<ListedGroup, 2> groups = {ListedGroup{"a", "consumer", "Stable"},
                                             ListedGroup{"b", "", "Empty"}};
  const auto rbody = encode(
      [&](WriteBuffer& b) { return encode_list_groups_response(ListGroupsResponse{groups}, b); });
  // i32 count, then per group three strings (i16 length + bytes).
  EXPECT_EQ(rbody.size(), 4u + (2 + 1 + 2 + 8 + 2 + 6) + (2 + 1 + 2 + 0 + 2 + 5));
  auto got = decode_list_groups_response(rbody);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  auto g = collect(got->groups);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].group, "a");
  EXPECT_EQ(g[0].protocol_type, "consumer");
  EXPECT_EQ(g[0].state, "Stable");
  EXPECT_EQ(g[1].state, "Empty");
}

TEST(GroupAdminCodec, DescribeGroupsRoundTrip) {
  const std::array<std::string_view, 2> names = {"g1", "missing"};
  const auto body =
      encode([&](WriteBuffer& b) { return encode_describe_groups_request({names}, b); });
  auto req = decode_describe_groups_request(body);
  ASSERT_TRUE(req.ok());
  EXPECT_EQ(collect(req->groups), (std::vector<std::string_view>{"g1", "missing"}));

  const std::string assignment = "\x00\x01 some bytes";
  const std::array<DescribedMember, 2> members = {
      DescribedMember{"m-1", std::nullopt, "client-a", "/127.0.0.1", bytes_of(assignment)},
      DescribedMember{"m-2", "instance-2", "client-b", "/10.0.0.2", {}}};
  const std::array<DescribedGroup, 2> groups = {
      DescribedGroup{.group = "g1",
                     .error_code = ErrorCode::kOk,
                     .error_message = "",
                     .state = "Stable",
                     .protocol_type = "consumer",
                     .protocol = "range",
                     .generation = 7,
                     .members = members},
      DescribedGroup{.group = "missing",
                     .error_code = ErrorCode::kUnknownGroup,
                     .error_message = "unknown group missing",
                     .state = "Dead",
                     .protocol_type = "",
                     .protocol = "",
                     .generation = -1,
                     .members = {}}};
  const auto rbody = encode([&](WriteBuffer& b) {
    return encode_describe_groups_response(DescribeGroupsResponse{groups}, b);
  });
  auto got = decode_describe_groups_response(rbody);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  auto g = collect(got->groups);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].group, "g1");
  EXPECT_EQ(g[0].state, "Stable");
  EXPECT_EQ(g[0].protocol, "range");
  EXPECT_EQ(g[0].generation, 7);
  auto m = collect(g[0].members);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].member_id, "m-1");
  EXPECT_FALSE(m[0].group_instance_id.has_value());
  EXPECT_EQ(m[0].client_host, "/127.0.0.1");
  EXPECT_EQ(
      std::string(reinterpret_cast<const char*>(m[0].assignment.data()), m[0].assignment.size()),
      assignment);
  EXPECT_EQ(m[1].group_instance_id, std::optional<std::string_view>("instance-2"));
  EXPECT_TRUE(m[1].assignment.empty());
  EXPECT_EQ(g[1].error_code, ErrorCode::kUnknownGroup);
  EXPECT_EQ(g[1].error_message, "unknown group missing");
  EXPECT_EQ(g[1].members.size(), 0);
}

TEST(GroupAdminCodec, DeleteGroupsRoundTripAndExactBytes) {
  const std::array<std::string_view, 1> names = {"g"};
  const auto body =
      encode([&](WriteBuffer& b) { return encode_delete_groups_request({names}, b); });
  const std::vector<std::byte> expected = {std::byte{0}, std::byte{0}, std::byte{0},  std::byte{1},
                                           std::byte{0}, std::byte{1}, std::byte{'g'}};
  EXPECT_EQ(body, expected);
  auto req = decode_delete_groups_request(body);
  ASSERT_TRUE(req.ok());
  EXPECT_EQ(collect(req->groups), (std::vector<std::string_view>{"g"}));

  const std::array<DeletedGroup, 2> results = {
      DeletedGroup{"g", ErrorCode::kOk, ""},
      DeletedGroup{"busy", ErrorCode::kGroupNotEmpty, "group busy has 2 members"}};
  const auto rbody =
      encode([&](WriteBuffer& b) { return encode_delete_groups_response({results}, b); });
  auto got = decode_delete_groups_response(rbody);
  ASSERT_TRUE(got.ok());
  auto r = collect(got->groups);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].error_code, ErrorCode::kOk);
  EXPECT_EQ(r[1].group, "busy");
  EXPECT_EQ(r[1].error_code, ErrorCode::kGroupNotEmpty);
  EXPECT_EQ(r[1].error_message, "group busy has 2 members");
}

TEST(GroupAdminCodec, MalformedBodiesAreRejected) {
  const std::array<std::string_view, 2> names = {"g1", "g2"};
  const auto body =
      encode([&](WriteBuffer& b) { return encode_describe_groups_request({names}, b); });
  // Truncated anywhere.
  for (size_t n = 0; n < body.size(); ++n) {
    EXPECT_FALSE(decode_describe_groups_request(std::span<const std::byte>(body.data(), n)).ok())
        << n;
  }
  // Trailing bytes.
  std::vector<std::byte> longer = body;
  longer.push_back(std::byte{0});
  EXPECT_FALSE(decode_describe_groups_request(longer).ok());
  // A count claiming more groups than bytes left; a negative (null) count.
  std::vector<std::byte> lying = body;
  store_be<int32_t>(lying.data(), 1'000'000);
  EXPECT_FALSE(decode_describe_groups_request(lying).ok());
  store_be<int32_t>(lying.data(), -1);
  EXPECT_FALSE(decode_delete_groups_request(lying).ok());
  // ListGroups has an empty body: anything in it is an error.
  EXPECT_FALSE(decode_list_groups_request(body).ok());
}

}  // namespace
}  // namespace spillway::messages
