// Round trips, exact bytes and malformed input for the native ACL codecs
// (messages/acls.h, docs/protocol.md "DescribeAcls").
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "spillway/common/messages/acls.h"

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

const AclBindingBody kRule{.resource_type = 2,
                           .resource_name = "orders",
                           .pattern_type = 3,
                           .principal = "User:alice",
                           .host = "*",
                           .operation = 4,
                           .permission = 3};

TEST(AclCodec, DescribeFilterNullsRoundTrip) {
  AclFilterBody filter;  // every string null, every enum Any
  filter.principal = "User:alice";
  const auto body =
      encode([&](WriteBuffer& b) { return encode_describe_acls_request({filter}, b); });
  // i8, null string (i16 -1), i8, "User:alice", null, i8, i8.
  EXPECT_EQ(body.size(), 1u + 2 + 1 + (2 + 10) + 2 + 1 + 1);
  auto got = decode_describe_acls_request(body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->filter.resource_type, 1);
  EXPECT_FALSE(got->filter.resource_name.has_value());
  ASSERT_TRUE(got->filter.principal.has_value());
  EXPECT_EQ(*got->filter.principal, "User:alice");
  EXPECT_FALSE(got->filter.host.has_value());
  EXPECT_EQ(got->filter.operation, 1);

  const std::array<AclBindingBody, 1> rules = {kRule};
  const auto rbody =
      encode([&](WriteBuffer& b) { return encode_describe_acls_response({rules}, b); });
  auto listed = decode_describe_acls_response(rbody);
  ASSERT_TRUE(listed.ok()) << listed.status().to_string();
  auto r = collect(listed->bindings);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].resource_name, "orders");
  EXPECT_EQ(r[0].principal, "User:alice");
  EXPECT_EQ(r[0].operation, 4);
}

TEST(AclCodec, CreateAndDeleteRoundTrip) {
  const std::array<AclBindingBody, 2> rules = {kRule, kRule};
  const auto body = encode([&](WriteBuffer& b) { return encode_create_acls_request({rules}, b); });
  auto got = decode_create_acls_request(body);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->bindings.size(), 2);

  const std::array<AclCreationResult, 2> results = {
      AclCreationResult{},
      AclCreationResult{.error_code = ErrorCode::kInvalidArgument, .error_message = "bad"}};
  // Decoded views point into the body: keep it.
  const auto cbody =
      encode([&](WriteBuffer& b) { return encode_create_acls_response({results}, b); });
  auto created = decode_create_acls_response(cbody);
  ASSERT_TRUE(created.ok()) << created.status().to_string();
  auto c = collect(created->results);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].error_code, ErrorCode::kOk);
  EXPECT_EQ(c[1].error_code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(c[1].error_message.text, "bad");

  const std::array<AclFilterBody, 1> filters = {AclFilterBody{}};
  const auto dbody =
      encode([&](WriteBuffer& b) { return encode_delete_acls_request({filters}, b); });
  auto del = decode_delete_acls_request(dbody);
  ASSERT_TRUE(del.ok()) << del.status().to_string();
  EXPECT_EQ(del->filters.size(), 1);

  const std::array<AclDeletionResult, 1> deleted = {
      AclDeletionResult{.error_code = ErrorCode::kOk, .error_message = {}, .removed = rules}};
  const auto drbody =
      encode([&](WriteBuffer& b) { return encode_delete_acls_response({deleted}, b); });
  auto d = decode_delete_acls_response(drbody);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  auto dr = collect(d->results);
  ASSERT_EQ(dr.size(), 1u);
  EXPECT_EQ(collect(dr[0].removed).size(), 2u);
}

TEST(AclCodec, TruncatedAndOversizedCountsFail) {
  const std::array<AclBindingBody, 1> rules = {kRule};
  auto body = encode([&](WriteBuffer& b) { return encode_create_acls_request({rules}, b); });
  body.pop_back();
  EXPECT_FALSE(decode_create_acls_request(body).ok());
  // A count far beyond the bytes that follow.
  const std::vector<std::byte> huge = {std::byte{0x7f}, std::byte{0xff}, std::byte{0xff},
                                       std::byte{0xff}};
  EXPECT_FALSE(decode_delete_acls_request(huge).ok());
  EXPECT_FALSE(decode_describe_acls_response(huge).ok());
}

}  // namespace
}  // namespace spillway::messages
