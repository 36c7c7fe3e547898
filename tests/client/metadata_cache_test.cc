// MetadataCache on its own: which topics a request asks for, what an answer
// (or its absence) makes of each, and asking again after a lost request.
#include "metadata_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spillway/common/frame.h"
#include "spillway/common/messages/metadata.h"

namespace spillway::producer_internal {
namespace {

// The topics named by the Metadata request framed in `out`.
std::vector<std::string> asked(WriteBuffer& out, int32_t* correlation_id = nullptr) {
  std::vector<std::byte> bytes(out.bytes_written());
  out.copy_to(bytes);
  frame::RequestHeader header;
  EXPECT_TRUE(frame::decode_request_header(std::span<const std::byte, frame::kRequestHeaderBytes>(
                                               bytes.data(), frame::kRequestHeaderBytes),
                                           1 << 20, &header)
                  .ok());
  EXPECT_EQ(header.api_key, static_cast<int16_t>(frame::ApiKey::kMetadata));
  EXPECT_EQ(header.body_bytes, bytes.size() - frame::kRequestHeaderBytes);
  if (correlation_id) *correlation_id = header.correlation_id;
  Result<messages::MetadataRequest> request = messages::decode_metadata_request(
      std::span<const std::byte>(bytes).subspan(frame::kRequestHeaderBytes));
  EXPECT_TRUE(request.ok());
  std::vector<std::string> names;
  if (request.ok()) {
    for (std::string_view n : request->topics) names.emplace_back(n);
  }
  return names;
}

// An answer: `a` with 3 partitions, `empty` with none, `bad` with an error.
std::vector<std::byte> answer() {
  messages::MetadataPartition parts[3];
  for (int32_t p = 0; p < 3; ++p) parts[p].partition = p;
  messages::MetadataTopic topics[3];
  topics[0].name = "a";
  topics[0].partitions = parts;
  topics[1].name = "empty";
  topics[2].name = "bad";
  topics[2].error_code = ErrorCode::kCorruptMessage;
  topics[2].error_message = "damaged";
  std::byte scratch[512];
  WriteBuffer out(scratch);
  messages::MetadataResponse response;
  response.topics = topics;
  EXPECT_TRUE(messages::encode_metadata_response(response, out).ok());
  std::vector<std::byte> bytes(out.bytes_written());
  out.copy_to(bytes);
  return bytes;
}

TEST(MetadataCache, AsksForEachWantedTopicOnceAndAppliesTheAnswer) {
  MetadataCache cache;
  MetadataCache::Topic& a = cache.topic("a");
  EXPECT_FALSE(cache.request_due());
  for (const char* name : {"a", "empty", "bad", "missing"}) cache.want(cache.topic(name));
  EXPECT_EQ(&cache.topic("a"), &a);  // entries stay put
  ASSERT_TRUE(cache.request_due());

  std::byte scratch[256];
  WriteBuffer out(scratch);
  int32_t id = 0;
  ASSERT_TRUE(cache.write_request(out, 42).ok());
  EXPECT_EQ(asked(out, &id), (std::vector<std::string>{"a", "bad", "empty", "missing"}));
  EXPECT_EQ(id, 42);
  EXPECT_FALSE(cache.request_due());  // asked: not again while outstanding

  const std::vector<std::byte> body = answer();
  cache.apply(Status::Ok(), body);
  EXPECT_EQ(a.partitions, 3);
  EXPECT_TRUE(a.error.ok());
  EXPECT_EQ(a.answers, 1u);
  EXPECT_FALSE(a.wanted);
  EXPECT_EQ(cache.topic("empty").error.code(), ErrorCode::kUnknownTopic);
  EXPECT_NE(cache.topic("empty").error.message().find("has no partitions"), std::string::npos);
  EXPECT_EQ(cache.topic("bad").error.code(), ErrorCode::kCorruptMessage);
  EXPECT_EQ(cache.topic("bad").error.message(), "topic 'bad': damaged");
  EXPECT_EQ(cache.topic("missing").error.code(), ErrorCode::kUnknownTopic);
  EXPECT_EQ(cache.topic("missing").partitions, -1);
  EXPECT_EQ(cache.topic("missing").answers, 1u);
}

TEST(MetadataCache, TheTopicsOfALostRequestAreAskedAgain) {
  MetadataCache cache;
  cache.want(cache.topic("a"));
  std::byte scratch[256];
  WriteBuffer out(scratch);
  ASSERT_TRUE(cache.write_request(out, 1).ok());
  out.release();
  cache.want(cache.topic("b"));
  ASSERT_TRUE(cache.write_request(out, 2).ok());
  EXPECT_EQ(asked(out), (std::vector<std::string>{"b"}));
  out.release();
  cache.request_lost();
  ASSERT_TRUE(cache.request_due());
  ASSERT_TRUE(cache.write_request(out, 3).ok());
  EXPECT_EQ(asked(out), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(cache.topic("a").answers, 0u);
}

TEST(MetadataCache, AFailedOrUndecodableAnswerIsEachAskedTopicsError) {
  MetadataCache cache;
  MetadataCache::Topic& a = cache.topic("a");
  std::byte scratch[256];
  WriteBuffer out(scratch);
  cache.want(a);
  ASSERT_TRUE(cache.write_request(out, 1).ok());
  cache.apply(Status(ErrorCode::kShuttingDown, "bye"), {});
  EXPECT_EQ(a.error.code(), ErrorCode::kShuttingDown);
  EXPECT_EQ(a.answers, 1u);

  cache.want(a);
  ASSERT_TRUE(cache.write_request(out, 2).ok());
  const std::byte garbage[] = {std::byte{0}, std::byte{9}};
  cache.apply(Status::Ok(), garbage);
  EXPECT_EQ(a.error.code(), ErrorCode::kCorruptMessage);
  EXPECT_EQ(a.partitions, -1);
  EXPECT_EQ(a.answers, 2u);
}

}  // namespace
}  // namespace spillway::producer_internal
