// wire::Channel, the client's one transport, against a scripted broker:
// the reused response buffer (no allocation per response, untouched by
// control calls), the whole-response deadline, a broker that closes or
// stalls mid-response, an oversized response, and reconnecting on the
// same object.
#include "channel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "alloc_counter.h"
#include "scripted_broker.h"

namespace spillway::wire {
namespace {

using std::chrono::milliseconds;
using testing::read_request;
using testing::ScriptedBroker;
using testing::send_response;
using testing::write_all;

ConnectionOptions with_timeout(milliseconds request_timeout) {
  ConnectionOptions o;
  o.request_timeout = request_timeout;
  return o;
}

std::vector<std::byte> filled(std::size_t n, char c) {
  return std::vector<std::byte>(n, static_cast<std::byte>(c));
}

bool all_are(std::span<const std::byte> bytes, char c) {
  for (std::byte b : bytes) {
    if (b != static_cast<std::byte>(c)) return false;
  }
  return true;
}

// Sends one request with an empty body; returns its correlation id.
int32_t send_empty_request(Channel& channel) {
  std::byte scratch[64];
  WriteBuffer out(scratch);
  const int32_t id = channel.next_correlation_id();
  EXPECT_TRUE(write_frame(out, frame::ApiKey::kApiVersions, 0, id, [](WriteBuffer&) {
                return Status::Ok();
              }).ok());
  EXPECT_TRUE(channel.send(out).ok());
  return id;
}

// Answers `n` requests, the i-th with 1000 bytes of 'a' + i % 26.
void answer_requests(int fd, int n) {
  for (int i = 0; i < n; ++i) {
    auto [header, body] = read_request(fd);
    send_response(fd, header.correlation_id, filled(1'000, static_cast<char>('a' + i % 26)));
  }
}

// A header promising `promised` body bytes, then `sent` of them.
void send_partial_response(int fd, int32_t correlation_id, uint32_t promised, std::size_t sent) {
  std::array<std::byte, frame::kResponseHeaderBytes> h;
  frame::encode_response_header(
      {.correlation_id = correlation_id, .error_code = ErrorCode::kOk, .body_bytes = promised}, h);
  write_all(fd, h);
  write_all(fd, filled(sent, 'x'));
}

TEST(Channel, ReadResponseReusesOneBufferAndAllocatesNothingPerResponse) {
  constexpr int kRequests = 50;
  ScriptedBroker broker([](int fd) { answer_requests(fd, kRequests); });
  Channel channel;
  ASSERT_TRUE(channel.connect(broker.address(), {}).ok());
  const std::byte* first = nullptr;
  uint64_t allocations = 0;
  for (int i = 0; i < kRequests; ++i) {
    testing::AllocationScope scope;  // the first response sizes the buffer
    const int32_t id = send_empty_request(channel);
    Result<Response> r = channel.read_response();
    if (i > 0) allocations += scope.thread_allocations();
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(r->correlation_id, id);
    EXPECT_EQ(r->body.size(), 1'000u);
    EXPECT_TRUE(all_are(r->body, static_cast<char>('a' + i % 26)));
    if (i == 0) first = r->body.data();
    EXPECT_EQ(r->body.data(), first);
  }
  EXPECT_EQ(allocations, 0u);
}

TEST(Channel, ACallReadsIntoItsOwnMemoryAndLeavesTheReusedBufferAlone) {
  ScriptedBroker broker([](int fd) {
    auto [fetch, unused] = read_request(fd);
    send_response(fd, fetch.correlation_id, filled(100, 'A'));
    auto [control, body] = read_request(fd);
    send_response(fd, control.correlation_id, filled(200, 'B'));
  });
  Channel channel;
  ASSERT_TRUE(channel.connect(broker.address(), {}).ok());
  send_empty_request(channel);
  Result<Response> fetched = channel.read_response();
  ASSERT_TRUE(fetched.ok());
  const std::span<const std::byte> records = fetched->body;

  Result<std::vector<std::byte>> answer = channel.call(
      frame::ApiKey::kCommitOffsets, 0, [](WriteBuffer& out) { return out.write_be<int32_t>(7); });
  ASSERT_TRUE(answer.ok()) << answer.status().to_string();
  EXPECT_EQ(answer->size(), 200u);
  EXPECT_TRUE(all_are(*answer, 'B'));
  EXPECT_EQ(records.size(), 100u);
  EXPECT_TRUE(all_are(records, 'A'));  // what the records point into is unchanged
}

TEST(Channel, ASilentBrokerTimesOutAndTheChannelCloses) {
  std::atomic<bool> release{false};
  ScriptedBroker broker(
      [&](int fd) {
        read_request(fd);
        // Holds the connection open, unanswered, until the test is done with
        // it; the test waits for the client's timeout, never for this loop.
        while (!release.load()) std::this_thread::sleep_for(milliseconds(5));
      },
      1);
  Channel channel;
  ASSERT_TRUE(channel.connect(broker.address(), with_timeout(milliseconds(50))).ok());
  send_empty_request(channel);
  Result<Response> r = channel.read_response(milliseconds(30));
  EXPECT_EQ(r.status().code(), ErrorCode::kTimeout);
  EXPECT_NE(r.status().message().find("no response within 30 ms"), std::string::npos)
      << r.status().message();
  EXPECT_FALSE(channel.is_open());

  ASSERT_TRUE(channel.connect(broker.address(), with_timeout(milliseconds(50))).ok());
  release = true;  // the second connection waits in the backlog: nobody answers it
  Result<std::vector<std::byte>> answer =
      channel.call(frame::ApiKey::kMetadata, 0, [](WriteBuffer&) { return Status::Ok(); });
  EXPECT_EQ(answer.status().code(), ErrorCode::kTimeout);
  EXPECT_FALSE(channel.is_open());
}

TEST(Channel, AResponseStillArrivingAtItsDeadlineTimesOut) {
  // The broker keeps the response coming, one byte every few milliseconds,
  // far slower than the deadline allows: each byte arrives well within the
  // timeout, the whole response does not. (The sleeps pace the broker; the
  // test waits for the client's answer, not for them.)
  std::atomic<bool> done{false};
  ScriptedBroker broker([&](int fd) {
    auto [header, body] = read_request(fd);
    send_partial_response(fd, header.correlation_id, 10'000, 0);
    const std::byte one[1] = {std::byte{'x'}};
    while (!done.load() && write_all(fd, one)) std::this_thread::sleep_for(milliseconds(5));
  });
  Channel channel;
  ASSERT_TRUE(channel.connect(broker.address(), {}).ok());
  send_empty_request(channel);
  Result<Response> r = channel.read_response(milliseconds(100));
  done = true;
  EXPECT_EQ(r.status().code(), ErrorCode::kTimeout) << r.status().to_string();
  EXPECT_FALSE(channel.is_open());
}

TEST(Channel, ABrokerClosingMidResponseIsNotConnected) {
  ScriptedBroker broker(
      [](int fd, int) {
        auto [header, body] = read_request(fd);
        send_partial_response(fd, header.correlation_id, 100, 10);  // then closes
      },
      2);
  Channel channel;
  ASSERT_TRUE(channel.connect(broker.address(), {}).ok());
  send_empty_request(channel);
  Result<Response> r = channel.read_response();
  EXPECT_EQ(r.status().code(), ErrorCode::kNotConnected);
  EXPECT_NE(r.status().message().find("closed the connection"), std::string::npos)
      << r.status().message();
  EXPECT_FALSE(channel.is_open());

  ASSERT_TRUE(channel.connect(broker.address(), {}).ok());
  Result<std::vector<std::byte>> answer =
      channel.call(frame::ApiKey::kMetadata, 0, [](WriteBuffer&) { return Status::Ok(); });
  EXPECT_EQ(answer.status().code(), ErrorCode::kNotConnected);
  EXPECT_FALSE(channel.is_open());
}

TEST(Channel, AnOversizedResponseFailsBeforeAnyBufferIsSized) {
  ScriptedBroker broker([](int fd) {
    auto [header, body] = read_request(fd);
    send_partial_response(fd, header.correlation_id, 64u << 20, 0);
  });
  ConnectionOptions options;
  options.max_response_bytes = 1u << 20;
  Channel channel;
  ASSERT_TRUE(channel.connect(broker.address(), options).ok());
  send_empty_request(channel);
  testing::AllocationScope scope;
  Result<Response> r = channel.read_response();
  EXPECT_EQ(r.status().code(), ErrorCode::kFrameTooLarge);
  EXPECT_LT(scope.thread_bytes(), 64u << 10);  // the error's text, not a 64 MiB buffer
  EXPECT_FALSE(channel.is_open());
}

TEST(Channel, AnErrorResponseIsReturnedAndTheChannelStaysOpen) {
  ScriptedBroker broker([](int fd) {
    auto [header, body] = read_request(fd);
    std::array<std::byte, frame::kMaxErrorFrameBytes> out;
    const size_t n = frame::encode_error_response(header.correlation_id, ErrorCode::kUnknownTopic,
                                                  "no topic 'x'", out);
    write_all(fd, std::span(out).first(n));
  });
  Channel channel;
  ASSERT_TRUE(channel.connect(broker.address(), {}).ok());
  send_empty_request(channel);
  Result<Response> r = channel.read_response();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->error, ErrorCode::kUnknownTopic);
  EXPECT_EQ(frame::decode_error_body(r->error, r->body).message(), "no topic 'x'");
  EXPECT_TRUE(channel.is_open());
}

TEST(Channel, ReconnectsOnTheSameObjectWithItsBufferAndCorrelationIds) {
  ScriptedBroker broker(
      [](int fd, int index) {
        auto [header, body] = read_request(fd);
        send_response(fd, header.correlation_id, filled(100, index == 0 ? 'A' : 'B'));
        // then closes: the next request finds the connection gone
      },
      2);
  Channel channel;
  ASSERT_TRUE(channel.connect(broker.address(), {}).ok());
  const int32_t first_id = send_empty_request(channel);
  Result<Response> first = channel.read_response();
  ASSERT_TRUE(first.ok());
  const std::span<const std::byte> kept = first->body;

  Result<std::vector<std::byte>> lost =
      channel.call(frame::ApiKey::kMetadata, 0, [](WriteBuffer&) { return Status::Ok(); });
  EXPECT_EQ(lost.status().code(), ErrorCode::kNotConnected);
  EXPECT_FALSE(channel.is_open());

  ASSERT_TRUE(channel.connect(broker.address(), {}).ok());
  EXPECT_TRUE(all_are(kept, 'A'));  // reconnecting keeps the buffer and what points into it
  const int32_t second_id = send_empty_request(channel);
  EXPECT_GT(second_id, first_id);
  Result<Response> second = channel.read_response();
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  EXPECT_EQ(second->correlation_id, second_id);
  EXPECT_TRUE(all_are(second->body, 'B'));
}

TEST(Channel, CallsOnAClosedChannelFailWithoutSending) {
  Channel channel;
  EXPECT_EQ(channel.call(frame::ApiKey::kMetadata, 0, [](WriteBuffer&) { return Status::Ok(); })
                .status()
                .code(),
            ErrorCode::kNotConnected);
  EXPECT_EQ(channel.read_response().status().code(), ErrorCode::kNotConnected);
  std::byte scratch[16];
  WriteBuffer out(scratch);
  EXPECT_EQ(channel.send(out).code(), ErrorCode::kNotConnected);
}

}  // namespace
}  // namespace spillway::wire
