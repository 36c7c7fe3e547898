// The Kafka descriptions on the hot paths allocate nothing in steady state:
// decoding a Produce request and walking every partition's records, and
// encoding a Fetch response with tagged fields into a WriteBuffer whose
// scratch holds it. operator new is counted in this binary only
// (tests/support/alloc_counter).
#include <gtest/gtest.h>

#include <array>

#include "alloc_counter.h"
#include "spillway/common/kafka/fetch.h"
#include "spillway/common/kafka/produce.h"

namespace spillway::kafka {
namespace {

constexpr int kIterations = 100000;

using spillway::testing::AllocationScope;

TEST(KafkaZeroAllocation, ProduceRequestDecodeAndWalk) {
  std::array<std::byte, 100> batch{};
  std::array<ProduceRequest::Partition, 4> partitions{};
  for (int i = 0; i < 4; ++i) partitions[i] = {i, Records{.bytes = batch}};
  const std::array<ProduceRequest::Topic, 2> topics = {{{"a", partitions}, {"b", partitions}}};
  const ProduceRequest request{"txn", -1, 30000, topics};
  for (const int16_t version : {int16_t{3}, int16_t{9}}) {
    SCOPED_TRACE(version);
    const Context c = context<ProduceRequest>(version);
    std::array<std::byte, 2048> body_scratch;
    WriteBuffer body_buffer{std::span<std::byte>(body_scratch)};
    ASSERT_TRUE(wire::encode(request, c, body_buffer).ok());
    const std::span<const std::byte> body(body_scratch.data(), body_buffer.bytes_written());
    ASSERT_FALSE(body_buffer.spilled());

    uint64_t bytes_seen = 0;
    AllocationScope scope;
    for (int i = 0; i < kIterations; ++i) {
      Result<ProduceRequest> r = wire::decode<ProduceRequest>(body, c, "Produce");
      if (!r.ok()) break;
      for (const ProduceRequest::Topic& topic : r->topic_data) {
        for (const ProduceRequest::Partition& p : topic.partition_data) {
          bytes_seen += p.records.bytes.size();
        }
      }
    }
    EXPECT_EQ(scope.thread_allocations(), 0u);
    EXPECT_EQ(bytes_seen, uint64_t{kIterations} * 8 * batch.size());
  }
}

TEST(KafkaZeroAllocation, FetchResponseEncodeWithTags) {
  std::array<std::byte, 200> records{};
  std::array<FetchResponse::Partition, 4> partitions{};
  for (int i = 0; i < 4; ++i) {
    partitions[i].partition_index = i;
    partitions[i].high_watermark = 10;
    partitions[i].records.bytes = records;
    partitions[i].current_leader = {1, i};  // a tagged field on the wire
  }
  const std::array<FetchResponse::Topic, 1> topics = {{{"t", partitions}}};
  FetchResponse response;
  response.responses = topics;
  const Context c = context<FetchResponse>(12);
  std::array<std::byte, 2048> scratch;
  uint64_t written = 0;
  AllocationScope scope;
  for (int i = 0; i < kIterations; ++i) {
    WriteBuffer out{std::span<std::byte>(scratch)};
    if (!wire::encode(response, c, out).ok()) break;
    written += out.bytes_written();
  }
  EXPECT_EQ(scope.thread_allocations(), 0u);
  EXPECT_EQ(written, uint64_t{kIterations} * wire::encoded_size(response, c));
}

}  // namespace
}  // namespace spillway::kafka
