// WriteBuffer: the scratch-then-spill byte writer every frame and batch is
// built in (docs/architecture.md, "Pooled framing").
//
// It writes into a caller-provided scratch span, usually on the stack. On
// the first overflow it rents a segment from a BufferPool and only then a
// segment table (also from the pool); a message that fits the scratch never
// touches the pool, and the object itself stays at 64 bytes or less, so
// constructing and releasing one costs a few stores.
//
// Failure guarantee: every operation that can fail (a rent refused by the
// pool) returns an error and leaves the buffer exactly as it was.
//
// Views: segments() and contiguous() point into the scratch and the rented
// segments; they stay valid until the next write, reserve, rewind or release.
//
// Concurrency: one thread at a time. Not copyable; movable.
#pragma once

#include <sys/uio.h>

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <span>

#include "spillway/common/buffer_pool.h"
#include "spillway/common/endian.h"
#include "spillway/common/status.h"
#include "spillway/common/varint.h"

namespace spillway {

class WriteBuffer {
 public:
  // Bytes of the pooled block that holds the segment table, and how many
  // chunks (scratch included) it can describe.
  static constexpr std::size_t kTableBytes = 4096;

  // `scratch` must outlive this buffer; it may be empty.
  // Spills go to `pool`, which must outlive the buffer too; without one, to
  // BufferPool::global() (looked up only when spilling, so construction is
  // a handful of stores).
  explicit WriteBuffer(std::span<std::byte> scratch) noexcept
      : cur_(scratch.data()),
        end_(scratch.data() + scratch.size()),
        base_(reinterpret_cast<uintptr_t>(scratch.data())) {
    assert((base_ & kTagMask) == 0 && "user-space pointers leave the top bits clear");
  }
  WriteBuffer(std::span<std::byte> scratch, BufferPool& pool) noexcept : WriteBuffer(scratch) {
    base_ |= kOwnPool;
    pool_ = &pool;
  }
  ~WriteBuffer() {
    if (spilled()) release_segments();
  }
  WriteBuffer(const WriteBuffer&) = delete;
  WriteBuffer& operator=(const WriteBuffer&) = delete;
  WriteBuffer(WriteBuffer&& other) noexcept;
  WriteBuffer& operator=(WriteBuffer&& other) noexcept;

  // Bytes written so far (a running total; O(1)).
  uint64_t bytes_written() const noexcept {
    return table() ? table()->done + static_cast<uint64_t>(cur_ - chunk_begin())
                   : static_cast<uint64_t>(cur_ - scratch_begin());
  }
  // True iff the bytes live in pooled segments, not only in the scratch.
  bool spilled() const noexcept { return (base_ & kSpilled) != 0; }

  // A writable span of at least `n` contiguous bytes at the end of the
  // written data (it may be longer); commit what you fill with advance().
  // Spills if the current chunk has less than `n` left. Returns an empty span
  // if that needs a rent the pool refuses or n > BufferPool::kMaxBufferSize;
  // the buffer is then unchanged. Nothing is zeroed. Precondition: n > 0.
  std::span<std::byte> reserve(std::size_t n) noexcept {
    if (static_cast<std::size_t>(end_ - cur_) >= n && n > 0) return {cur_, end_};
    return reserve_slow(n);
  }
  // What is left of the current chunk (possibly nothing): bytes written
  // there stay contiguous and rent nothing. Commit them with advance().
  std::span<std::byte> room() noexcept { return {cur_, end_}; }
  // Commits `n` bytes of the span the last reserve() or room() returned.
  void advance(std::size_t n) noexcept {
    assert(n <= static_cast<std::size_t>(end_ - cur_));
    cur_ += n;
  }

  // Appends bytes; all or nothing. Bytes that do not fit the current chunk
  // go whole into a new one (unless longer than a segment), so a write is
  // split across chunks only when it must be.
  Status write(std::span<const std::byte> bytes) noexcept {
    if (static_cast<std::size_t>(end_ - cur_) >= bytes.size()) {
      if (!bytes.empty()) std::memcpy(cur_, bytes.data(), bytes.size());
      cur_ += bytes.size();
      return Status::Ok();
    }
    return write_slow(bytes);
  }
  Status write_u8(uint8_t v) noexcept {
    if (cur_ != end_) {
      *cur_++ = static_cast<std::byte>(v);
      return Status::Ok();
    }
    std::byte b = static_cast<std::byte>(v);
    return write_slow({&b, 1});
  }
  // Big-endian integers (Kafka wire order).
  template <typename T>
  Status write_be(T v) noexcept {
    if (static_cast<std::size_t>(end_ - cur_) >= sizeof(T)) {
      store_be<T>(cur_, v);
      cur_ += sizeof(T);
      return Status::Ok();
    }
    std::byte tmp[sizeof(T)];
    store_be<T>(tmp, v);
    return write_slow({tmp, sizeof(T)});
  }
  // Zigzag varint / varlong as in v2 records, and plain unsigned LEB128.
  Status write_varint(int32_t v) noexcept { return write_uvarint(varint::zigzag32(v)); }
  Status write_varlong(int64_t v) noexcept { return write_uvarint(varint::zigzag64(v)); }
  Status write_uvarint(uint64_t u) noexcept {
    if (static_cast<std::size_t>(end_ - cur_) >= varint::kMaxVarint64Bytes) {
      cur_ = varint::put_uvarint(cur_, u);
      return Status::Ok();
    }
    std::byte tmp[varint::kMaxVarint64Bytes];
    std::byte* e = varint::put_uvarint(tmp, u);
    return write_slow({tmp, static_cast<std::size_t>(e - tmp)});
  }

  // Copies every written byte to `out` in order and returns how many.
  // Precondition: out.size() >= bytes_written(). One memcpy when nothing
  // spilled.
  std::size_t copy_to(std::span<std::byte> out) const noexcept {
    if (!table()) {
      std::size_t n = static_cast<std::size_t>(cur_ - scratch_begin());
      assert(out.size() >= n);
      if (n) std::memcpy(out.data(), scratch_begin(), n);
      return n;
    }
    return copy_to_slow(out);
  }

  // The written bytes as one span iff nothing spilled; empty otherwise.
  std::span<const std::byte> contiguous() const noexcept {
    return table() ? std::span<const std::byte>()
                   : std::span<const std::byte>(scratch_begin(), cur_);
  }

  // The written bytes as an iovec array (scratch first, then segments; an
  // empty scratch is left out), ready for writev/sendmsg. Valid until the
  // next write, reserve, rewind or release.
  std::span<const iovec> segments() noexcept;

  // Overwrites bytes already written, e.g. a length or CRC field patched
  // after the body. Precondition: offset + bytes.size() <= bytes_written().
  void overwrite(uint64_t offset, std::span<const std::byte> bytes) noexcept;

  // Calls fn(std::span<const std::byte>) for each contiguous piece of the
  // written bytes in [offset, bytes_written()), in order.
  template <typename Fn>
  void for_each_piece(uint64_t offset, Fn&& fn) const noexcept;

  // A position to rewind() to: drops everything written after mark() and
  // returns the segments rented since. Used to undo a half-built batch.
  struct Mark {
    std::byte* cur;
    std::byte* end;
    uint64_t done;
    uint32_t chunks;  // 0 = table not rented yet
  };
  Mark mark() const noexcept;
  // Precondition: `m` came from mark() on this buffer with no release() or
  // earlier rewind() past it since.
  void rewind(const Mark& m) noexcept;

  // Returns every segment and the table to the pool; the buffer is empty and
  // writes into its scratch again.
  void release() noexcept {
    if (spilled()) release_segments();  // also puts end_ and base_ back
    cur_ = scratch_begin();
  }

 private:
  // Lives at the start of a pooled block, followed by the iovec array. What
  // only a spilled buffer needs is kept here, not in the object.
  struct Table {
    uint32_t count;     // chunks in use, the scratch included as chunk 0
    uint32_t capacity;  // chunks the table can hold
    uint32_t next_class;
    uint32_t unused;
    uint64_t done;           // bytes in chunks before the current one
    std::byte* scratch_end;  // end_ to restore on release
    uintptr_t scratch_base;  // base_ to restore on release (tags included)
    BufferPool* pool;        // the buffer's pool; null = BufferPool::global()
    // The iovec array follows the Table in the same pooled block (addressed
    // through the block's bytes, not as one-past-the-Table).
    iovec* chunks() noexcept {
      return std::launder(
          reinterpret_cast<iovec*>(reinterpret_cast<std::byte*>(this) + sizeof(Table)));
    }
    const iovec* chunks() const noexcept {
      return std::launder(
          reinterpret_cast<const iovec*>(reinterpret_cast<const std::byte*>(this) + sizeof(Table)));
    }
  };

  // Tags in the top bits of base_. User-space addresses on x86-64 and
  // AArch64 (48- or 57-bit) never set them; the constructor asserts it.
  static constexpr uintptr_t kSpilled = uintptr_t{1} << 63;  // base_ is the Table
  static constexpr uintptr_t kOwnPool = uintptr_t{1} << 62;  // pool_ is set
  static constexpr uintptr_t kTagMask = kSpilled | kOwnPool;

  std::byte* chunk_begin() const noexcept {
    return table() ? static_cast<std::byte*>(table()->chunks()[table()->count - 1].iov_base)
                   : scratch_begin();
  }
  Table* table() const noexcept {
    return spilled() ? reinterpret_cast<Table*>(base_ & ~kTagMask) : nullptr;
  }
  // The pool chosen at construction; null = BufferPool::global().
  BufferPool* own_pool() const noexcept {
    if (spilled()) return table()->pool;
    return (base_ & kOwnPool) ? pool_ : nullptr;
  }
  BufferPool& pool() const noexcept {
    BufferPool* p = own_pool();
    return p ? *p : BufferPool::global();
  }
  std::byte* scratch_begin() const noexcept {
    const uintptr_t b = spilled() ? table()->scratch_base : base_;
    return reinterpret_cast<std::byte*>(b & ~kTagMask);
  }
  // Makes the current chunk's length in the table current.
  void sync_current() const noexcept {
    iovec& last = table()->chunks()[table()->count - 1];
    last.iov_len = static_cast<std::size_t>(cur_ - static_cast<std::byte*>(last.iov_base));
  }
  // Rents a segment of at least `min_size` bytes and makes it current.
  Status spill(std::size_t min_size) noexcept;
  std::span<std::byte> reserve_slow(std::size_t n) noexcept;
  Status write_slow(std::span<const std::byte> bytes) noexcept;
  std::size_t copy_to_slow(std::span<std::byte> out) const noexcept;
  void release_segments() noexcept;

  // Construction stores only the first three words (cur_ and end_ as one
  // 16-byte store, then base_): that is what makes a WriteBuffer nearly as
  // cheap as a bare span writer (bench/common, construct + release).
  std::byte* cur_;  // next byte to write
  std::byte* end_;  // end of the current chunk
  // Before the first spill: the scratch start, tagged kOwnPool when pool_
  // holds the pool. After it: the pooled Table's address | kSpilled (the
  // Table then records the scratch, its end and the pool).
  uintptr_t base_;
  // Read only when base_ has kOwnPool; left unset otherwise.
  BufferPool* pool_;
  // The iovec segments() hands out when nothing spilled; written only there.
  iovec scratch_view_;
};

static_assert(sizeof(WriteBuffer) <= 64, "WriteBuffer must stay small (design note 2)");

template <typename Fn>
void WriteBuffer::for_each_piece(uint64_t offset, Fn&& fn) const noexcept {
  if (!table()) {
    std::size_t n = static_cast<std::size_t>(cur_ - scratch_begin());
    if (offset < n) fn(std::span<const std::byte>(scratch_begin() + offset, n - offset));
    return;
  }
  sync_current();
  const iovec* c = table()->chunks();
  for (uint32_t i = 0; i < table()->count; ++i) {
    if (offset >= c[i].iov_len) {
      offset -= c[i].iov_len;
      continue;
    }
    fn(std::span<const std::byte>(static_cast<const std::byte*>(c[i].iov_base) + offset,
                                  c[i].iov_len - offset));
    offset = 0;
  }
}

}  // namespace spillway
