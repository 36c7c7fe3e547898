// WriteBuffer: scratch, boundary, spills, typed writers, views, failure
// atomicity, rewind, release and reuse.
#include "spillway/common/write_buffer.h"

#include <gtest/gtest.h>

#include <array>
#include <numeric>
#include <vector>

namespace spillway {
namespace {

std::vector<std::byte> pattern(std::size_t n, uint8_t seed = 0) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed) & 0xFF);
  return v;
}

std::vector<std::byte> copy_out(const WriteBuffer& wb) {
  std::vector<std::byte> out(wb.bytes_written());
  EXPECT_EQ(wb.copy_to(out), out.size());
  return out;
}

std::vector<std::byte> gather(WriteBuffer& wb) {
  std::vector<std::byte> out;
  for (const iovec& v : wb.segments()) {
    auto* p = static_cast<const std::byte*>(v.iov_base);
    out.insert(out.end(), p, p + v.iov_len);
  }
  return out;
}

TEST(WriteBuffer, StaysSmall) {
  EXPECT_LE(sizeof(WriteBuffer), 64u);
}

TEST(WriteBuffer, ScratchOnly) {
  BufferPool pool;
  std::array<std::byte, 256> scratch;
  WriteBuffer wb(scratch, pool);
  auto data = pattern(100);
  ASSERT_TRUE(wb.write(data).ok());
  EXPECT_FALSE(wb.spilled());
  EXPECT_EQ(wb.bytes_written(), 100u);
  EXPECT_EQ(pool.outstanding_bytes(), 0u);
  EXPECT_EQ(wb.contiguous().data(), scratch.data());
  EXPECT_EQ(wb.contiguous().size(), 100u);
  auto segs = wb.segments();
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_EQ(segs[0].iov_base, scratch.data());
  EXPECT_EQ(copy_out(wb), data);
}

TEST(WriteBuffer, ExactlyAtTheBoundary) {
  BufferPool pool;
  std::array<std::byte, 64> scratch;
  WriteBuffer wb(scratch, pool);
  auto data = pattern(65);
  ASSERT_TRUE(wb.write(std::span(data).first(64)).ok());
  EXPECT_FALSE(wb.spilled());
  EXPECT_EQ(wb.bytes_written(), 64u);
  ASSERT_TRUE(wb.write_u8(static_cast<uint8_t>(data[64])).ok());
  EXPECT_TRUE(wb.spilled());
  EXPECT_EQ(wb.bytes_written(), 65u);
  EXPECT_EQ(wb.segments().size(), 2u);
  EXPECT_EQ(wb.segments()[0].iov_len, 64u);
  EXPECT_EQ(copy_out(wb), data);
  EXPECT_TRUE(wb.contiguous().empty());
}

TEST(WriteBuffer, SingleSpill) {
  BufferPool pool;
  std::array<std::byte, 128> scratch;
  WriteBuffer wb(scratch, pool);
  auto data = pattern(2148);
  ASSERT_TRUE(wb.write(std::span(data).first(100)).ok());
  ASSERT_TRUE(wb.write(std::span(data).subspan(100)).ok());
  EXPECT_TRUE(wb.spilled());
  auto segs = wb.segments();
  ASSERT_EQ(segs.size(), 2u);
  EXPECT_EQ(segs[0].iov_base, scratch.data());
  EXPECT_EQ(segs[0].iov_len, 100u);
  EXPECT_EQ(segs[1].iov_len, 2048u);
  EXPECT_EQ(copy_out(wb), data);
  EXPECT_EQ(gather(wb), data);
  // One segment plus the table.
  EXPECT_EQ(pool.outstanding_bytes(), 4096u + WriteBuffer::kTableBytes);
}

TEST(WriteBuffer, AWriteThatFitsASegmentIsNotSplit) {
  BufferPool pool;
  std::array<std::byte, 128> scratch;
  WriteBuffer wb(scratch, pool);
  auto data = pattern(150);
  ASSERT_TRUE(wb.write(std::span(data).first(100)).ok());
  ASSERT_TRUE(wb.write(std::span(data).subspan(100)).ok());  // 50 > 28 left
  ASSERT_EQ(wb.segments().size(), 2u);
  EXPECT_EQ(wb.segments()[0].iov_len, 100u);
  EXPECT_EQ(wb.segments()[1].iov_len, 50u);
  EXPECT_EQ(wb.bytes_written(), 150u);
  EXPECT_EQ(copy_out(wb), data);
}

TEST(WriteBuffer, WritesLongerThanASegmentAreSplit) {
  BufferPool pool;
  std::array<std::byte, 128> scratch;
  WriteBuffer wb(scratch, pool);
  auto data = pattern(3 * BufferPool::kMaxBufferSize + 5);
  ASSERT_TRUE(wb.write(data).ok());
  // The scratch filled, two full 1 MiB segments, the rest in a third.
  ASSERT_EQ(wb.segments().size(), 4u);
  EXPECT_EQ(wb.segments()[0].iov_len, 128u);
  EXPECT_EQ(wb.segments()[1].iov_len, BufferPool::kMaxBufferSize);
  EXPECT_EQ(wb.segments()[2].iov_len, BufferPool::kMaxBufferSize);
  EXPECT_EQ(wb.segments()[3].iov_len, data.size() - 128 - 2 * BufferPool::kMaxBufferSize);
  EXPECT_EQ(copy_out(wb), data);
}

TEST(WriteBuffer, MultipleSpillsWithMixedWrites) {
  BufferPool pool;
  std::array<std::byte, 100> scratch;
  WriteBuffer wb(scratch, pool);
  std::vector<std::byte> expect;
  auto data = pattern(300000, 7);
  std::size_t at = 0, step = 1;
  while (at < data.size()) {
    std::size_t n = std::min(step, data.size() - at);
    ASSERT_TRUE(wb.write(std::span(data).subspan(at, n)).ok());
    at += n;
    step = step * 3 + 1;
  }
  expect = data;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(wb.write_be<uint32_t>(0xA1B2C3D4u + i).ok());
    for (int k = 0; k < 4; ++k) {
      expect.push_back(static_cast<std::byte>(((0xA1B2C3D4u + i) >> (24 - 8 * k)) & 0xFF));
    }
  }
  EXPECT_GT(wb.segments().size(), 3u);
  EXPECT_EQ(wb.bytes_written(), expect.size());
  EXPECT_EQ(copy_out(wb), expect);
  EXPECT_EQ(gather(wb), expect);
}

TEST(WriteBuffer, EmptyScratch) {
  BufferPool pool;
  WriteBuffer wb(std::span<std::byte>(), pool);
  EXPECT_TRUE(wb.segments().empty());
  ASSERT_TRUE(wb.write_u8(42).ok());
  EXPECT_TRUE(wb.spilled());
  ASSERT_EQ(wb.segments().size(), 1u);  // the empty scratch is left out
  EXPECT_EQ(wb.segments()[0].iov_len, 1u);
  EXPECT_EQ(copy_out(wb), std::vector<std::byte>{std::byte{42}});
}

TEST(WriteBuffer, ReleaseThenReuse) {
  BufferPool pool;
  std::array<std::byte, 32> scratch;
  WriteBuffer wb(scratch, pool);
  for (int round = 0; round < 3; ++round) {
    auto data = pattern(10000, static_cast<uint8_t>(round));
    ASSERT_TRUE(wb.write(data).ok());
    EXPECT_EQ(copy_out(wb), data);
    wb.release();
    EXPECT_EQ(wb.bytes_written(), 0u);
    EXPECT_FALSE(wb.spilled());
    EXPECT_EQ(pool.outstanding_bytes(), 0u);
    EXPECT_TRUE(wb.segments().empty());
  }
  ASSERT_TRUE(wb.write_u8(1).ok());
  EXPECT_EQ(wb.contiguous().data(), scratch.data());
}

struct Snapshot {
  uint64_t bytes;
  bool spilled;
  std::vector<std::byte> content;
  std::size_t outstanding;
};
Snapshot snap(const WriteBuffer& wb, const BufferPool& pool) {
  return {wb.bytes_written(), wb.spilled(), copy_out(wb), pool.outstanding_bytes()};
}
void expect_same(const Snapshot& a, const Snapshot& b) {
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.spilled, b.spilled);
  EXPECT_EQ(a.content, b.content);
  EXPECT_EQ(a.outstanding, b.outstanding);
}

TEST(WriteBuffer, FailedRentLeavesStateUnchanged) {
  // No rent at all: the first spill fails.
  {
    BufferPool::Options o;
    o.max_outstanding_bytes = 0;
    BufferPool pool(o);
    std::array<std::byte, 16> scratch;
    WriteBuffer wb(scratch, pool);
    ASSERT_TRUE(wb.write(pattern(10)).ok());
    Snapshot before = snap(wb, pool);
    EXPECT_EQ(wb.write(pattern(100)).code(), ErrorCode::kResourceExhausted);
    expect_same(before, snap(wb, pool));
    EXPECT_EQ(wb.write_be<uint64_t>(1).code(), ErrorCode::kResourceExhausted);
    EXPECT_EQ(wb.write_varlong(INT64_MIN).code(), ErrorCode::kResourceExhausted);
    EXPECT_TRUE(wb.reserve(100).empty());
    expect_same(before, snap(wb, pool));
    ASSERT_TRUE(wb.write(pattern(6)).ok());  // still usable up to the scratch
  }
  // The segment is granted but the table is not.
  {
    BufferPool::Options o;
    o.max_outstanding_bytes = 4096;
    BufferPool pool(o);
    std::array<std::byte, 16> scratch;
    WriteBuffer wb(scratch, pool);
    ASSERT_TRUE(wb.write(pattern(10)).ok());
    Snapshot before = snap(wb, pool);
    EXPECT_FALSE(wb.write(pattern(100)).ok());
    expect_same(before, snap(wb, pool));
  }
  // A long write that gets two segments and is refused the third.
  {
    BufferPool::Options o;
    o.max_outstanding_bytes = WriteBuffer::kTableBytes + 4096 + 2 * BufferPool::kMaxBufferSize;
    BufferPool pool(o);
    std::array<std::byte, 16> scratch;
    WriteBuffer wb(scratch, pool);
    ASSERT_TRUE(wb.write(pattern(1000)).ok());
    Snapshot before = snap(wb, pool);
    EXPECT_FALSE(wb.write(pattern(3 * BufferPool::kMaxBufferSize)).ok());
    expect_same(before, snap(wb, pool));
    // Smaller writes still succeed afterwards.
    ASSERT_TRUE(wb.write(pattern(5000)).ok());
    EXPECT_EQ(wb.bytes_written(), 6000u);
  }
}

TEST(WriteBuffer, TypedWritersAcrossChunkEdges) {
  BufferPool pool;
  for (std::size_t scratch_size = 0; scratch_size < 12; ++scratch_size) {
    std::vector<std::byte> scratch(scratch_size);
    WriteBuffer wb(scratch, pool);
    ASSERT_TRUE(wb.write_u8(0x01).ok());
    ASSERT_TRUE(wb.write_be<int16_t>(-2).ok());
    ASSERT_TRUE(wb.write_be<uint32_t>(0x01020304u).ok());
    ASSERT_TRUE(wb.write_be<int64_t>(-3).ok());
    ASSERT_TRUE(wb.write_varint(-1).ok());
    ASSERT_TRUE(wb.write_varlong(INT64_MIN).ok());
    ASSERT_TRUE(wb.write_uvarint(300).ok());
    auto out = copy_out(wb);
    const std::byte* p = out.data();
    const std::byte* end = p + out.size();
    EXPECT_EQ(static_cast<uint8_t>(p[0]), 1);
    EXPECT_EQ(load_be<int16_t>(p + 1), -2);
    EXPECT_EQ(load_be<uint32_t>(p + 3), 0x01020304u);
    EXPECT_EQ(load_be<int64_t>(p + 7), -3);
    p += 15;
    int32_t v32;
    int64_t v64;
    uint64_t u;
    p = varint::get_varint(p, end, &v32);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(v32, -1);
    p = varint::get_varlong(p, end, &v64);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(v64, INT64_MIN);
    p = varint::get_uvarint(p, end, 10, 64, &u);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(u, 300u);
    EXPECT_EQ(p, end);
  }
}

TEST(WriteBuffer, ReserveAndAdvance) {
  BufferPool pool;
  std::array<std::byte, 32> scratch;
  WriteBuffer wb(scratch, pool);
  auto s = wb.reserve(10);
  ASSERT_GE(s.size(), 10u);
  EXPECT_EQ(s.data(), scratch.data());
  std::memset(s.data(), 0x5A, 10);
  wb.advance(10);
  auto big = wb.reserve(5000);  // does not fit the scratch: contiguous in a segment
  ASSERT_GE(big.size(), 5000u);
  std::memset(big.data(), 0x6B, 5000);
  wb.advance(5000);
  EXPECT_EQ(wb.bytes_written(), 5010u);
  auto out = copy_out(wb);
  EXPECT_EQ(out[9], std::byte{0x5A});
  EXPECT_EQ(out[10], std::byte{0x6B});
  EXPECT_EQ(out[5009], std::byte{0x6B});
  EXPECT_TRUE(wb.reserve(BufferPool::kMaxBufferSize + 1).empty());
  EXPECT_EQ(wb.bytes_written(), 5010u);
}

TEST(WriteBuffer, OverwriteAcrossChunks) {
  BufferPool pool;
  std::array<std::byte, 8> scratch;
  WriteBuffer wb(scratch, pool);
  auto data = pattern(20);
  ASSERT_TRUE(wb.write(data).ok());
  auto patch = pattern(6, 99);
  wb.overwrite(5, patch);  // bytes 5..10 straddle the scratch edge
  std::copy(patch.begin(), patch.end(), data.begin() + 5);
  EXPECT_EQ(copy_out(wb), data);
  std::vector<std::byte> tail;
  wb.for_each_piece(
      6, [&](std::span<const std::byte> p) { tail.insert(tail.end(), p.begin(), p.end()); });
  EXPECT_EQ(tail, std::vector<std::byte>(data.begin() + 6, data.end()));
}

TEST(WriteBuffer, RewindDropsLaterBytesAndSegments) {
  BufferPool pool;
  std::array<std::byte, 16> scratch;
  WriteBuffer wb(scratch, pool);
  ASSERT_TRUE(wb.write(pattern(10)).ok());
  auto m = wb.mark();
  ASSERT_TRUE(wb.write(pattern(50000)).ok());
  wb.rewind(m);
  EXPECT_EQ(wb.bytes_written(), 10u);
  EXPECT_FALSE(wb.spilled());
  EXPECT_EQ(pool.outstanding_bytes(), 0u);
  ASSERT_TRUE(wb.write(pattern(5000)).ok());
  const std::size_t outstanding = pool.outstanding_bytes();
  const auto content = copy_out(wb);
  auto m2 = wb.mark();
  ASSERT_TRUE(wb.write(pattern(50000)).ok());
  EXPECT_GT(pool.outstanding_bytes(), outstanding);
  wb.rewind(m2);
  EXPECT_EQ(wb.bytes_written(), 5010u);
  EXPECT_EQ(pool.outstanding_bytes(), outstanding);
  EXPECT_EQ(copy_out(wb), content);
}

TEST(WriteBuffer, MoveTransfersEverything) {
  BufferPool pool;
  std::array<std::byte, 16> scratch;
  WriteBuffer a(scratch, pool);
  auto data = pattern(3000);
  ASSERT_TRUE(a.write(data).ok());
  WriteBuffer b(std::move(a));
  EXPECT_EQ(a.bytes_written(), 0u);  // NOLINT(bugprone-use-after-move): documented state
  EXPECT_EQ(copy_out(b), data);
  b.release();
  EXPECT_EQ(pool.outstanding_bytes(), 0u);
  // The moved-from buffer has no scratch but still spills into its pool.
  ASSERT_TRUE(a.write(std::span(data).first(10)).ok());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(a.spilled());
  EXPECT_GT(pool.outstanding_bytes(), 0u);
  a.release();
  EXPECT_EQ(pool.outstanding_bytes(), 0u);
}

// The scratch may start at any byte: the buffer's state tags live in bits an
// address never uses, so an odd scratch address is not mistaken for a spill.
TEST(WriteBuffer, OddScratchAddressSpillsAndReleasesCleanly) {
  BufferPool pool;
  std::array<std::byte, 65> storage;
  std::span<std::byte> scratch(storage.data() + 1, 64);
  ASSERT_EQ(reinterpret_cast<uintptr_t>(scratch.data()) & 1, 1u);
  WriteBuffer wb(scratch, pool);
  auto data = pattern(1000);
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(wb.write(std::span(data).first(60)).ok());
    EXPECT_FALSE(wb.spilled());
    EXPECT_EQ(wb.contiguous().data(), scratch.data());
    ASSERT_TRUE(wb.write(std::span(data).subspan(60)).ok());
    EXPECT_TRUE(wb.spilled());
    EXPECT_EQ(copy_out(wb), data);
    EXPECT_EQ(gather(wb), data);
    wb.release();
    EXPECT_FALSE(wb.spilled());
    EXPECT_EQ(wb.bytes_written(), 0u);
    EXPECT_EQ(pool.outstanding_bytes(), 0u);
  }
}

}  // namespace
}  // namespace spillway
