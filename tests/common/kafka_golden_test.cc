// Byte-exact Kafka requests and responses against the descriptions in
// common/kafka/*.h: each golden decodes to the expected fields, the same
// message built by hand encodes to exactly the golden bytes, and every
// truncation of a golden is refused.
//
// Where the bytes come from:
//  - "librdkafka 2.0.2": frames (without the INT32 size) that kcat 1.7.1 on
//    librdkafka 2.0.2 (Debian 12) sent to a throwaway listener on loopback.
//    The listener's ApiVersions answer offered one version per API, so the
//    client used exactly the version under test; answering v3 with
//    UNSUPPORTED_VERSION made it retry ApiVersions at v0.
//  - "accepted by librdkafka": responses that listener sent, written by hand
//    from the protocol guide, which librdkafka accepted (it went on to its
//    next request; the producer reported the record delivered).
//  - "@platformatic/kafka 2.12.1": bodies from the request encoders of that
//    independent JavaScript client (npm), for versions librdkafka 2.0.2 does
//    not send (Metadata v9, Produce v9, Fetch v12); each was also checked
//    field by field against the protocol guide.
//  - "by hand": from the protocol guide alone.
#include <gtest/gtest.h>

#include "kafka_testing.h"
#include "spillway/common/kafka/api_versions.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/fetch.h"
#include "spillway/common/kafka/header.h"
#include "spillway/common/kafka/metadata.h"
#include "spillway/common/kafka/produce.h"

namespace spillway::kafka {
namespace {

using spillway::testing::concat;
using spillway::testing::encoded;
using spillway::testing::same_bytes;
using spillway::testing::unhex;
using spillway::testing::written;
using Bytes = std::vector<std::byte>;

// Every strict prefix of `body` fails to decode as T, with kCorruptMessage.
template <typename T>
void expect_truncations_refused(const Bytes& body, int16_t version) {
  for (size_t n = 0; n < body.size(); ++n) {
    Result<T> r = wire::decode<T>(std::span(body).first(n), context<T>(version), "golden");
    ASSERT_FALSE(r.ok()) << n << " of " << body.size() << " bytes";
    EXPECT_EQ(r.status().code(), ErrorCode::kCorruptMessage);
  }
}

// Splits a request frame into header and body, expecting the header
// librdkafka sends (client id "rdkafka").
RequestFrame split(const Bytes& frame, ApiKey key, int16_t version, int32_t correlation_id) {
  Result<RequestFrame> r = decode_request_header(frame);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return {};
  EXPECT_EQ(r->header.request_api_key, static_cast<int16_t>(key));
  EXPECT_EQ(r->header.request_api_version, version);
  EXPECT_EQ(r->header.correlation_id, correlation_id);
  EXPECT_EQ(r->header.client_id, "rdkafka");
  EXPECT_EQ(r->header_version, request_header_version(static_cast<int16_t>(key), version));
  return *r;
}

// The frame of a request built by hand: header (client id "rdkafka") and
// body, as the broker's client side would write them.
template <typename T>
Bytes request_frame(const T& body, int16_t version, int32_t correlation_id) {
  const RequestHeader header{static_cast<int16_t>(T::kApiKey), version, correlation_id, "rdkafka"};
  const int16_t header_version = request_header_version(header.request_api_key, version);
  return concat(
      written([&](WriteBuffer& out) { return encode_request_header(header, header_version, out); }),
      encoded(body, context<T>(version)));
}

// Every strict prefix of a request frame fails: in the header or the body.
template <typename T>
void expect_frame_truncations_refused(const Bytes& frame) {
  for (size_t n = 0; n < frame.size(); ++n) {
    Result<RequestFrame> r = decode_request_header(std::span(frame).first(n));
    if (!r.ok()) continue;
    EXPECT_FALSE(wire::decode<T>(r->body, context<T>(r->header.request_api_version), "golden").ok())
        << n << " of " << frame.size() << " bytes";
  }
}

// --- ApiVersions ------------------------------------------------------------

// librdkafka 2.0.2: its first request, v3 (flexible: header v2).
const Bytes kApiVersionsV3Request = unhex(
    "0012 0003 00000001 0007 72646b61666b61 00"  // header v2: client_id "rdkafka", no tags
    "0b 6c696272646b61666b61"                    // client_software_name "librdkafka"
    "06 322e302e32"                              // client_software_version "2.0.2"
    "00");                                       // no tags

TEST(KafkaGolden, ApiVersionsV3RequestFromLibrdkafka) {
  const RequestFrame frame = split(kApiVersionsV3Request, ApiKey::kApiVersions, 3, 1);
  EXPECT_EQ(frame.header_version, 2);
  Result<ApiVersionsRequest> r =
      wire::decode<ApiVersionsRequest>(frame.body, context<ApiVersionsRequest>(3), "ApiVersions");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->client_software_name, "librdkafka");
  EXPECT_EQ(r->client_software_version, "2.0.2");
  EXPECT_EQ(request_frame(ApiVersionsRequest{"librdkafka", "2.0.2"}, 3, 1), kApiVersionsV3Request);
  expect_truncations_refused<ApiVersionsRequest>(Bytes(frame.body.begin(), frame.body.end()), 3);
  expect_frame_truncations_refused<ApiVersionsRequest>(kApiVersionsV3Request);
}

// librdkafka 2.0.2: its retry after UNSUPPORTED_VERSION, v0 (header v1,
// empty body).
const Bytes kApiVersionsV0Request = unhex("0012 0000 00000002 0007 72646b61666b61");

TEST(KafkaGolden, ApiVersionsV0RequestFromLibrdkafka) {
  const RequestFrame frame = split(kApiVersionsV0Request, ApiKey::kApiVersions, 0, 2);
  EXPECT_EQ(frame.header_version, 1);
  EXPECT_TRUE(frame.body.empty());
  EXPECT_TRUE(
      wire::decode<ApiVersionsRequest>(frame.body, context<ApiVersionsRequest>(0), "ApiVersions")
          .ok());
  EXPECT_EQ(request_frame(ApiVersionsRequest{}, 0, 2), kApiVersionsV0Request);
  expect_frame_truncations_refused<ApiVersionsRequest>(kApiVersionsV0Request);
}

// Accepted by librdkafka: the answer to its v3 request when the broker
// serves only ApiVersions v0: error 35 and the api list in the v0 layout,
// after a v0 response header. librdkafka then retried at v0.
const Bytes kApiVersionsUnsupportedResponse = unhex(
    "00000001"                   // response header v0: correlation id
    "0023"                       // error_code 35 UNSUPPORTED_VERSION
    "00000001 0012 0000 0000");  // api_keys: ApiVersions 0-0

TEST(KafkaGolden, ApiVersionsUnsupportedVersionResponseInTheV0Layout) {
  const std::array<ApiVersionsResponse::ApiVersion, 1> apis = {{{18, 0, 0}}};
  ApiVersionsResponse response;
  response.error_code = errors::kUnsupportedVersion;
  response.api_keys = apis;
  const int16_t header_version = response_header_version(18, 3);
  EXPECT_EQ(header_version, 0);
  const Bytes frame = concat(
      written([&](WriteBuffer& out) { return encode_response_header(1, header_version, out); }),
      encoded(response, context<ApiVersionsResponse>(0)));
  EXPECT_EQ(frame, kApiVersionsUnsupportedResponse);
}

// Accepted by librdkafka: the v0 answer to its v0 retry, serving
// ApiVersions 0-0 and Metadata 0-9.
const Bytes kApiVersionsV0Response = unhex(
    "0000"              // error_code
    "00000002"          // api_keys: 2
    "0012 0000 0000"    //   ApiVersions 0-0
    "0003 0000 0009");  //   Metadata 0-9

TEST(KafkaGolden, ApiVersionsV0Response) {
  const std::array<ApiVersionsResponse::ApiVersion, 2> apis = {{{18, 0, 0}, {3, 0, 9}}};
  ApiVersionsResponse response;
  response.api_keys = apis;
  response.throttle_time_ms = 5;  // v1+: not in v0
  EXPECT_EQ(encoded(response, context<ApiVersionsResponse>(0)), kApiVersionsV0Response);
  Result<ApiVersionsResponse> r = wire::decode<ApiVersionsResponse>(
      kApiVersionsV0Response, context<ApiVersionsResponse>(0), "ApiVersions");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->api_keys.size(), 2);
  auto it = r->api_keys.begin();
  ++it;
  EXPECT_EQ(it->api_key, 3);
  EXPECT_EQ(it->max_version, 9);
  expect_truncations_refused<ApiVersionsResponse>(kApiVersionsV0Response, 0);
}

// Accepted by librdkafka: the v3 answer (compact array, a tag buffer per
// entry and at the end, throttle time), serving ApiVersions 0-3, Metadata
// 1-1, Produce 3-3 and Fetch 4-4. The response header stays v0.
const Bytes kApiVersionsV3Response = unhex(
    "0000"               // error_code
    "05"                 // api_keys: 4 (compact)
    "0012 0000 0003 00"  //   ApiVersions 0-3, no tags
    "0003 0001 0001 00"  //   Metadata 1-1
    "0000 0003 0003 00"  //   Produce 3-3
    "0001 0004 0004 00"  //   Fetch 4-4
    "00000000"           // throttle_time_ms
    "00");               // no tags: no features, finalized_features_epoch -1

TEST(KafkaGolden, ApiVersionsV3Response) {
  const std::array<ApiVersionsResponse::ApiVersion, 4> apis = {
      {{18, 0, 3}, {3, 1, 1}, {0, 3, 3}, {1, 4, 4}}};
  ApiVersionsResponse response;
  response.api_keys = apis;
  EXPECT_EQ(encoded(response, context<ApiVersionsResponse>(3)), kApiVersionsV3Response);
  EXPECT_EQ(response_header_version(18, 3), 0);
  Result<ApiVersionsResponse> r = wire::decode<ApiVersionsResponse>(
      kApiVersionsV3Response, context<ApiVersionsResponse>(3), "ApiVersions");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->api_keys.size(), 4);
  EXPECT_EQ(r->finalized_features_epoch, -1);
  expect_truncations_refused<ApiVersionsResponse>(kApiVersionsV3Response, 3);
}

// By hand: a v3 response with the tagged fields a Kafka broker adds; a
// client that ignores them skips them.
TEST(KafkaGolden, ApiVersionsV3ResponseTaggedFeatures) {
  const std::array<ApiVersionsResponse::SupportedFeatureKey, 1> features = {
      {{"metadata.version", 1, 20}}};
  ApiVersionsResponse response;
  response.supported_features = features;
  response.finalized_features_epoch = 0;
  const Bytes expected = unhex(
      "0000 01 00000000"  // error_code, no api keys, throttle_time_ms
      "02"                // two tags
      "00 17"             // tag 0 supported_features, 23 bytes:
      "02 11 6d657461646174612e76657273696f6e 0001 0014 00"  // "metadata.version" 1-20
      "01 08 0000000000000000");  // tag 1 finalized_features_epoch 0 (not the default -1)
  EXPECT_EQ(encoded(response, context<ApiVersionsResponse>(3)), expected);
  expect_truncations_refused<ApiVersionsResponse>(expected, 3);
}

// --- Metadata ---------------------------------------------------------------

// librdkafka 2.0.2, producing to topic "t": Metadata v1 (header v1).
const Bytes kMetadataV1Request = unhex(
    "0003 0001 00000002 0007 72646b61666b61"  // header v1
    "00000001 0001 74");                      // topics: ["t"]

TEST(KafkaGolden, MetadataV1RequestFromLibrdkafka) {
  const RequestFrame frame = split(kMetadataV1Request, ApiKey::kMetadata, 1, 2);
  Result<MetadataRequest> r =
      wire::decode<MetadataRequest>(frame.body, context<MetadataRequest>(1), "Metadata");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->topics.size(), 1);
  EXPECT_EQ(r->topics.begin()->name, "t");
  EXPECT_TRUE(r->allow_auto_topic_creation);  // v4+: the default before
  const std::array<MetadataRequest::Topic, 1> topics = {{{Uuid{}, "t"}}};
  MetadataRequest request;
  request.topics = topics;
  EXPECT_EQ(request_frame(request, 1, 2), kMetadataV1Request);
  expect_frame_truncations_refused<MetadataRequest>(kMetadataV1Request);
  // A null topic list (all topics) is INT32 -1 from v1 on.
  request.topics = Array<MetadataRequest::Topic>::null();
  EXPECT_EQ(encoded(request, context<MetadataRequest>(1)), unhex("ffffffff"));
}

// @platformatic/kafka 2.12.1: Metadata v9 (flexible) for topic "t".
const Bytes kMetadataV9Request = unhex(
    "02 02 74 00"  // topics: ["t"] (compact), the topic's tag buffer
    "01"           // allow_auto_topic_creation
    "00"           // include_cluster_authorized_operations
    "00"           // include_topic_authorized_operations
    "00");         // no tags

TEST(KafkaGolden, MetadataV9Request) {
  Result<MetadataRequest> r =
      wire::decode<MetadataRequest>(kMetadataV9Request, context<MetadataRequest>(9), "Metadata");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->topics.size(), 1);
  EXPECT_EQ(r->topics.begin()->name, "t");
  EXPECT_TRUE(r->allow_auto_topic_creation);
  const std::array<MetadataRequest::Topic, 1> topics = {{{Uuid{}, "t"}}};
  MetadataRequest request;
  request.topics = topics;
  EXPECT_EQ(encoded(request, context<MetadataRequest>(9)), kMetadataV9Request);
  expect_truncations_refused<MetadataRequest>(kMetadataV9Request, 9);
}

// Accepted by librdkafka: Metadata v1 response, one broker 127.0.0.1:39092
// (node 1, also the controller) leading partition 0 of topic "t".
const Bytes kMetadataV1Response = unhex(
    "00000001 00000001 0009 3132372e302e302e31 000098b4 ffff"  // brokers: 1, "127.0.0.1", null rack
    "00000001"                                                 // controller_id
    "00000001 0000 0001 74 00"                                 // topics: "t", not internal
    "00000001 0000 00000000 00000001"                          // partition 0, leader 1
    "00000001 00000001 00000001 00000001");                    // replicas [1], isr [1]

TEST(KafkaGolden, MetadataV1Response) {
  const std::array<MetadataResponse::Broker, 1> brokers = {{{1, "127.0.0.1", 39092, std::nullopt}}};
  const std::array<int32_t, 1> replicas = {1};
  std::array<MetadataResponse::Partition, 1> partitions{};
  partitions[0].leader_id = 1;
  partitions[0].replica_nodes = replicas;
  partitions[0].isr_nodes = replicas;
  std::array<MetadataResponse::Topic, 1> topics{};
  topics[0].name = "t";
  topics[0].partitions = partitions;
  MetadataResponse response;
  response.brokers = brokers;
  response.cluster_id = "c1";  // v2+: not in v1
  response.controller_id = 1;
  response.topics = topics;
  EXPECT_EQ(encoded(response, context<MetadataResponse>(1)), kMetadataV1Response);
  Result<MetadataResponse> r =
      wire::decode<MetadataResponse>(kMetadataV1Response, context<MetadataResponse>(1), "Metadata");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->brokers.begin()->port, 39092);
  EXPECT_EQ(r->brokers.begin()->rack, std::nullopt);
  EXPECT_EQ(r->cluster_id, std::nullopt);
  EXPECT_EQ(r->topics.begin()->partitions.begin()->leader_epoch, -1);  // v7+: default
  expect_truncations_refused<MetadataResponse>(kMetadataV1Response, 1);
}

// --- Produce ----------------------------------------------------------------

// The record batch librdkafka 2.0.2 produced for key "k", value "v"
// (RecordBatch v2, no producer id, one record).
const Bytes kBatch = unhex(
    "0000000000000000 0000003a 00000000 02 97333700 0000 00000000"
    "000001a22dc921f5 000001a22dc921f5 ffffffffffffffff ffff ffffffff 00000001"
    "10 00 00 00 02 6b 02 76 00");

// librdkafka 2.0.2: Produce v3, acks=all, one partition.
const Bytes kProduceV3Request = concat(unhex("0000 0003 00000003 0007 72646b61666b61"  // header v1
                                             "ffff"               // transactional_id: null
                                             "ffff"               // acks -1
                                             "00007530"           // timeout_ms 30000
                                             "00000001 0001 74"   // topic_data: "t"
                                             "00000001 00000000"  // partition_data: 0
                                             "00000046"),         // records: 70 bytes
                                       kBatch);

TEST(KafkaGolden, ProduceV3RequestFromLibrdkafka) {
  ASSERT_EQ(kBatch.size(), 70u);
  const RequestFrame frame = split(kProduceV3Request, ApiKey::kProduce, 3, 3);
  Result<ProduceRequest> r =
      wire::decode<ProduceRequest>(frame.body, context<ProduceRequest>(3), "Produce");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->transactional_id, std::nullopt);
  EXPECT_EQ(r->acks, -1);
  EXPECT_EQ(r->timeout_ms, 30000);
  ASSERT_EQ(r->topic_data.size(), 1);
  // Copies: a decoded array parses each element into its iterator.
  const ProduceRequest::Topic topic = *r->topic_data.begin();
  EXPECT_EQ(topic.name, "t");
  ASSERT_EQ(topic.partition_data.size(), 1);
  EXPECT_EQ(topic.partition_data.begin()->index, 0);
  EXPECT_TRUE(same_bytes(topic.partition_data.begin()->records.bytes, kBatch));

  const std::array<ProduceRequest::Partition, 1> partitions = {{{0, Records{.bytes = kBatch}}}};
  const std::array<ProduceRequest::Topic, 1> topics = {{{"t", partitions}}};
  const ProduceRequest request{std::nullopt, -1, 30000, topics};
  EXPECT_EQ(request_frame(request, 3, 3), kProduceV3Request);
  expect_frame_truncations_refused<ProduceRequest>(kProduceV3Request);
}

// Accepted by librdkafka (the record was reported delivered): Produce v3
// response, base offset 0, no log append time.
const Bytes kProduceV3Response = unhex(
    "00000001 0001 74"                                          // responses: "t"
    "00000001 00000000 0000 0000000000000000 ffffffffffffffff"  // partition 0: ok, offset 0, -1
    "00000000");                                                // throttle_time_ms

TEST(KafkaGolden, ProduceV3Response) {
  const std::array<ProduceResponse::Partition, 1> partitions{};  // partition 0, offset 0
  const std::array<ProduceResponse::Topic, 1> topics = {{{"t", partitions}}};
  ProduceResponse response;
  response.responses = topics;
  EXPECT_EQ(encoded(response, context<ProduceResponse>(3)), kProduceV3Response);
  expect_truncations_refused<ProduceResponse>(kProduceV3Response, 3);
}

// @platformatic/kafka 2.12.1: Produce v9 (flexible), acks=all, its own
// batch for key "k", value "v".
const Bytes kProduceV9Batch = unhex(
    "0000000000000000 0000003a 00000000 02 913ca1a6 0000 00000000"
    "0000018bcfe56800 0000018bcfe56800 ffffffffffffffff 0000 00000000 00000001"
    "10 00 00 00 02 6b 02 76 00");
const Bytes kProduceV9Request = concat(concat(unhex("00"           // transactional_id: null
                                                    "ffff"         // acks -1
                                                    "00007530"     // timeout_ms 30000
                                                    "02 02 74"     // topic_data: "t"
                                                    "02 00000000"  // partition_data: 0
                                                    "47"),         // records: 70 bytes
                                              kProduceV9Batch),
                                       unhex("00"     // the partition's tags
                                             "00"     // the topic's tags
                                             "00"));  // the request's tags

TEST(KafkaGolden, ProduceV9Request) {
  Result<ProduceRequest> r =
      wire::decode<ProduceRequest>(kProduceV9Request, context<ProduceRequest>(9), "Produce");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->transactional_id, std::nullopt);
  EXPECT_EQ(r->acks, -1);
  ASSERT_EQ(r->topic_data.size(), 1);
  EXPECT_TRUE(
      same_bytes(r->topic_data.begin()->partition_data.begin()->records.bytes, kProduceV9Batch));
  const std::array<ProduceRequest::Partition, 1> partitions = {
      {{0, Records{.bytes = kProduceV9Batch}}}};
  const std::array<ProduceRequest::Topic, 1> topics = {{{"t", partitions}}};
  const ProduceRequest request{std::nullopt, -1, 30000, topics};
  EXPECT_EQ(encoded(request, context<ProduceRequest>(9)), kProduceV9Request);
  expect_truncations_refused<ProduceRequest>(kProduceV9Request, 9);
}

// --- Fetch ------------------------------------------------------------------

// librdkafka 2.0.2, consuming partition 0 of "t" from offset 0: Fetch v4.
const Bytes kFetchV4Request = unhex(
    "0001 0004 00000004 0007 72646b61666b61"  // header v1
    "ffffffff"                                // replica_id -1
    "000001f4"                                // max_wait_ms 500
    "00000001"                                // min_bytes 1
    "03200000"                                // max_bytes 52428800
    "00"                                      // isolation_level: read uncommitted
    "00000001 0001 74"                        // topics: "t"
    "00000001 00000000"                       // partitions: 0
    "0000000000000000"                        // fetch_offset 0
    "00100000");                              // partition_max_bytes 1048576

TEST(KafkaGolden, FetchV4RequestFromLibrdkafka) {
  const RequestFrame frame = split(kFetchV4Request, ApiKey::kFetch, 4, 4);
  Result<FetchRequest> r =
      wire::decode<FetchRequest>(frame.body, context<FetchRequest>(4), "Fetch");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->replica_id, -1);
  EXPECT_EQ(r->max_wait_ms, 500);
  EXPECT_EQ(r->min_bytes, 1);
  EXPECT_EQ(r->max_bytes, 52428800);
  EXPECT_EQ(r->isolation_level, 0);
  EXPECT_EQ(r->session_epoch, -1);  // v7+: default
  ASSERT_EQ(r->topics.size(), 1);
  EXPECT_EQ(r->topics.begin()->topic, "t");
  const FetchRequest::Partition p = *r->topics.begin()->partitions.begin();
  EXPECT_EQ(p.fetch_offset, 0);
  EXPECT_EQ(p.partition_max_bytes, 1048576);
  EXPECT_EQ(p.current_leader_epoch, -1);  // v9+: default

  const std::array<FetchRequest::Partition, 1> partitions = {
      {{.partition = 0, .fetch_offset = 0, .partition_max_bytes = 1048576}}};
  const std::array<FetchRequest::Topic, 1> topics = {{{"t", partitions}}};
  FetchRequest request;
  request.max_wait_ms = 500;
  request.min_bytes = 1;
  request.max_bytes = 52428800;
  request.topics = topics;
  EXPECT_EQ(request_frame(request, 4, 4), kFetchV4Request);
  expect_frame_truncations_refused<FetchRequest>(kFetchV4Request);
}

// @platformatic/kafka 2.12.1: Fetch v12 (flexible), partition 0 of "t"
// from offset 5, no fetch session.
const Bytes kFetchV12Request = unhex(
    "ffffffff"          // replica_id -1
    "000001f4"          // max_wait_ms 500
    "00000001"          // min_bytes 1
    "03200000"          // max_bytes 52428800
    "00"                // isolation_level
    "00000000"          // session_id 0
    "ffffffff"          // session_epoch -1
    "02 02 74"          // topics: "t"
    "02 00000000"       // partitions: 0
    "ffffffff"          // current_leader_epoch -1
    "0000000000000005"  // fetch_offset 5
    "ffffffff"          // last_fetched_epoch -1
    "ffffffffffffffff"  // log_start_offset -1
    "00100000 00"       // partition_max_bytes 1048576, the partition's tags
    "00"                // the topic's tags
    "01"                // forgotten_topics_data: none
    "01"                // rack_id ""
    "00");              // no tags (no cluster_id)

TEST(KafkaGolden, FetchV12Request) {
  Result<FetchRequest> r =
      wire::decode<FetchRequest>(kFetchV12Request, context<FetchRequest>(12), "Fetch");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->session_epoch, -1);
  EXPECT_EQ(r->cluster_id, std::nullopt);
  const FetchRequest::Partition p = *r->topics.begin()->partitions.begin();
  EXPECT_EQ(p.fetch_offset, 5);
  EXPECT_EQ(p.last_fetched_epoch, -1);
  EXPECT_TRUE(r->forgotten_topics_data.empty());

  const std::array<FetchRequest::Partition, 1> partitions = {
      {{.partition = 0, .fetch_offset = 5, .partition_max_bytes = 1048576}}};
  const std::array<FetchRequest::Topic, 1> topics = {{{"t", partitions}}};
  FetchRequest request;
  request.max_wait_ms = 500;
  request.min_bytes = 1;
  request.max_bytes = 52428800;
  request.topics = topics;
  EXPECT_EQ(encoded(request, context<FetchRequest>(12)), kFetchV12Request);
  expect_truncations_refused<FetchRequest>(kFetchV12Request, 12);

  // With a cluster id: tag 0, a compact string inside the tag buffer.
  request.cluster_id = "c1";
  Bytes with_cluster = kFetchV12Request;
  with_cluster.pop_back();
  for (std::byte b : unhex("01 00 03 03 6331")) with_cluster.push_back(b);
  EXPECT_EQ(encoded(request, context<FetchRequest>(12)), with_cluster);
  Result<FetchRequest> back =
      wire::decode<FetchRequest>(with_cluster, context<FetchRequest>(12), "Fetch");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->cluster_id, "c1");
}

// By hand: Fetch v12 response for a partition fetched from the wrong
// broker: NOT_LEADER_OR_FOLLOWER with the tagged current leader, no aborted
// transactions (null), empty records.
const Bytes kFetchV12Response = unhex(
    "00000000"                    // throttle_time_ms
    "0000"                        // error_code
    "00000000"                    // session_id
    "02 02 74"                    // responses: "t"
    "02 00000000"                 // partitions: 0
    "0006"                        // error_code NOT_LEADER_OR_FOLLOWER
    "000000000000000a"            // high_watermark 10
    "000000000000000a"            // last_stable_offset 10
    "0000000000000000"            // log_start_offset 0
    "00"                          // aborted_transactions: null
    "ffffffff"                    // preferred_read_replica -1
    "01"                          // records: 0 bytes
    "01"                          // one tag:
    "01 09 00000001 00000005 00"  // tag 1 current_leader {1, 5} and its own tag buffer
    "00"                          // the topic's tags
    "00");                        // no tags

TEST(KafkaGolden, FetchV12ResponseWithTaggedCurrentLeader) {
  std::array<FetchResponse::Partition, 1> partitions{};
  partitions[0].error_code = errors::kNotLeaderOrFollower;
  partitions[0].high_watermark = 10;
  partitions[0].last_stable_offset = 10;
  partitions[0].log_start_offset = 0;
  partitions[0].aborted_transactions = Array<FetchResponse::AbortedTransaction>::null();
  partitions[0].current_leader = {1, 5};
  const std::array<FetchResponse::Topic, 1> topics = {{{"t", partitions}}};
  FetchResponse response;
  response.responses = topics;
  EXPECT_EQ(encoded(response, context<FetchResponse>(12)), kFetchV12Response);
  Result<FetchResponse> r =
      wire::decode<FetchResponse>(kFetchV12Response, context<FetchResponse>(12), "Fetch");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const FetchResponse::Partition p = *r->responses.begin()->partitions.begin();
  EXPECT_EQ(p.current_leader.leader_id, 1);
  EXPECT_EQ(p.current_leader.leader_epoch, 5);
  EXPECT_EQ(p.diverging_epoch, FetchResponse::EpochEndOffset{});
  EXPECT_TRUE(p.aborted_transactions.is_null());
  EXPECT_FALSE(p.records.null);
  EXPECT_TRUE(p.records.bytes.empty());
  expect_truncations_refused<FetchResponse>(kFetchV12Response, 12);
}

}  // namespace
}  // namespace spillway::kafka
