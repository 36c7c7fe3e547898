// Kafka request and response headers (kafka/header.h), the api key table
// and header-version rule (kafka/api_keys.h), and the error code table
// (kafka/error_codes.h). Header goldens v1 and v2 are librdkafka 2.0.2's
// (see kafka_golden_test.cc for how they were captured).
#include <gtest/gtest.h>

#include <set>

#include "kafka_testing.h"
#include "spillway/common/kafka/api_keys.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/header.h"

namespace spillway::kafka {
namespace {

using spillway::testing::unhex;
using spillway::testing::written;
using Bytes = std::vector<std::byte>;

Bytes request_header(const RequestHeader& h, int16_t version) {
  return written([&](WriteBuffer& out) { return encode_request_header(h, version, out); });
}

// librdkafka 2.0.2's Metadata v1 request header: v1.
const Bytes kHeaderV1 = unhex("0003 0001 00000002 0007 72646b61666b61");
// librdkafka 2.0.2's ApiVersions v3 request header: v2, client_id still an
// INT16-length string, then an empty tag buffer.
const Bytes kHeaderV2 = unhex("0012 0003 00000001 0007 72646b61666b61 00");

TEST(KafkaHeader, RequestHeaderV1Golden) {
  EXPECT_EQ(request_header({3, 1, 2, "rdkafka"}, 1), kHeaderV1);
  const Bytes body = unhex("00000001 0001 74");
  Bytes frame = kHeaderV1;
  frame.insert(frame.end(), body.begin(), body.end());
  Result<RequestFrame> r = decode_request_header(frame);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->header_version, 1);
  EXPECT_EQ(r->header.request_api_key, 3);
  EXPECT_EQ(r->header.request_api_version, 1);
  EXPECT_EQ(r->header.correlation_id, 2);
  EXPECT_EQ(r->header.client_id, "rdkafka");
  EXPECT_EQ(Bytes(r->body.begin(), r->body.end()), body);
}

TEST(KafkaHeader, RequestHeaderV2Golden) {
  EXPECT_EQ(request_header({18, 3, 1, "rdkafka"}, 2), kHeaderV2);
  Result<RequestFrame> r = decode_request_header(kHeaderV2);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->header_version, 2);
  EXPECT_EQ(r->header.client_id, "rdkafka");
  EXPECT_TRUE(r->body.empty());
}

TEST(KafkaHeader, NullClientIdAndHeaderV0) {
  EXPECT_EQ(request_header({3, 9, 7, std::nullopt}, 2), unhex("0003 0009 00000007 ffff 00"));
  Result<RequestFrame> r = decode_request_header(unhex("0003 0009 00000007 ffff 00"));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->header.client_id, std::nullopt);
  EXPECT_EQ(request_header({3, 0, 7, "ignored"}, 0), unhex("0003 0000 00000007"));
  WriteBuffer out{std::span<std::byte>()};
  EXPECT_EQ(encode_request_header({}, 3, out).code(), ErrorCode::kInvalidArgument);
}

TEST(KafkaHeader, UnknownTagsInARequestHeaderAreSkipped) {
  // Header v2 with two tags (0: 1 byte, 5: 2 bytes), then a body byte.
  const Bytes frame = unhex("0012 0003 00000001 0001 78 02 00 01 aa 05 02 bbcc 42");
  Result<RequestFrame> r = decode_request_header(frame);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->header.client_id, "x");
  ASSERT_EQ(r->body.size(), 1u);
  EXPECT_EQ(r->body[0], std::byte{0x42});
}

TEST(KafkaHeader, EveryTruncatedRequestHeaderIsRefused) {
  for (const Bytes& header : {kHeaderV1, kHeaderV2}) {
    for (size_t n = 0; n < header.size(); ++n) {
      Result<RequestFrame> r = decode_request_header(std::span(header).first(n));
      ASSERT_FALSE(r.ok()) << n;
      EXPECT_EQ(r.status().code(), ErrorCode::kCorruptMessage);
    }
  }
  Result<RequestFrame> r = decode_request_header(unhex("0003 0001 00000002 0007 7264"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "malformed request header v1 (field client_id)");
}

TEST(KafkaHeader, ResponseHeaders) {
  EXPECT_EQ(written([](WriteBuffer& out) { return encode_response_header(7, 0, out); }),
            unhex("00000007"));
  EXPECT_EQ(written([](WriteBuffer& out) { return encode_response_header(7, 1, out); }),
            unhex("00000007 00"));
  const Bytes frame = unhex("00000007 01 03 01 ff 99");  // v1 with an unknown tag, then body
  std::span<const std::byte> body;
  Result<ResponseHeader> r = decode_response_header(frame, 1, &body);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->correlation_id, 7);
  ASSERT_EQ(body.size(), 1u);
  EXPECT_FALSE(decode_response_header(unhex("00000007"), 1, &body).ok());
  WriteBuffer out{std::span<std::byte>()};
  EXPECT_EQ(encode_response_header(7, 2, out).code(), ErrorCode::kInvalidArgument);
}

TEST(KafkaHeader, HeaderVersionFollowsTheBodysFlexibility) {
  const auto key = [](ApiKey k) { return static_cast<int16_t>(k); };
  EXPECT_EQ(request_header_version(key(ApiKey::kApiVersions), 0), 1);
  EXPECT_EQ(request_header_version(key(ApiKey::kApiVersions), 3), 2);
  EXPECT_EQ(request_header_version(key(ApiKey::kApiVersions), 4), 2);  // above the served range
  EXPECT_EQ(request_header_version(key(ApiKey::kMetadata), 8), 1);
  EXPECT_EQ(request_header_version(key(ApiKey::kMetadata), 9), 2);
  EXPECT_EQ(request_header_version(key(ApiKey::kFetch), 11), 1);
  EXPECT_EQ(request_header_version(key(ApiKey::kFetch), 12), 2);
  EXPECT_EQ(request_header_version(key(ApiKey::kSaslHandshake), 1), 1);  // never flexible
  EXPECT_EQ(request_header_version(key(ApiKey::kDescribeCluster), 0), 2);
  EXPECT_EQ(request_header_version(999, 5), 1);  // unknown api key
  // ApiVersions responses always use header v0.
  EXPECT_EQ(response_header_version(key(ApiKey::kApiVersions), 3), 0);
  EXPECT_EQ(response_header_version(key(ApiKey::kMetadata), 8), 0);
  EXPECT_EQ(response_header_version(key(ApiKey::kMetadata), 9), 1);
  EXPECT_EQ(response_header_version(key(ApiKey::kProduce), 9), 1);
  EXPECT_EQ(response_header_version(999, 5), 0);
}

TEST(KafkaApiKeys, TableIsSortedAndEveryEntryIsWellFormed) {
  for (size_t i = 0; i < kApis.size(); ++i) {
    const ApiInfo& api = kApis[i];
    SCOPED_TRACE(api.name);
    if (i > 0) {
      EXPECT_LT(static_cast<int16_t>(kApis[i - 1].key), static_cast<int16_t>(api.key));
    }
    EXPECT_FALSE(api.name.empty());
    EXPECT_FALSE(api.versions.empty());
    EXPECT_GE(api.versions.first, 0);
    EXPECT_EQ(find_api(static_cast<int16_t>(api.key)), &api);
  }
  EXPECT_EQ(find_api(4), nullptr);  // LeaderAndIsr: not described
  EXPECT_EQ(api_info(ApiKey::kFetch).name, "Fetch");
  static_assert(api_info(ApiKey::kApiVersions).flexible_from == 3);
  static_assert(api_info(ApiKey::kProduce).versions.last == 9);
}

TEST(KafkaErrorCodes, TableIsSortedUniqueAndMatchesTheConstants) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < kErrors.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(kErrors[i - 1].code, kErrors[i].code);
    }
    EXPECT_TRUE(names.insert(kErrors[i].name).second) << kErrors[i].name;
    EXPECT_EQ(find_error(kErrors[i].code), &kErrors[i]);
  }
  EXPECT_EQ(kErrors.front().code, errors::kUnknownServerError);
  EXPECT_EQ(kErrors.back().code, 128);
  // The codes Spillway answers with, as Kafka numbers them.
  EXPECT_EQ(errors::kOffsetOutOfRange, 1);
  EXPECT_EQ(errors::kCorruptMessage, 2);
  EXPECT_EQ(errors::kUnknownTopicOrPartition, 3);
  EXPECT_EQ(errors::kNotLeaderOrFollower, 6);
  EXPECT_EQ(errors::kRequestTimedOut, 7);
  EXPECT_EQ(errors::kMessageTooLarge, 10);
  EXPECT_EQ(errors::kInvalidTopicException, 17);
  EXPECT_EQ(errors::kUnsupportedVersion, 35);
  EXPECT_EQ(errors::kTopicAlreadyExists, 36);
  EXPECT_EQ(errors::kInvalidRequest, 42);
  EXPECT_EQ(errors::kOutOfOrderSequenceNumber, 45);
  EXPECT_EQ(errors::kDuplicateSequenceNumber, 46);
  EXPECT_EQ(errors::kInvalidProducerEpoch, 47);
  EXPECT_EQ(errors::kUnknownProducerId, 59);
  EXPECT_EQ(errors::kProducerFenced, 90);
  // Retriable: the client retries by itself.
  EXPECT_TRUE(find_error(errors::kNotLeaderOrFollower)->retriable);
  EXPECT_TRUE(find_error(errors::kUnknownTopicOrPartition)->retriable);
  EXPECT_TRUE(find_error(errors::kCorruptMessage)->retriable);
  EXPECT_TRUE(find_error(errors::kRequestTimedOut)->retriable);
  EXPECT_TRUE(find_error(errors::kCoordinatorLoadInProgress)->retriable);
  EXPECT_FALSE(find_error(errors::kMessageTooLarge)->retriable);
  EXPECT_FALSE(find_error(errors::kOutOfOrderSequenceNumber)->retriable);
  EXPECT_FALSE(find_error(errors::kUnsupportedVersion)->retriable);
  EXPECT_EQ(error_name(35), "UNSUPPORTED_VERSION");
  EXPECT_EQ(error_name(-2), "UNKNOWN");
  EXPECT_EQ(find_error(9999), nullptr);
}

}  // namespace
}  // namespace spillway::kafka
