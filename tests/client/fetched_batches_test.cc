// FetchedBatches and Assignment on their own: fetched bytes become records
// at and after each position, whole batches at a time; a batch whose CRC-32C
// does not match is never handed out and blocks its partition until the
// fetched data is dropped; a cut-off batch is left for the next fetch.
#include "fetched_batches.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "consumer_assignment.h"
#include "spillway/common/batch_builder.h"

namespace spillway::consumer_internal {
namespace {

std::span<const std::byte> bytes(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

// Appends one batch of values "v<base>".."v<base+count-1>" at `base`.
void append_batch(std::vector<std::byte>& out, int64_t base, int count,
                  batch::Compression compression) {
  std::byte scratch[256];
  WriteBuffer w(scratch);
  batch::BatchBuilder builder;
  batch::BuilderOptions options;
  options.compression = compression;
  options.base_offset = base;
  ASSERT_TRUE(builder.start(w, options).ok());
  std::vector<std::string> values;
  for (int i = 0; i < count; ++i) values.push_back("v" + std::to_string(base + i));
  for (const std::string& v : values) {
    batch::RecordInput record;
    record.timestamp = 1'000;
    record.key = bytes("k");
    record.value = bytes(v);
    ASSERT_TRUE(builder.append(record).ok());
  }
  ASSERT_TRUE(builder.finish().ok());
  const std::size_t at = out.size();
  out.resize(at + w.bytes_written());
  w.copy_to(std::span(out).subspan(at));
}

struct BatchSpec {
  int records = 1;
  batch::Compression compression = batch::Compression::kNone;
};

// What a Fetch returns for a partition: whole batches of `specs` at
// consecutive offsets from 0; `starts` gets where each batch begins.
std::vector<std::byte> fetched_batches(std::initializer_list<BatchSpec> specs,
                                       std::vector<std::size_t>* starts = nullptr) {
  std::vector<std::byte> out;
  int64_t offset = 0;
  for (const BatchSpec& b : specs) {
    if (starts) starts->push_back(out.size());
    append_batch(out, offset, b.records, b.compression);
    offset += b.records;
  }
  return out;
}

std::vector<std::string> values(std::span<const ConsumerRecord> records) {
  std::vector<std::string> out;
  for (const ConsumerRecord& r : records) out.emplace_back(r.value_string());
  return out;
}

class FetchedBatchesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(assignment_.add("t", {}, 1).ok());
    partition().position = Position::at(Offset(0));
  }
  AssignedPartition& partition() { return assignment_.partitions()[0]; }

  // Starts a poll and returns the values take() hands out; `*status` gets
  // its status (it must be ok when null).
  std::vector<std::string> poll(FetchedBatches& batches, Status* status = nullptr) {
    batches.start_poll();
    Status st = batches.take(assignment_);
    if (status) {
      *status = st;
    } else {
      EXPECT_TRUE(st.ok()) << st.to_string();
    }
    return values(batches.records());
  }

  Assignment assignment_;
};

TEST_F(FetchedBatchesTest, HandsOutWholeBatchesFromThePositionOn) {
  const std::vector<std::byte> fetched = fetched_batches(
      {{.records = 3}, {.records = 3, .compression = batch::Compression::kZstd}, {.records = 3}});
  partition().position = Position::at(Offset(2));  // inside the first batch
  FetchedBatches batches(4);
  batches.add(0, fetched);
  // About four records: whole batches, so the second is taken entirely.
  EXPECT_EQ(poll(batches), (std::vector<std::string>{"v2", "v3", "v4", "v5"}));
  EXPECT_EQ(batches.records()[0].offset, 2);
  EXPECT_EQ(batches.records()[0].topic, "t");
  EXPECT_EQ(partition().position, Position::at(Offset(6)));
  EXPECT_EQ(poll(batches), (std::vector<std::string>{"v6", "v7", "v8"}));
  EXPECT_TRUE(batches.empty());
}

TEST_F(FetchedBatchesTest, ACorruptBatchIsNeverHandedOutAndBlocksItsPartition) {
  std::vector<std::size_t> starts;
  std::vector<std::byte> fetched =
      fetched_batches({{.records = 2}, {.records = 2}, {.records = 2}}, &starts);
  fetched[starts[1] + 70] ^= std::byte{0x01};  // a byte of the second batch's records
  FetchedBatches batches(100);
  batches.add(0, fetched);
  EXPECT_EQ(poll(batches), (std::vector<std::string>{"v0", "v1"}));  // the records before it
  for (int i = 0; i < 2; ++i) {
    Status st;
    EXPECT_TRUE(poll(batches, &st).empty());
    EXPECT_EQ(st.code(), ErrorCode::kCorruptMessage);
    EXPECT_NE(st.message().find("t/0 offset 2: corrupt batch, CRC-32C"), std::string::npos)
        << st.message();
    EXPECT_EQ(partition().position, Position::at(Offset(2)));
  }
  batches.clear();  // a seek drops what was fetched
  EXPECT_TRUE(batches.empty());
}

TEST_F(FetchedBatchesTest, ACutOffBatchIsLeftForTheNextFetch) {
  std::vector<std::size_t> starts;
  const std::vector<std::byte> fetched = fetched_batches({{.records = 2}, {.records = 2}}, &starts);
  FetchedBatches batches(100);
  batches.add(0, std::span(fetched).first(starts[1] + 70));  // the second's header and a bit
  EXPECT_EQ(poll(batches), (std::vector<std::string>{"v0", "v1"}));
  EXPECT_TRUE(batches.empty());
  EXPECT_EQ(partition().position, Position::at(Offset(2)));
}

TEST(Assignment, AddsPartitionsSortedOnceAndRejectsUnknownOnes) {
  Assignment a;
  const int32_t one[] = {1};
  ASSERT_TRUE(a.add("b", one, 2).ok());
  ASSERT_TRUE(a.add("a", {}, 2).ok());
  a.find("b", PartitionId(1))->position = Position::at(Offset(7));
  ASSERT_TRUE(a.add("b", {}, 2).ok());  // b/1 keeps its position
  std::vector<std::string> order;
  for (const AssignedPartition& p : a.partitions()) {
    order.push_back(p.topic + "/" + std::to_string(p.partition.value()));
  }
  EXPECT_EQ(order, (std::vector<std::string>{"a/0", "a/1", "b/0", "b/1"}));
  EXPECT_EQ(a.find("b", PartitionId(1))->position, Position::at(Offset(7)));
  EXPECT_EQ(a.find("b", PartitionId(0))->position, Position::committed());
  const int32_t bad[] = {0, 2};
  EXPECT_EQ(a.add("c", bad, 2).code(), ErrorCode::kUnknownPartition);
  EXPECT_EQ(a.find("c", PartitionId(0)), nullptr);  // nothing of it was added
  EXPECT_EQ(a.get("c", PartitionId(0)).status().code(), ErrorCode::kUnknownPartition);
  int runs = 0;
  a.for_each_topic([&](std::string_view, std::span<AssignedPartition> parts) {
    EXPECT_EQ(parts.size(), 2u);
    ++runs;
  });
  EXPECT_EQ(runs, 2);
}

}  // namespace
}  // namespace spillway::consumer_internal
