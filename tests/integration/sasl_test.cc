// SASL against the real broker, spoken by hand on both protocols and
// through the client library: requests before authentication refused and
// the connection closed; PLAIN and SCRAM exchanges; wrong and unknown
// credentials; an exchange cut at every step; oversized tokens; a second
// authentication; the failure limit per client address; users created
// through the broker surviving a restart, with no password in the file.
#include "spillway/common/messages/sasl.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "broker_process.h"
#include "kafka_wire_client.h"
#include "raw_client.h"
#include "spillway/admin.h"
#include "spillway/common/credential_file.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/requests.h"
#include "spillway/common/kafka/sasl_authenticate.h"
#include "spillway/common/kafka/sasl_handshake.h"
#include "spillway/common/scram.h"

namespace spillway::testing {
namespace {

constexpr std::string_view kUser = "alice";
constexpr std::string_view kPassword = "alice-secret-42";

std::span<const std::byte> as_bytes_of(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}
std::string text_of(std::span<const std::byte> b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A data directory holding alice's SCRAM-SHA-256 and -512 credentials, as
// `spillway user create --data-dir` writes it.
void write_alice(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::vector<scram::UserCredential> all;
  for (scram::Mechanism m : {scram::Mechanism::kSha256, scram::Mechanism::kSha512}) {
    all.push_back(
        {std::string(kUser), scram::make_credential(m, kPassword, scram::random_bytes(16), 4096)});
  }
  std::ofstream(dir / "credentials", std::ios::binary) << scram::encode_credentials(all);
}

struct SaslBroker {
  TempDir dir;
  std::unique_ptr<BrokerProcess> broker;
  uint16_t native_port = 0;  // native SASL_PLAINTEXT
  uint16_t kafka_port = 0;   // Kafka SASL_PLAINTEXT

  explicit SaslBroker(std::vector<std::string> extra = {}) {
    write_alice(dir.path() / "data");
    start(std::move(extra));
  }
  void start(std::vector<std::string> extra = {}) {
    BrokerProcess::Options options;
    options.default_data_dir = false;
    options.args = {"--data-dir",
                    (dir.path() / "data").string(),
                    "--kafka-listen",
                    "127.0.0.1:0",
                    "--listeners",
                    "SASL_PLAINTEXT://127.0.0.1:0",
                    "--kafka-listeners",
                    "SASL_PLAINTEXT://127.0.0.1:0",
                    "--sasl-mechanisms",
                    "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
                    "--sasl-max-failed-authentications",
                    "1000"};
    for (std::string& e : extra) options.args.push_back(std::move(e));
    Result<std::unique_ptr<BrokerProcess>> started = BrokerProcess::start(options);
    ASSERT_TRUE(started.ok()) << started.status().message();
    broker = std::move(*started);
    native_port = broker->listener_port("native SASL_PLAINTEXT");
    kafka_port = broker->listener_port("kafka SASL_PLAINTEXT");
    ASSERT_NE(native_port, 0) << broker->log();
    ASSERT_NE(kafka_port, 0) << broker->log();
  }
};

// Native request helpers on a RawClient.
template <typename Encode>
bool send_native(RawClient& c, frame::ApiKey key, int32_t correlation_id, Encode encode) {
  std::array<std::byte, 256> scratch;
  WriteBuffer out{std::span<std::byte>(scratch)};
  if (!encode(out).ok()) return false;
  std::vector<std::byte> body(out.bytes_written());
  out.copy_to(body);
  return c.send_request(static_cast<int16_t>(key), 0, correlation_id,
                        static_cast<uint32_t>(body.size()), body);
}

std::optional<RawClient::Response> native_handshake(RawClient& c, std::string_view mechanism) {
  if (!send_native(c, frame::ApiKey::kSaslHandshake, 1, [&](WriteBuffer& out) {
        return messages::encode_sasl_handshake_request({.mechanism = mechanism}, out);
      })) {
    return std::nullopt;
  }
  return c.read_response();
}

std::optional<RawClient::Response> native_token(RawClient& c, std::string_view token) {
  if (!send_native(c, frame::ApiKey::kSaslAuthenticate, 2, [&](WriteBuffer& out) {
        return messages::encode_sasl_authenticate_request({.auth_bytes = as_bytes_of(token)}, out);
      })) {
    return std::nullopt;
  }
  return c.read_response();
}

std::string error_message(const RawClient::Response& r) {
  Status st = frame::decode_error_body(r.header.error_code, r.body);
  return std::string(st.message());
}

// A whole native SCRAM-SHA-256 exchange; true when it succeeded.
bool native_scram(RawClient& c, std::string_view password) {
  auto hs = native_handshake(c, "SCRAM-SHA-256");
  if (!hs || hs->header.error_code != ErrorCode::kOk) return false;
  scram::ScramClient client(scram::Mechanism::kSha256, std::string(kUser), std::string(password));
  auto first = native_token(c, client.first());
  if (!first || first->header.error_code != ErrorCode::kOk) return false;
  auto first_body = messages::decode_sasl_authenticate_response(first->body);
  if (!first_body.ok()) return false;
  Result<std::string> final = client.final(text_of(first_body->auth_bytes));
  if (!final.ok()) return false;
  auto last = native_token(c, *final);
  if (!last || last->header.error_code != ErrorCode::kOk) return false;
  auto last_body = messages::decode_sasl_authenticate_response(last->body);
  return last_body.ok() && client.verify(text_of(last_body->auth_bytes)).ok();
}

bool metadata_served(RawClient& c, int32_t correlation_id) {
  if (!c.send_request(static_cast<int16_t>(frame::ApiKey::kMetadata), 0, correlation_id, 4,
                      std::vector<std::byte>(4, std::byte{0}))) {
    return false;
  }
  auto r = c.read_response();
  return r && r->header.error_code == ErrorCode::kOk;
}

TEST(Sasl, NativeRequestBeforeAuthenticationIsRefusedAndClosed) {
  SaslBroker b;
  RawClient c(b.native_port);
  ASSERT_TRUE(c.connected());
  EXPECT_FALSE(c.api_versions_round_trip(1).empty());  // ApiVersions is served
  ASSERT_TRUE(c.send_request(static_cast<int16_t>(frame::ApiKey::kMetadata), 0, 2, 4,
                             std::vector<std::byte>(4, std::byte{0})));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->header.error_code, ErrorCode::kAuthenticationFailed);
  EXPECT_NE(error_message(*r).find("authenticate first"), std::string::npos) << error_message(*r);
  EXPECT_TRUE(c.closed_by_peer());
}

TEST(Sasl, KafkaRequestBeforeAuthenticationClosesTheConnection) {
  SaslBroker b;
  KafkaWireClient c(b.kafka_port);
  ASSERT_TRUE(c.connected());
  KafkaWireClient::Reply reply;
  auto versions = c.call<kafka::ApiVersionsResponse>(kafka::ApiVersionsRequest{}, 3, &reply);
  EXPECT_EQ(versions.error_code, 0);
  EXPECT_FALSE(c.try_call<kafka::MetadataResponse>(kafka::MetadataRequest{}, 4).ok());
  EXPECT_TRUE(c.closed_by_peer());
}

TEST(Sasl, NativeScramThenServedAndSecondAuthenticationIsIllegal) {
  SaslBroker b;
  RawClient c(b.native_port);
  ASSERT_TRUE(native_scram(c, kPassword)) << b.broker->log();
  EXPECT_TRUE(metadata_served(c, 10));
  auto again = native_handshake(c, "SCRAM-SHA-256");
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->header.error_code, ErrorCode::kIllegalSaslState);
  EXPECT_TRUE(c.closed_by_peer());
}

TEST(Sasl, NativeWrongPasswordUnknownUserAndUnknownMechanism) {
  SaslBroker b;
  {
    RawClient c(b.native_port);
    EXPECT_FALSE(native_scram(c, "wrong"));
    EXPECT_TRUE(c.closed_by_peer());
  }
  {
    RawClient c(b.native_port);
    ASSERT_EQ(native_handshake(c, "PLAIN")->header.error_code, ErrorCode::kOk);
    auto r = native_token(c, std::string("\0mallory\0x", 10));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->header.error_code, ErrorCode::kAuthenticationFailed);
    EXPECT_EQ(error_message(*r), "Authentication failed: invalid credentials");
    EXPECT_TRUE(c.closed_by_peer());
  }
  {
    RawClient c(b.native_port);
    auto r = native_handshake(c, "GSSAPI");
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->header.error_code, ErrorCode::kUnsupportedSaslMechanism);
    EXPECT_NE(error_message(*r).find("SCRAM-SHA-512"), std::string::npos);
    EXPECT_TRUE(c.closed_by_peer());
  }
  // The broker logs who failed, never the password.
  EXPECT_NE(b.broker->log().find("user \"alice\" from 127.0.0.1"), std::string::npos);
  EXPECT_EQ(b.broker->log().find("wrong\""), std::string::npos);
  RawClient ok(b.native_port);
  EXPECT_TRUE(native_scram(ok, kPassword));
}

TEST(Sasl, KafkaPlainAndScramByHand) {
  SaslBroker b;
  // PLAIN, wrong password: SASL_AUTHENTICATION_FAILED with its message, then closed.
  {
    KafkaWireClient c(b.kafka_port);
    Result<kafka::SaslHandshakeResponse> hs =
        c.try_call<kafka::SaslHandshakeResponse>(kafka::SaslHandshakeRequest{"PLAIN"}, 1);
    ASSERT_TRUE(hs.ok());
    EXPECT_EQ(hs->error_code, 0);
    const std::string token = std::string("\0alice\0nope", 11);
    Result<kafka::SaslAuthenticateResponse> auth = c.try_call<kafka::SaslAuthenticateResponse>(
        kafka::SaslAuthenticateRequest{as_bytes_of(token)}, 2);
    ASSERT_TRUE(auth.ok());
    EXPECT_EQ(auth->error_code, kafka::errors::kSaslAuthenticationFailed);
    EXPECT_EQ(auth->error_message.value_or(""), "Authentication failed: invalid credentials");
    EXPECT_TRUE(c.closed_by_peer());
  }
  // SCRAM-SHA-512 succeeds; then Metadata is served.
  {
    KafkaWireClient c(b.kafka_port);
    ASSERT_EQ(
        c.try_call<kafka::SaslHandshakeResponse>(kafka::SaslHandshakeRequest{"SCRAM-SHA-512"}, 1)
            ->error_code,
        0);
    scram::ScramClient client(scram::Mechanism::kSha512, std::string(kUser),
                              std::string(kPassword));
    const std::string first = client.first();
    Result<kafka::SaslAuthenticateResponse> r1 = c.try_call<kafka::SaslAuthenticateResponse>(
        kafka::SaslAuthenticateRequest{as_bytes_of(first)}, 1);
    ASSERT_TRUE(r1.ok());
    ASSERT_EQ(r1->error_code, 0);
    Result<std::string> final = client.final(text_of(r1->auth_bytes));
    ASSERT_TRUE(final.ok());
    Result<kafka::SaslAuthenticateResponse> r2 = c.try_call<kafka::SaslAuthenticateResponse>(
        kafka::SaslAuthenticateRequest{as_bytes_of(*final)}, 1);
    ASSERT_TRUE(r2.ok());
    ASSERT_EQ(r2->error_code, 0);
    EXPECT_TRUE(client.verify(text_of(r2->auth_bytes)).ok());
    EXPECT_TRUE(c.try_call<kafka::MetadataResponse>(kafka::MetadataRequest{}, 4).ok());
  }
  // Handshake v0 (raw tokens) is refused.
  {
    KafkaWireClient c(b.kafka_port);
    Result<kafka::SaslHandshakeResponse> hs =
        c.try_call<kafka::SaslHandshakeResponse>(kafka::SaslHandshakeRequest{"PLAIN"}, 0);
    ASSERT_TRUE(hs.ok());
    EXPECT_EQ(hs->error_code, kafka::errors::kIllegalSaslState);
    EXPECT_TRUE(c.closed_by_peer());
  }
}

TEST(Sasl, ExchangeCutAtEveryStepLeavesTheBrokerServing) {
  SaslBroker b;
  // Handshake frame cut in its header, after the handshake, client-first cut
  // in its body, after the server-first, client-final cut: each connection
  // just ends.
  for (int cut = 0; cut < 5; ++cut) {
    RawClient c(b.native_port);
    ASSERT_TRUE(c.connected());
    if (cut == 0) {
      const std::array<std::byte, 5> partial{};
      c.send_bytes(partial);
      continue;
    }
    ASSERT_EQ(native_handshake(c, "SCRAM-SHA-256")->header.error_code, ErrorCode::kOk);
    if (cut == 1) continue;
    scram::ScramClient client(scram::Mechanism::kSha256, std::string(kUser),
                              std::string(kPassword));
    const std::string first = client.first();
    if (cut == 2) {
      c.send_request(static_cast<int16_t>(frame::ApiKey::kSaslAuthenticate), 0, 2, 200,
                     as_bytes_of(first.substr(0, 5)));
      continue;
    }
    auto server_first = native_token(c, first);
    ASSERT_TRUE(server_first && server_first->header.error_code == ErrorCode::kOk);
    if (cut == 3) continue;
    c.send_request(static_cast<int16_t>(frame::ApiKey::kSaslAuthenticate), 0, 3, 300,
                   as_bytes_of("c=biws,r="));
  }
  RawClient ok(b.native_port);
  EXPECT_TRUE(native_scram(ok, kPassword)) << b.broker->log();
  EXPECT_TRUE(metadata_served(ok, 5));
}

TEST(Sasl, OversizedTokenFailsTheAuthentication) {
  SaslBroker b;
  RawClient c(b.native_port);
  ASSERT_EQ(native_handshake(c, "PLAIN")->header.error_code, ErrorCode::kOk);
  auto r = native_token(c, std::string(9000, 'x'));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->header.error_code, ErrorCode::kAuthenticationFailed);
  EXPECT_NE(error_message(*r).find("larger than the 8192 allowed"), std::string::npos)
      << error_message(*r);
  EXPECT_TRUE(c.closed_by_peer());
}

TEST(Sasl, FailuresPerAddressAreLimited) {
  SaslBroker b({"--sasl-max-failed-authentications", "2"});
  for (int i = 0; i < 2; ++i) {
    RawClient c(b.native_port);
    EXPECT_FALSE(native_scram(c, "wrong"));
  }
  {
    RawClient c(b.native_port);
    ASSERT_EQ(native_handshake(c, "PLAIN")->header.error_code, ErrorCode::kOk);
    auto r = native_token(c, std::string("\0alice\0", 7) + std::string(kPassword));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->header.error_code, ErrorCode::kAuthenticationFailed);
    EXPECT_NE(error_message(*r).find("too many failed authentications from 127.0.0.1"),
              std::string::npos)
        << error_message(*r);
  }
  // Another client address is not affected.
  RawClient other(b.native_port, {.source_ip = "127.0.0.2"});
  ASSERT_TRUE(other.connected());
  EXPECT_TRUE(native_scram(other, kPassword));
}

TEST(Sasl, ClientLibraryUsersAndRestart) {
  SaslBroker b;
  const std::string address = "127.0.0.1:" + std::to_string(b.native_port);
  ConnectionOptions options;
  options.security.sasl = {.mechanism = "SCRAM-SHA-512",
                           .username = std::string(kUser),
                           .password = std::string(kPassword)};
  {
    Result<Admin> admin = Admin::connect(address, options);
    ASSERT_TRUE(admin.ok()) << admin.status().message();
    ASSERT_TRUE(admin->create_topic("t").ok());
    ASSERT_TRUE(admin->upsert_user("bob", "SCRAM-SHA-256", "bob-password-1", 4096).ok());
    Result<std::vector<UserListing>> users = admin->list_users();
    ASSERT_TRUE(users.ok());
    EXPECT_EQ(users->size(), 3u);                                             // alice x2, bob
    EXPECT_FALSE(admin->upsert_user("bob", "SCRAM-SHA-256", "x", 100).ok());  // iterations
  }
  // Wrong password: the broker's message.
  ConnectionOptions wrong = options;
  wrong.security.sasl.password = "nope";
  Result<Admin> refused = Admin::connect(address, wrong);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kAuthenticationFailed);
  EXPECT_EQ(refused.status().message(), "Authentication failed: invalid credentials");
  // The file holds no password.
  const std::string file = read_file(b.dir.path() / "data" / "credentials");
  EXPECT_FALSE(file.empty());
  EXPECT_EQ(file.find("bob-password-1"), std::string::npos);
  EXPECT_EQ(file.find(kPassword), std::string::npos);
  // bob survives a restart.
  ASSERT_TRUE(b.broker->stop(SIGTERM).ok());
  b.broker.reset();
  b.start();
  ConnectionOptions bob;
  bob.security.sasl = {.mechanism = "PLAIN", .username = "bob", .password = "bob-password-1"};
  Result<Admin> as_bob = Admin::connect("127.0.0.1:" + std::to_string(b.native_port), bob);
  ASSERT_TRUE(as_bob.ok()) << as_bob.status().message();
  EXPECT_TRUE(as_bob->list_topics().ok());
  EXPECT_TRUE(as_bob->delete_user("bob").ok());
  EXPECT_FALSE(Admin::connect("127.0.0.1:" + std::to_string(b.native_port), bob).ok());
}

}  // namespace
}  // namespace spillway::testing
