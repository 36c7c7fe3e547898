// Idempotent producers against the real broker over the native wire:
// InitProducerId ids are never reused across restarts, a batch sent twice
// is stored once and both answers carry its offset, and the state that
// recognises a retry survives a clean restart and a kill -9.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>

#include <set>

#include "broker_wire_client.h"
#include "spillway/common/endian.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/header.h"
#include "spillway/common/kafka/init_producer_id.h"
#include "spillway/common/messages/producer_id.h"

namespace spillway::testing {
namespace {

std::vector<std::byte> idempotent_batch(int64_t pid, int16_t epoch, int32_t seq,
                                        std::vector<std::string> values) {
  std::array<std::byte, 256> scratch;
  WriteBuffer buf(scratch);
  batch::BatchBuilder builder;
  batch::BuilderOptions options;
  options.producer_id = pid;
  options.producer_epoch = epoch;
  options.base_sequence = seq;
  if (!builder.start(buf, options).ok()) return {};
  for (const std::string& v : values) {
    batch::RecordInput r;
    r.timestamp = 1'700'000'000'000;
    r.key_is_null = true;
    r.value = bytes_of(v);
    if (!builder.append(r).ok()) return {};
  }
  if (!builder.finish().ok()) return {};
  std::vector<std::byte> out(buf.bytes_written());
  buf.copy_to(out);
  return out;
}

// InitProducerId over the native wire; -1 on failure.
int64_t init_producer_id(WireClient& client) {
  messages::InitProducerIdRequest req;
  auto body = encode_body([&](WriteBuffer& b) { return encode_init_producer_id_request(req, b); });
  auto r = client.call(frame::ApiKey::kInitProducerId, body);
  if (!r || r->header.error_code != ErrorCode::kOk) return -1;
  auto decoded = messages::decode_init_producer_id_response(r->body);
  if (!decoded.ok() || decoded->producer_epoch != 0) return -1;
  return decoded->producer_id;
}

std::vector<Record> all_records(WireClient& client, const std::string& topic) {
  FetchResult f = client.fetch(topic, 0, 0);
  EXPECT_EQ(f.code, ErrorCode::kOk) << f.message;
  return records_in(f.records);
}

TEST(BrokerIdempotenceTest, ProducerIdsAreNeverReusedAcrossRestarts) {
  TempDir dir;
  std::set<int64_t> seen;
  for (int round = 0; round < 3; ++round) {
    auto broker = start_broker_on(dir.path() / "data");
    ASSERT_NE(broker, nullptr);
    WireClient client(broker->port());
    for (int i = 0; i < 5; ++i) {
      const int64_t id = init_producer_id(client);
      ASSERT_GE(id, 0);
      EXPECT_TRUE(seen.insert(id).second) << "id " << id << " handed out twice";
    }
    // Clean stop, then a crash: neither hands out an id twice.
    ASSERT_TRUE(broker->stop(round == 1 ? SIGKILL : SIGTERM).ok());
  }
}

TEST(BrokerIdempotenceTest, ABatchSentTwiceIsStoredOnceAndAnsweredWithItsOffset) {
  auto broker = BrokerProcess::start();
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  WireClient client((*broker)->port());
  ASSERT_EQ(client.create_topic("idem", 1), ErrorCode::kOk);
  const int64_t pid = init_producer_id(client);
  ASSERT_GE(pid, 0);
  ASSERT_EQ(client.produce("idem", 0, make_batch({{std::nullopt, "plain"}}))[0].code,
            ErrorCode::kOk);
  const auto first = idempotent_batch(pid, 0, 0, {"a", "b"});
  auto r1 = client.produce("idem", 0, first);
  ASSERT_EQ(r1.size(), 1u);
  ASSERT_EQ(r1[0].code, ErrorCode::kOk) << r1[0].message;
  EXPECT_EQ(r1[0].base_offset, 1);
  // The retry (a lost response, say) and the one after it.
  auto r2 = client.produce("idem", 0, first);
  ASSERT_EQ(r2.size(), 1u);
  EXPECT_EQ(r2[0].code, ErrorCode::kOk) << r2[0].message;
  EXPECT_EQ(r2[0].base_offset, 1);
  auto r3 = client.produce("idem", 0, idempotent_batch(pid, 0, 2, {"c"}));
  ASSERT_EQ(r3[0].code, ErrorCode::kOk) << r3[0].message;
  EXPECT_EQ(r3[0].base_offset, 3);
  // A gap, and a fenced epoch, change nothing.
  auto gap = client.produce("idem", 0, idempotent_batch(pid, 0, 5, {"x"}));
  EXPECT_EQ(gap[0].code, ErrorCode::kOutOfOrderSequence) << gap[0].message;
  auto bumped = client.produce("idem", 0, idempotent_batch(pid, 1, 0, {"d"}));
  ASSERT_EQ(bumped[0].code, ErrorCode::kOk) << bumped[0].message;
  auto fenced = client.produce("idem", 0, idempotent_batch(pid, 0, 3, {"y"}));
  EXPECT_EQ(fenced[0].code, ErrorCode::kInvalidProducerEpoch) << fenced[0].message;

  std::vector<std::string> values;
  for (const Record& r : all_records(client, "idem")) values.push_back(r.value);
  EXPECT_EQ(values, (std::vector<std::string>{"plain", "a", "b", "c", "d"}));
}

// The state that recognises a retry after a restart: from the snapshot at a
// clean stop, and from the log's batch headers after a kill -9.
void retry_after_restart(int signal) {
  TempDir dir;
  const auto data = dir.path() / "data";
  int64_t pid = -1;
  std::vector<std::vector<std::byte>> sent;
  {
    auto broker = start_broker_on(data);
    ASSERT_NE(broker, nullptr);
    WireClient client(broker->port());
    ASSERT_EQ(client.create_topic("idem", 1), ErrorCode::kOk);
    pid = init_producer_id(client);
    ASSERT_GE(pid, 0);
    for (int32_t i = 0; i < 8; ++i) {
      sent.push_back(idempotent_batch(pid, 0, i, {"v" + std::to_string(i)}));
      auto r = client.produce("idem", 0, sent.back());
      ASSERT_EQ(r[0].code, ErrorCode::kOk) << r[0].message;
      ASSERT_EQ(r[0].base_offset, i);
    }
    ASSERT_TRUE(broker->stop(signal).ok());
  }
  // A clean stop leaves the snapshot, so the next start reads no batch.
  EXPECT_EQ(std::filesystem::exists(data / "topics/idem/0/producer_state.snapshot"),
            signal == SIGTERM);
  auto broker = start_broker_on(data);
  ASSERT_NE(broker, nullptr);
  WireClient client(broker->port());
  // Each of the last five is recognised, with its offset.
  for (int32_t i = 3; i < 8; ++i) {
    auto r = client.produce("idem", 0, sent[static_cast<size_t>(i)]);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].code, ErrorCode::kOk) << r[0].message;
    EXPECT_EQ(r[0].base_offset, i);
  }
  // Older ones are out of order, and the producer carries on in sequence.
  EXPECT_EQ(client.produce("idem", 0, sent[0])[0].code, ErrorCode::kOutOfOrderSequence);
  EXPECT_EQ(client.produce("idem", 0, idempotent_batch(pid, 0, 9, {"gap"}))[0].code,
            ErrorCode::kOutOfOrderSequence);
  auto next = client.produce("idem", 0, idempotent_batch(pid, 0, 8, {"v8"}));
  ASSERT_EQ(next[0].code, ErrorCode::kOk) << next[0].message;
  EXPECT_EQ(next[0].base_offset, 8);
  EXPECT_EQ(all_records(client, "idem").size(), 9u);
}

TEST(BrokerIdempotenceTest, RetriesAreRecognisedAfterACleanRestart) {
  retry_after_restart(SIGTERM);
}

TEST(BrokerIdempotenceTest, RetriesAreRecognisedAfterKill9) {
  retry_after_restart(SIGKILL);
}

}  // namespace
}  // namespace spillway::testing

namespace spillway::testing {
namespace {

bool read_exactly(RawClient& client, std::byte* dst, size_t n) {
  while (n > 0) {
    const ssize_t r = ::recv(client.fd(), dst, n, 0);
    if (r <= 0) return false;
    dst += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// InitProducerId on the Kafka listener, version `version`, over a raw
// socket; the decoded response, or nullopt.
std::optional<kafka::InitProducerIdResponse> kafka_init_producer_id(
    RawClient& client, int16_t version, std::optional<std::string_view> transactional_id) {
  kafka::InitProducerIdRequest request;
  request.transactional_id = transactional_id;
  request.transaction_timeout_ms = 60'000;
  const int16_t header_version =
      kafka::request_header_version(static_cast<int16_t>(kafka::ApiKey::kInitProducerId), version);
  std::vector<std::byte> frame = encode_body([&](WriteBuffer& b) {
    const std::array<std::byte, 4> length{};  // set below
    SPILLWAY_RETURN_IF_ERROR(b.write(length));
    SPILLWAY_RETURN_IF_ERROR(kafka::encode_request_header({.request_api_key = 22,
                                                           .request_api_version = version,
                                                           .correlation_id = 7,
                                                           .client_id = "idempotence-test"},
                                                          header_version, b));
    return wire::encode(request, kafka::context<kafka::InitProducerIdRequest>(version), b);
  });
  if (frame.size() < 4) return std::nullopt;
  store_be<int32_t>(frame.data(), static_cast<int32_t>(frame.size() - 4));
  if (!client.send_bytes(frame)) return std::nullopt;
  std::array<std::byte, 4> length;
  if (!read_exactly(client, length.data(), length.size())) return std::nullopt;
  std::vector<std::byte> response(static_cast<size_t>(load_be<int32_t>(length.data())));
  if (!read_exactly(client, response.data(), response.size())) return std::nullopt;
  std::span<const std::byte> body;
  const int16_t response_header =
      kafka::response_header_version(static_cast<int16_t>(kafka::ApiKey::kInitProducerId), version);
  auto header = kafka::decode_response_header(response, response_header, &body);
  if (!header.ok() || header->correlation_id != 7) return std::nullopt;
  auto decoded = wire::decode<kafka::InitProducerIdResponse>(
      body, kafka::context<kafka::InitProducerIdResponse>(version), "InitProducerId");
  if (!decoded.ok()) return std::nullopt;
  return *decoded;
}

TEST(BrokerIdempotenceTest, KafkaInitProducerIdHandsOutFreshIdsInEveryVersion) {
  auto broker = BrokerProcess::start();
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  std::set<int64_t> seen;
  for (int16_t version = 0; version <= 4; ++version) {
    RawClient client((*broker)->kafka_port());
    auto r = kafka_init_producer_id(client, version, std::nullopt);
    ASSERT_TRUE(r.has_value()) << "version " << version;
    EXPECT_EQ(r->error_code, 0);
    EXPECT_EQ(r->producer_epoch, 0);
    EXPECT_TRUE(seen.insert(r->producer_id).second);
  }
  // Transactions are not served: the answer FindCoordinator gives.
  RawClient client((*broker)->kafka_port());
  auto r = kafka_init_producer_id(client, 1, "txn-1");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->error_code, kafka::errors::kCoordinatorNotAvailable);
  EXPECT_EQ(r->producer_id, -1);
}

}  // namespace
}  // namespace spillway::testing
