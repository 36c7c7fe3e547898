// Malformed input against the real binary: an oversized frame, an unknown api
// key, an unserved version and a lying short length each get an error
// response and/or a closed connection, while another client is served
// before, during and after.
#include <gtest/gtest.h>
#include <signal.h>

#include "broker_process.h"
#include "raw_client.h"

namespace spillway::testing {
namespace {

constexpr const char* kVersion = "spillway-broker 0.1.0";

class BadFrames : public ::testing::Test {
 protected:
  void SetUp() override {
    // A small limit so the test can also send a body just under it.
    auto started = BrokerProcess::start({.args = {"--max-frame-bytes", "4096", "--threads", "2"}});
    ASSERT_TRUE(started.ok()) << started.status().to_string();
    broker_ = std::move(started).value();
    bystander_ = std::make_unique<RawClient>(broker_->port());
    ASSERT_EQ(bystander_->api_versions_round_trip(1), kVersion);
  }

  void TearDown() override {
    if (!broker_) return;
    // The bystander is served after the bad client, and the broker still
    // stops cleanly.
    EXPECT_EQ(bystander_->api_versions_round_trip(99), kVersion);
    RawClient newcomer(broker_->port());
    EXPECT_EQ(newcomer.api_versions_round_trip(100), kVersion);
    Result<ProcessExit> exit = broker_->stop(SIGTERM);
    ASSERT_TRUE(exit.ok()) << exit.status().to_string();
    EXPECT_EQ(exit->exit_code, 0) << exit->output;
  }

  std::string error_message(const RawClient::Response& response) {
    Status st = frame::decode_error_body(response.header.error_code, response.body);
    return std::string(st.message());
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<RawClient> bystander_;
};

TEST_F(BadFrames, OversizedFrameGetsFrameTooLargeAndIsClosed) {
  RawClient bad(broker_->port());
  // Claims 4 GiB - 1 of body; nothing of it is sent.
  ASSERT_TRUE(bad.send_request(0, 0, 42, UINT32_MAX - frame::kMinRequestLength));
  EXPECT_EQ(bystander_->api_versions_round_trip(2), kVersion);  // served meanwhile
  auto response = bad.read_response();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->header.correlation_id, 42);
  EXPECT_EQ(response->header.error_code, ErrorCode::kFrameTooLarge);
  EXPECT_NE(error_message(*response).find("exceeds max_frame_bytes 4096"), std::string::npos)
      << error_message(*response);
  EXPECT_TRUE(bad.closed_by_peer());
  EXPECT_NE(broker_->log().find("exceeds max_frame_bytes"), std::string::npos);
}

TEST_F(BadFrames, FrameJustOverTheLimitIsRefusedAndAtTheLimitIsServed) {
  RawClient over(broker_->port());
  // Length field = 8 header bytes + body; 4097 is one over the limit.
  ASSERT_TRUE(over.send_request(0, 0, 5, 4097 - frame::kMinRequestLength));
  auto refused = over.read_response();
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->header.error_code, ErrorCode::kFrameTooLarge);
  EXPECT_TRUE(over.closed_by_peer());

  // Exactly at the limit is read, then refused by ApiVersions as malformed
  // (the body is not a valid ApiVersions request) on an open connection.
  RawClient at(broker_->port());
  std::vector<std::byte> body(4096 - frame::kMinRequestLength, std::byte{0x7f});
  ASSERT_TRUE(at.send_request(0, 0, 6, static_cast<uint32_t>(body.size()), body));
  auto answered = at.read_response();
  ASSERT_TRUE(answered.has_value());
  EXPECT_EQ(answered->header.correlation_id, 6);
  EXPECT_EQ(answered->header.error_code, ErrorCode::kCorruptMessage);
  EXPECT_EQ(at.api_versions_round_trip(7), kVersion);
}

TEST_F(BadFrames, UnknownApiKeyGetsAnErrorAndTheConnectionStaysUsable) {
  RawClient bad(broker_->port());
  const std::array<std::byte, 3> body{std::byte{1}, std::byte{2}, std::byte{3}};
  ASSERT_TRUE(bad.send_request(999, 0, 77, body.size(), body));
  auto response = bad.read_response();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->header.correlation_id, 77);
  EXPECT_EQ(response->header.error_code, ErrorCode::kUnsupportedVersion);
  EXPECT_NE(error_message(*response).find("unknown api key 999"), std::string::npos);
  EXPECT_EQ(bystander_->api_versions_round_trip(3), kVersion);
  // The body was consumed, so the stream is still in sync.
  EXPECT_EQ(bad.api_versions_round_trip(78), kVersion);
}

TEST_F(BadFrames, ReservedButUnservedKeyAndNegativeKeyGetErrors) {
  RawClient bad(broker_->port());
  ASSERT_TRUE(bad.send_request(static_cast<int16_t>(frame::ApiKey::kListOffsets), 0, 1, 0));
  ASSERT_TRUE(bad.send_request(-1, 0, 2, 0));
  for (int32_t id : {1, 2}) {
    auto response = bad.read_response();
    ASSERT_TRUE(response.has_value());
    EXPECT_EQ(response->header.correlation_id, id);
    EXPECT_EQ(response->header.error_code, ErrorCode::kUnsupportedVersion);
  }
}

TEST_F(BadFrames, UnservedVersionGetsAnErrorNamingTheServedRange) {
  RawClient bad(broker_->port());
  ASSERT_TRUE(bad.send_request(0, 9, 11, 0));
  auto response = bad.read_response();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->header.error_code, ErrorCode::kUnsupportedVersion);
  EXPECT_NE(error_message(*response).find("ApiVersions version 9"), std::string::npos)
      << error_message(*response);
  EXPECT_EQ(bad.api_versions_round_trip(12), kVersion);
}

TEST_F(BadFrames, LengthShorterThanHeaderIsRefusedAndClosed) {
  RawClient bad(broker_->port());
  std::array<std::byte, frame::kRequestHeaderBytes> header{};
  header[3] = std::byte{3};  // length 3 < 8
  ASSERT_TRUE(bad.send_bytes(header));
  auto response = bad.read_response();
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->header.error_code, ErrorCode::kCorruptMessage);
  EXPECT_TRUE(bad.closed_by_peer());
}

TEST_F(BadFrames, ClientVanishingMidFrameDoesNotDisturbOthers) {
  {
    RawClient bad(broker_->port());
    ASSERT_TRUE(bad.send_request(0, 0, 1, 1000));  // promises 1000 bytes, sends none
  }                                                // closed here
  EXPECT_EQ(bystander_->api_versions_round_trip(4), kVersion);
}

}  // namespace
}  // namespace spillway::testing
