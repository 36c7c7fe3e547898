// WriteBuffer slow paths: spilling into pooled segments, the segment table,
// copy-out, patching, rewind and release.
#include "spillway/common/write_buffer.h"

#include <algorithm>
#include <new>

namespace spillway {

WriteBuffer::WriteBuffer(WriteBuffer&& other) noexcept
    : cur_(other.cur_), end_(other.end_), base_(other.base_) {
  if (base_ & kOwnPool) pool_ = other.pool_;  // otherwise unset in both
  // The scratch (and any segments) now belong to this buffer; the moved-from
  // one is left empty, with no scratch, writing to the same pool.
  BufferPool* const p = own_pool();
  other.cur_ = other.end_ = nullptr;
  other.base_ = p ? kOwnPool : 0;
  other.pool_ = p;
}

WriteBuffer& WriteBuffer::operator=(WriteBuffer&& other) noexcept {
  if (this != &other) {
    release();
    new (this) WriteBuffer(std::move(other));
  }
  return *this;
}

Status WriteBuffer::spill(std::size_t min_size) noexcept {
  const std::size_t growth_class = table() ? table()->next_class : 0;
  const std::size_t want = std::max(min_size, BufferPool::kClassSizes[growth_class]);
  BufferPool& pool = this->pool();
  std::span<std::byte> seg = pool.rent(want);
  if (seg.empty()) {
    return Status(ErrorCode::kResourceExhausted, "buffer pool refused a segment");
  }
  if (!table()) {
    std::span<std::byte> t = pool.rent(kTableBytes);
    if (t.empty()) {
      pool.give_back(seg.data());
      return Status(ErrorCode::kResourceExhausted, "buffer pool refused a segment table");
    }
    const auto capacity = static_cast<uint32_t>((t.size() - sizeof(Table)) / sizeof(iovec));
    std::byte* const scratch = scratch_begin();
    Table* fresh = new (t.data()) Table{1, capacity, 0, 0, 0, end_, base_, own_pool()};
    base_ = reinterpret_cast<uintptr_t>(fresh) | kSpilled;
    fresh->chunks()[0] = {scratch, static_cast<std::size_t>(cur_ - scratch)};
  } else if (table()->count == table()->capacity) {
    pool.give_back(seg.data());
    return Status(ErrorCode::kResourceExhausted, "write buffer segment table is full");
  } else {
    sync_current();
  }
  table()->done += table()->chunks()[table()->count - 1].iov_len;
  table()->chunks()[table()->count++] = {seg.data(), 0};
  table()->next_class = static_cast<uint32_t>(
      std::min(BufferPool::class_for(seg.size()) + 1, BufferPool::kNumClasses - 1));
  cur_ = seg.data();
  end_ = seg.data() + seg.size();
  return Status::Ok();
}

std::span<std::byte> WriteBuffer::reserve_slow(std::size_t n) noexcept {
  if (n == 0) n = 1;
  if (n > BufferPool::kMaxBufferSize) return {};
  if (static_cast<std::size_t>(end_ - cur_) < n && !spill(n).ok()) return {};
  return {cur_, end_};
}

Status WriteBuffer::write_slow(std::span<const std::byte> bytes) noexcept {
  // A write that fits one segment is not split: it starts a new chunk and
  // the rest of the current one stays unused. One memcpy instead of two, and
  // fixed-size fields and varints never straddle chunks. (Only the unused
  // tail is lost, and chunks grow, so the waste stays small.)
  if (bytes.size() <= BufferPool::kMaxBufferSize) {
    SPILLWAY_RETURN_IF_ERROR(spill(bytes.size()));  // unchanged on failure
    std::memcpy(cur_, bytes.data(), bytes.size());
    cur_ += bytes.size();
    return Status::Ok();
  }
  const Mark m = mark();
  while (!bytes.empty()) {
    std::size_t room = static_cast<std::size_t>(end_ - cur_);
    if (room == 0) {
      Status st = spill(std::min(bytes.size(), BufferPool::kMaxBufferSize));
      if (!st.ok()) {
        rewind(m);
        return st;
      }
      room = static_cast<std::size_t>(end_ - cur_);
    }
    const std::size_t n = std::min(room, bytes.size());
    std::memcpy(cur_, bytes.data(), n);
    cur_ += n;
    bytes = bytes.subspan(n);
  }
  return Status::Ok();
}

std::size_t WriteBuffer::copy_to_slow(std::span<std::byte> out) const noexcept {
  std::size_t at = 0;
  for_each_piece(0, [&](std::span<const std::byte> piece) {
    assert(out.size() - at >= piece.size());
    std::memcpy(out.data() + at, piece.data(), piece.size());
    at += piece.size();
  });
  return at;
}

std::span<const iovec> WriteBuffer::segments() noexcept {
  if (!table()) {
    scratch_view_ = {scratch_begin(), static_cast<std::size_t>(cur_ - scratch_begin())};
    return scratch_view_.iov_len ? std::span<const iovec>(&scratch_view_, 1)
                                 : std::span<const iovec>();
  }
  sync_current();
  const iovec* c = table()->chunks();
  const std::size_t skip = c[0].iov_len == 0 ? 1 : 0;
  return {c + skip, table()->count - skip};
}

void WriteBuffer::overwrite(uint64_t offset, std::span<const std::byte> bytes) noexcept {
  assert(offset + bytes.size() <= bytes_written());
  for_each_piece(offset, [&](std::span<const std::byte> piece) {
    const std::size_t n = std::min(piece.size(), bytes.size());
    if (n == 0) return;
    // The pieces are this buffer's own writable memory.
    std::memcpy(const_cast<std::byte*>(piece.data()), bytes.data(), n);
    bytes = bytes.subspan(n);
  });
}

WriteBuffer::Mark WriteBuffer::mark() const noexcept {
  return {cur_, end_, table() ? table()->done : 0, table() ? table()->count : 0};
}

void WriteBuffer::rewind(const Mark& m) noexcept {
  if (table()) {
    if (m.chunks == 0) {
      release_segments();
    } else {
      iovec* c = table()->chunks();
      for (uint32_t i = table()->count; i > m.chunks; --i) {
        pool().give_back(static_cast<std::byte*>(c[i - 1].iov_base));
      }
      table()->count = m.chunks;
      table()->done = m.done;
    }
  }
  cur_ = m.cur;
  end_ = m.end;
}

void WriteBuffer::release_segments() noexcept {
  const iovec* c = table()->chunks();
  for (uint32_t i = 1; i < table()->count; ++i) {
    pool().give_back(static_cast<std::byte*>(c[i].iov_base));
  }
  BufferPool& pool = this->pool();
  Table* t = table();
  end_ = t->scratch_end;
  base_ = t->scratch_base;
  pool_ = t->pool;
  pool.give_back(reinterpret_cast<std::byte*>(t));
}

}  // namespace spillway
