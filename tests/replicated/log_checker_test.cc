// The fault runs' checker on its own (no cluster): an acknowledged record is
// found at its offset, or, acknowledged without one (librdkafka's -1001 for
// a record implicitly acked by a later batch of the idempotent producer), by
// its value in its partition; a record that is nowhere is lost. A value
// stored twice is a duplicate unless the copy nobody acknowledged came from
// another producer epoch (a client's re-send, counted as `resent`); the
// producers come from the stored batch headers (stored_producers.h).
#include "log_checker.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "spillway/common/batch_builder.h"
#include "spillway/common/write_buffer.h"
#include "stored_producers.h"

namespace spillway::testing {
namespace {

TopicContents stored() {
  TopicContents c;
  c.partitions[0][0] = {"k0", "k0:0"};
  c.partitions[0][1] = {"k0", "k0:1"};
  c.partitions[1][0] = {"k1", "k1:2"};
  return c;
}

TEST(LogChecker, ARecordAcknowledgedWithoutAnOffsetIsFoundByValueInItsPartition) {
  const std::vector<AckedRecord> acked = {
      {.partition = 0, .offset = -1001, .key = "k0", .value = "k0:0"},
      {.partition = 0, .offset = 1, .key = "k0", .value = "k0:1"}};
  const CheckResult r = check_acked(acked, stored());
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_EQ(r.lost, 0);
}

TEST(LogChecker, ARecordAcknowledgedWithoutAnOffsetThatIsNowhereOrElsewhereIsLost) {
  const std::vector<AckedRecord> acked = {
      {.partition = 0, .offset = -1001, .key = "k0", .value = "k0:9"},   // nowhere
      {.partition = 0, .offset = -1001, .key = "k1", .value = "k1:2"}};  // in partition 1
  const CheckResult r = check_acked(acked, stored());
  EXPECT_EQ(r.lost, 2);
}

TEST(LogChecker, ARecordAtAnotherOffsetIsLost) {
  const std::vector<AckedRecord> acked = {
      {.partition = 0, .offset = 1, .key = "k0", .value = "k0:0"}};
  EXPECT_EQ(check_acked(acked, stored()).lost, 1);
}

// Partition 0 holds k0:0 and k0:1 twice: the first copies (offsets 0-1)
// were never acknowledged, the second ones (2-3) were.
TopicContents stored_twice(int16_t first_epoch, int16_t second_epoch) {
  TopicContents c;
  c.partitions[0][0] = {"k0", "k0:0", 7, first_epoch};
  c.partitions[0][1] = {"k0", "k0:1", 7, first_epoch};
  c.partitions[0][2] = {"k0", "k0:0", 7, second_epoch};
  c.partitions[0][3] = {"k0", "k0:1", 7, second_epoch};
  return c;
}

const std::vector<AckedRecord> kAckedSecondCopies = {
    {.partition = 0, .offset = 2, .key = "k0", .value = "k0:0"},
    {.partition = 0, .offset = 3, .key = "k0", .value = "k0:1"}};

TEST(LogChecker, AnUnacknowledgedCopyFromAnEarlierProducerEpochIsResentNotDuplicated) {
  const CheckResult r = check_acked(kAckedSecondCopies, stored_twice(0, 1));
  EXPECT_TRUE(r.ok()) << r.first_problem;
  EXPECT_EQ(r.resent, 2);
  EXPECT_EQ(r.duplicates, 0);
  EXPECT_EQ(r.out_of_order, 0);
}

TEST(LogChecker, TheSameProducerEpochStoredTwiceIsADuplicate) {
  // The broker's deduplication would have failed: not excused.
  const CheckResult r = check_acked(kAckedSecondCopies, stored_twice(0, 0));
  EXPECT_EQ(r.resent, 0);
  EXPECT_EQ(r.duplicates, 2);
  EXPECT_FALSE(r.ok());
}

TEST(LogChecker, ACopyOfUnknownOriginIsADuplicate) {
  TopicContents c = stored_twice(0, 1);
  c.partitions[0][0].producer_id = c.partitions[0][1].producer_id = -1;  // not annotated
  c.partitions[0][0].producer_epoch = c.partitions[0][1].producer_epoch = -1;
  const CheckResult r = check_acked(kAckedSecondCopies, c);
  EXPECT_EQ(r.resent, 0);
  EXPECT_EQ(r.duplicates, 2);
}

TEST(LogChecker, TwoCopiesNeitherAcknowledgedAreDuplicates) {
  const CheckResult r = check_acked({}, stored_twice(0, 1));
  EXPECT_EQ(r.duplicates, 2);
}

// annotate_producers reads the producer of each record from the batch
// headers of a partition directory's segment files, across segments, and
// stops quietly at a batch cut short (the broker may be appending).
std::vector<std::byte> batch_of(int64_t base_offset, int64_t producer_id, int16_t epoch,
                                int records) {
  std::array<std::byte, 256> scratch;
  WriteBuffer buf(scratch);
  batch::BatchBuilder builder;
  batch::BuilderOptions options;
  options.base_offset = base_offset;
  options.producer_id = producer_id;
  options.producer_epoch = epoch;
  options.base_sequence = 0;
  EXPECT_TRUE(builder.start(buf, options).ok());
  static constexpr std::string_view kValue = "v";
  for (int i = 0; i < records; ++i) {
    batch::RecordInput r;
    r.key_is_null = true;
    r.value = std::as_bytes(std::span(kValue));
    EXPECT_TRUE(builder.append(r).ok());
  }
  EXPECT_TRUE(builder.finish().ok());
  std::vector<std::byte> out(buf.bytes_written());
  buf.copy_to(out);
  return out;
}

void write_file(const std::filesystem::path& path, const std::vector<std::vector<std::byte>>& parts,
                size_t cut_last_by = 0) {
  std::ofstream f(path, std::ios::binary);
  for (size_t i = 0; i < parts.size(); ++i) {
    const size_t n = i + 1 == parts.size() ? parts[i].size() - cut_last_by : parts[i].size();
    f.write(reinterpret_cast<const char*>(parts[i].data()), static_cast<std::streamsize>(n));
  }
}

TEST(StoredProducers, EachRecordGetsTheProducerOfTheBatchThatHoldsIt) {
  char tmpl[] = "/tmp/spillway-stored-producers-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::filesystem::path dir(tmpl);
  // Segment 0: offsets 0-1 (producer 7 epoch 0), 2-4 (7/1); segment 5:
  // 5 (8/0), then a batch cut short. Named as the broker names them.
  write_file(dir / "00000000000000000000.log", {batch_of(0, 7, 0, 2), batch_of(2, 7, 1, 3)});
  write_file(dir / "00000000000000000005.log", {batch_of(5, 8, 0, 1), batch_of(6, 9, 0, 2)}, 10);
  write_file(dir / "00000000000000000000.index", {batch_of(0, 99, 9, 1)});  // not a segment
  TopicContents c;
  for (int64_t o = 0; o < 8; ++o) c.partitions[0][o] = {"k", "v" + std::to_string(o)};
  int64_t covered = 0;
  EXPECT_EQ(annotate_producers(c, 0, dir, &covered), "");
  EXPECT_EQ(covered, 6);
  std::vector<std::pair<int64_t, int16_t>> got;
  for (const auto& [offset, r] : c.partitions[0]) got.emplace_back(r.producer_id, r.producer_epoch);
  const std::vector<std::pair<int64_t, int16_t>> want = {{7, 0}, {7, 0}, {7, 1},   {7, 1},
                                                         {7, 1}, {8, 0}, {-1, -1}, {-1, -1}};
  EXPECT_EQ(got, want);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace spillway::testing
