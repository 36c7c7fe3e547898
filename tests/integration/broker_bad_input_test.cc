// Bad input against the real broker: lying lengths, corrupt and oversized
// batches, unknown topics and partitions, a client that stalls mid-frame,
// 500 concurrent connections, and a client that pipelines without reading.
// Each gets an error or a closed connection, everyone else keeps working,
// and the broker's resident memory stays bounded.
#include <gtest/gtest.h>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "spillway/common/endian.h"

namespace spillway::testing {
namespace {

int64_t rss_kib(pid_t pid) {
  return process_status_kib(pid, "VmRSS");
}

std::unique_ptr<BrokerProcess> start(std::vector<std::string> args) {
  BrokerProcess::Options options;
  options.args = std::move(args);
  auto broker = BrokerProcess::start(options);
  EXPECT_TRUE(broker.ok()) << broker.status().to_string();
  return broker.ok() ? std::move(*broker) : nullptr;
}

std::vector<std::pair<std::optional<std::string>, std::string>> records(int n, size_t size) {
  std::vector<std::pair<std::optional<std::string>, std::string>> out;
  for (int i = 0; i < n; ++i) out.push_back({"k" + std::to_string(i), std::string(size, 'x')});
  return out;
}

TEST(BrokerBadInput, CorruptOversizedAndMisaddressedBatchesGetPerPartitionErrors) {
  auto broker = start({"--threads", "2", "--max-batch-bytes", "4096"});
  ASSERT_TRUE(broker);
  WireClient client(broker->port());
  ASSERT_EQ(client.create_topic("t", 2), ErrorCode::kOk);
  const int64_t rss_before = rss_kib(broker->pid());

  auto good = make_batch(records(3, 10));
  auto bad_crc = good;
  bad_crc.back() ^= std::byte{0x01};  // a record byte: covered by the CRC
  auto r = client.produce("t", 0, bad_crc);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].code, ErrorCode::kCorruptMessage) << r[0].message;

  // A batch whose own length field lies (claims more than it holds).
  auto lying = good;
  store_be<int32_t>(lying.data() + batch::kBatchLengthPos,
                    load_be<int32_t>(lying.data() + batch::kBatchLengthPos) + 50);
  r = client.produce("t", 0, lying);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].code, ErrorCode::kCorruptMessage);

  auto big = make_batch(records(10, 1000));
  r = client.produce("t", 1, big);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].code, ErrorCode::kBatchTooLarge) << r[0].message;

  r = client.produce("nope", 0, good);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].code, ErrorCode::kUnknownTopic);
  r = client.produce("t", 2, good);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].code, ErrorCode::kUnknownPartition) << r[0].message;
  r = client.produce("t", -7, good);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].code, ErrorCode::kUnknownPartition);

  EXPECT_EQ(client.fetch("nope", 0, 0).code, ErrorCode::kUnknownTopic);
  EXPECT_EQ(client.fetch("t", 9, 0).code, ErrorCode::kUnknownPartition);

  // Nothing was appended, and the connection is still fine.
  FetchResult f = client.fetch("t", 0, 0);
  EXPECT_EQ(f.code, ErrorCode::kOk);
  EXPECT_EQ(f.high_watermark, 0);
  r = client.produce("t", 0, good);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].code, ErrorCode::kOk);
  EXPECT_EQ(r[0].base_offset, 0);
  EXPECT_LT(rss_kib(broker->pid()) - rss_before, 64 * 1024);
}

TEST(BrokerBadInput, LyingBodyLengthsAreCorruptAndTheConnectionStaysUsable) {
  auto broker = start({});
  ASSERT_TRUE(broker);
  WireClient client(broker->port());
  ASSERT_EQ(client.create_topic("t", 1), ErrorCode::kOk);
  auto body = client.produce_body("t", 0, make_batch(records(2, 5)));
  // The record_batch bytes field claims far more than the frame holds.
  auto lying = body;
  const size_t batch_len_at = 1 + 4 + 4 + 2 + 1 + 4 + 4;
  store_be<int32_t>(lying.data() + batch_len_at, 1 << 30);
  auto resp = client.call(frame::ApiKey::kProduce, lying);
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->header.error_code, ErrorCode::kCorruptMessage);
  // A topic count of 2^31-1 in a tiny body.
  auto counts = body;
  store_be<int32_t>(counts.data() + 5, INT32_MAX);
  resp = client.call(frame::ApiKey::kProduce, counts);
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->header.error_code, ErrorCode::kCorruptMessage);
  // Truncated fetch and metadata bodies.
  const std::array<std::byte, 3> stub{};
  for (auto api : {frame::ApiKey::kFetch, frame::ApiKey::kMetadata, frame::ApiKey::kCreateTopics,
                   frame::ApiKey::kCommitOffsets, frame::ApiKey::kFetchOffsets,
                   frame::ApiKey::kCommitMemberOffsets}) {
    resp = client.call(api, stub);
    ASSERT_TRUE(resp.has_value());
    EXPECT_EQ(resp->header.error_code, ErrorCode::kCorruptMessage);
  }
  // Still serving.
  auto r = client.produce("t", 0, make_batch(records(2, 5)));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].code, ErrorCode::kOk);
}

TEST(BrokerBadInput, ClientStallingMidFrameIsClosedAfterTheIdleTimeout) {
  auto broker = start({"--idle-timeout-ms", "300"});
  ASSERT_TRUE(broker);
  RawClient staller(broker->port());
  const std::array<std::byte, 10> part{};
  ASSERT_TRUE(
      staller.send_request(static_cast<int16_t>(frame::ApiKey::kProduce), 0, 1, 1000, part));
  // Others are served while it stalls.
  WireClient other(broker->port());
  EXPECT_EQ(other.create_topic("t", 1), ErrorCode::kOk);
  // The broker closes the stalled connection without an answer (the receive
  // timeout of 10 s is only a guard against a hang).
  EXPECT_TRUE(staller.read_until_eof().empty());
  EXPECT_TRUE(staller.closed_by_peer());
  EXPECT_NE(broker->log().find("idle for 300 ms"), std::string::npos);
}

TEST(BrokerBadInput, FiveHundredConcurrentConnectionsAreServed) {
  ASSERT_TRUE(raise_open_files_limit(1100)) << "cannot raise RLIMIT_NOFILE";
  auto broker = start({"--threads", "2"});
  ASSERT_TRUE(broker);
  {
    WireClient admin(broker->port());
    ASSERT_EQ(admin.create_topic("many", 4), ErrorCode::kOk);
  }
  const int64_t rss_before = rss_kib(broker->pid());
  std::vector<std::unique_ptr<WireClient>> clients;
  for (int i = 0; i < 500; ++i) {
    clients.push_back(std::make_unique<WireClient>(broker->port()));
    ASSERT_TRUE(clients.back()->connected()) << i;
  }
  const auto batch = make_batch(records(5, 20));
  // Every connection has a request in flight at once, then all are read.
  for (auto& c : clients) {
    ASSERT_TRUE(c->send_request(static_cast<int16_t>(frame::ApiKey::kProduce), 0, 7,
                                static_cast<uint32_t>(c->produce_body("many", -1, batch).size()),
                                c->produce_body("many", -1, batch)));
  }
  int ok = 0;
  for (auto& c : clients) {
    auto resp = c->read_response();
    ASSERT_TRUE(resp.has_value());
    for (const auto& r : WireClient::decode_produce(resp->body)) ok += r.code == ErrorCode::kOk;
  }
  EXPECT_GE(ok, 500);
  const int64_t rss_after = rss_kib(broker->pid());
  clients.clear();
  // Per connection: a ring of 64 exchanges with small inline buffers.
  EXPECT_LT(rss_after - rss_before, 128 * 1024) << rss_before << " -> " << rss_after;
  WireClient after(broker->port());
  EXPECT_FALSE(after.api_versions_round_trip(1).empty());
}

TEST(BrokerBadInput, ClientThatPipelinesWithoutReadingCannotGrowBrokerMemoryWithoutBound) {
  auto broker = start({"--max-in-flight-per-connection", "8"});
  ASSERT_TRUE(broker);
  WireClient client(broker->port());
  ASSERT_EQ(client.create_topic("t", 1), ErrorCode::kOk);
  const auto batch = make_batch(records(100, 1000));  // ~100 KB
  for (int i = 0; i < 10; ++i) {
    auto r = client.produce("t", 0, batch);
    ASSERT_EQ(r.size(), 1u);
    ASSERT_EQ(r[0].code, ErrorCode::kOk);
  }
  const int64_t rss_before = rss_kib(broker->pid());
  // 3000 fetches of ~1 MB each (3 GB if the broker buffered them all),
  // sent without reading a single response, until the socket is full.
  const auto body = client.fetch_body("t", 0, 0, 0, 1 << 20);
  std::array<std::byte, frame::kRequestHeaderBytes> header;
  int sent = 0;
  for (int i = 0; i < 3000; ++i) {
    frame::encode_request_header(
        {static_cast<int16_t>(frame::ApiKey::kFetch), 0, i, static_cast<uint32_t>(body.size())},
        header);
    std::vector<std::byte> frame_bytes(header.begin(), header.end());
    frame_bytes.insert(frame_bytes.end(), body.begin(), body.end());
    const ssize_t n =
        ::send(client.fd(), frame_bytes.data(), frame_bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n != static_cast<ssize_t>(frame_bytes.size())) break;
    ++sent;
  }
  // Let the broker process what it will: another connection's round trip
  // shows it is responsive meanwhile.
  WireClient other(broker->port());
  EXPECT_FALSE(other.api_versions_round_trip(1).empty());
  EXPECT_EQ(other.produce("t", 0, make_batch(records(1, 1))).size(), 1u);
  const int64_t rss_after = rss_kib(broker->pid());
  EXPECT_GT(sent, 8);
  // At most 8 responses of ~1 MB are held (plus socket buffers).
  EXPECT_LT(rss_after - rss_before, 64 * 1024) << rss_before << " -> " << rss_after;
}

}  // namespace
}  // namespace spillway::testing
