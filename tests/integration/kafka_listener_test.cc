// The Kafka listener against the real broker, spoken by hand: ApiVersions at
// every version and above them, Metadata naming the advertised address, the
// topics the native protocol created and a cluster id that survives a
// restart; and random and truncated frames for every api key and version,
// after which the broker still serves Kafka and native clients.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <iostream>
#include <random>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "kafka_wire_client.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/requests.h"

namespace spillway::testing {
namespace {

using kafka::ApiVersionsRequest;
using kafka::ApiVersionsResponse;
using kafka::MetadataRequest;
using kafka::MetadataResponse;

std::unique_ptr<BrokerProcess> start(std::vector<std::string> args = {},
                                     std::optional<std::filesystem::path> data_dir = {}) {
  BrokerProcess::Options options;
  options.args = std::move(args);
  if (data_dir) {
    options.default_data_dir = false;
    options.args.insert(options.args.end(), {"--data-dir", data_dir->string()});
  }
  auto broker = BrokerProcess::start(options);
  EXPECT_TRUE(broker.ok()) << broker.status().to_string();
  return broker.ok() ? std::move(*broker) : nullptr;
}

// The served api keys and versions, as ApiVersions v3 reports them.
std::vector<ApiVersionsResponse::ApiVersion> served(uint16_t kafka_port) {
  KafkaWireClient client(kafka_port);
  KafkaWireClient::Reply reply;
  const ApiVersionsResponse r = client.call<ApiVersionsResponse>(
      ApiVersionsRequest{.client_software_name = "t", .client_software_version = "1"}, 3, &reply);
  return {r.api_keys.begin(), r.api_keys.end()};
}

bool serves(const std::vector<ApiVersionsResponse::ApiVersion>& keys, kafka::ApiKey key,
            int16_t version) {
  for (const auto& k : keys) {
    if (k.api_key == static_cast<int16_t>(key)) {
      return version >= k.min_version && version <= k.max_version;
    }
  }
  return false;
}

TEST(KafkaListener, ApiVersionsAnswersEveryServedVersion) {
  auto broker = start();
  ASSERT_TRUE(broker);
  ASSERT_NE(broker->kafka_port(), 0) << broker->log();
  for (int16_t v = ApiVersionsRequest::kVersions.first; v <= ApiVersionsRequest::kVersions.last;
       ++v) {
    KafkaWireClient client(broker->kafka_port());
    KafkaWireClient::Reply reply;
    const ApiVersionsResponse r = client.call<ApiVersionsResponse>(
        ApiVersionsRequest{.client_software_name = "t", .client_software_version = "1"}, v, &reply);
    EXPECT_EQ(r.error_code, kafka::errors::kNone) << "v" << v;
    const std::vector<ApiVersionsResponse::ApiVersion> keys(r.api_keys.begin(), r.api_keys.end());
    EXPECT_TRUE(serves(keys, kafka::ApiKey::kApiVersions, 3)) << "v" << v;
    EXPECT_TRUE(serves(keys, kafka::ApiKey::kMetadata, 8)) << "v" << v;
    EXPECT_TRUE(serves(keys, kafka::ApiKey::kMetadata, 0)) << "v" << v;
  }
}

TEST(KafkaListener, ApiVersionsAboveTheServedRangeGetsUnsupportedVersionInTheV0Layout) {
  auto broker = start();
  ASSERT_TRUE(broker);
  KafkaWireClient client(broker->kafka_port());
  const int16_t too_new = ApiVersionsRequest::kVersions.last + 1;
  // A body the broker cannot know the layout of.
  const std::array<std::byte, 5> body{std::byte{9}, std::byte{9}, std::byte{9}, std::byte{9},
                                      std::byte{9}};
  ASSERT_TRUE(client.send_frame(KafkaWireClient::header(18, too_new, 7), body));
  std::optional<KafkaWireClient::Reply> r = client.read<ApiVersionsResponse>(too_new);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->correlation_id, 7);
  Result<ApiVersionsResponse> decoded = wire::decode<ApiVersionsResponse>(
      r->body, kafka::context<ApiVersionsResponse>(0), "ApiVersions v0");
  ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
  EXPECT_EQ(decoded->error_code, kafka::errors::kUnsupportedVersion);
  const std::vector<ApiVersionsResponse::ApiVersion> keys(decoded->api_keys.begin(),
                                                          decoded->api_keys.end());
  EXPECT_TRUE(serves(keys, kafka::ApiKey::kApiVersions, 3));
  // The connection stays usable: the client retries at a served version.
  KafkaWireClient::Reply reply;
  const ApiVersionsResponse retry =
      client.call<ApiVersionsResponse>(ApiVersionsRequest{}, 0, &reply);
  EXPECT_EQ(retry.error_code, kafka::errors::kNone);
  EXPECT_FALSE(retry.api_keys.empty());
}

TEST(KafkaListener, MetadataNamesTheAdvertisedBrokerTheTopicsAndAClusterIdThatSurvivesARestart) {
  TempDir dir;
  const std::filesystem::path data = dir.path() / "data";
  std::string cluster_id;
  {
    auto broker = start({}, data);
    ASSERT_TRUE(broker);
    WireClient native(broker->port());
    ASSERT_EQ(native.create_topic("orders", 3), ErrorCode::kOk);
    for (int16_t v : {0, 1, 4, 8, 9, 12}) {
      if (!MetadataRequest::kVersions.has(v)) continue;
      KafkaWireClient client(broker->kafka_port());
      const std::array<MetadataRequest::Topic, 1> wanted{{{.name = "orders"}}};
      MetadataRequest request;
      request.topics = wanted;
      KafkaWireClient::Reply r_reply;
      const MetadataResponse r = client.call<MetadataResponse>(request, v, &r_reply);
      ASSERT_EQ(r.brokers.size(), 1u) << "v" << v;
      const MetadataResponse::Broker self = *r.brokers.begin();
      EXPECT_EQ(self.node_id, 0);
      EXPECT_EQ(self.host, "127.0.0.1");
      EXPECT_EQ(self.port, broker->kafka_port());
      ASSERT_EQ(r.topics.size(), 1u);
      const MetadataResponse::Topic topic = *r.topics.begin();
      EXPECT_EQ(topic.name, "orders");
      EXPECT_EQ(topic.error_code, kafka::errors::kNone);
      ASSERT_EQ(topic.partitions.size(), 3u) << "v" << v;
      int32_t index = 0;
      for (const MetadataResponse::Partition& p : topic.partitions) {
        EXPECT_EQ(p.partition_index, index++);
        EXPECT_EQ(p.leader_id, 0);
        EXPECT_EQ(p.error_code, kafka::errors::kNone);
      }
      if (v >= 2) {
        ASSERT_TRUE(r.cluster_id.has_value());
        EXPECT_EQ(r.cluster_id->size(), 22u);  // 16 random bytes, base64url
        cluster_id = std::string(*r.cluster_id);
      }
    }
    // An unknown topic is named with its error; auto-creation is off.
    KafkaWireClient client(broker->kafka_port());
    const std::array<MetadataRequest::Topic, 1> missing{{{.name = "nope"}}};
    MetadataRequest request;
    request.topics = missing;
    KafkaWireClient::Reply r_reply;
    const MetadataResponse r = client.call<MetadataResponse>(request, 8, &r_reply);
    ASSERT_EQ(r.topics.size(), 1u);
    EXPECT_EQ(r.topics.begin()->error_code, kafka::errors::kUnknownTopicOrPartition);
  }
  auto again = start({}, data);
  ASSERT_TRUE(again);
  KafkaWireClient client(again->kafka_port());
  MetadataRequest all;
  all.topics = wire::Array<MetadataRequest::Topic>::null();  // every topic
  KafkaWireClient::Reply r_reply;
  const MetadataResponse r = client.call<MetadataResponse>(all, 8, &r_reply);
  ASSERT_TRUE(r.cluster_id.has_value());
  EXPECT_EQ(*r.cluster_id, cluster_id);
  ASSERT_EQ(r.topics.size(), 1u);
  EXPECT_EQ(r.topics.begin()->name, "orders");
}

TEST(KafkaListener, TheAdvertisedListenerIsWhatMetadataNames) {
  auto broker = start({"--kafka-advertised-listener", "kafka.example.com:19092"});
  ASSERT_TRUE(broker);
  KafkaWireClient client(broker->kafka_port());
  KafkaWireClient::Reply r_reply;
  const MetadataResponse r = client.call<MetadataResponse>(MetadataRequest{}, 8, &r_reply);
  ASSERT_EQ(r.brokers.size(), 1u);
  EXPECT_EQ(r.brokers.begin()->host, "kafka.example.com");
  EXPECT_EQ(r.brokers.begin()->port, 19092);
  EXPECT_NE(broker->log().find("advertised kafka.example.com:19092"), std::string::npos);
}

// A normal Kafka client and a native one are both served.
void expect_serving(const BrokerProcess& broker) {
  KafkaWireClient kafka_client(broker.kafka_port());
  KafkaWireClient::Reply r_reply;
  const MetadataResponse r = kafka_client.call<MetadataResponse>(MetadataRequest{}, 8, &r_reply);
  EXPECT_EQ(r.brokers.size(), 1u);
  RawClient native(broker.port());
  EXPECT_EQ(native.api_versions_round_trip(1), "spillway-broker 0.1.0");
}

// Sends one frame on a fresh connection, ends the sending side, and reads
// whatever comes back for a moment; the broker may answer, close, or (for a
// long poll) wait. The end of input is what the broker would see when the
// client closed anyway; sent at once, it ends the wait for the cut-short
// frames, which the broker otherwise held until the 20 ms passed.
void send_and_leave(uint16_t port, std::span<const std::byte> header,
                    std::span<const std::byte> body) {
  KafkaWireClient client(port);
  ASSERT_TRUE(client.connected());
  client.send_frame(header, body);
  ::shutdown(client.fd(), SHUT_WR);
  timeval tv{0, 20000};  // the answer, if any, is not what this test checks
  ::setsockopt(client.fd(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::array<std::byte, 4096> sink;
  while (::recv(client.fd(), sink.data(), sink.size(), 0) > 0) {
  }
}

TEST(KafkaListener, RandomAndTruncatedFramesForEveryApiAndVersionLeaveTheBrokerServing) {
  auto broker = start({"--threads", "2"});
  ASSERT_TRUE(broker);
  WireClient native(broker->port());
  ASSERT_EQ(native.create_topic("t", 2), ErrorCode::kOk);
  const auto keys = served(broker->kafka_port());
  ASSERT_FALSE(keys.empty());
  std::mt19937 rng(20261130);
  int frames = 0;
  for (const auto& k : keys) {
    // Every served version, one below and one above the range.
    for (int v = k.min_version - 1; v <= k.max_version + 1; ++v) {
      const auto header =
          KafkaWireClient::header(k.api_key, static_cast<int16_t>(v), 1, "bad-frames");
      for (size_t size : {0, 1, 2, 3, 7, 16, 61, 200, 1500}) {
        std::vector<std::byte> body(size);
        for (std::byte& b : body) b = static_cast<std::byte>(rng());
        send_and_leave(broker->kafka_port(), header, body);
        ++frames;
      }
      // A header cut short at every length.
      for (size_t n = 0; n < header.size(); ++n) {
        send_and_leave(broker->kafka_port(), std::span(header).first(n), {});
        ++frames;
      }
    }
  }
  // Valid bodies of every described request, cut at every length.
  kafka::for_each_request_type([&]<typename Request>() {
    for (int16_t v = Request::kVersions.first; v <= Request::kVersions.last; ++v) {
      const auto header = KafkaWireClient::header(static_cast<int16_t>(Request::kApiKey), v, 2);
      const std::vector<std::byte> body = KafkaWireClient::written([&](WriteBuffer& out) {
        return wire::encode(Request{}, kafka::context<Request>(v), out);
      });
      for (size_t n = 0; n < body.size(); ++n) {
        send_and_leave(broker->kafka_port(), header, std::span(body).first(n));
        ++frames;
      }
    }
  });
  std::cout << frames << " bad frames sent\n";
  int status = 0;
  ASSERT_EQ(::waitpid(broker->pid(), &status, WNOHANG), 0) << "the broker exited\n"
                                                           << broker->log();
  expect_serving(*broker);
}

}  // namespace
}  // namespace spillway::testing
