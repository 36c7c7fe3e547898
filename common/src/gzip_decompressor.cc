// gzip records blocks (see gzip_decompressor.h).
#include "gzip_decompressor.h"

#include <new>

namespace spillway::batch {
namespace {

// zlib's memory comes from operator new, so the allocation counters that
// prove the steady state allocation-free see it too (the stream's state and
// 32 KiB window are allocated once per thread and kept across inflateReset).
voidpf zlib_alloc(voidpf, uInt items, uInt size) {
  return ::operator new(static_cast<std::size_t>(items) * size, std::nothrow);
}
void zlib_free(voidpf, voidpf p) {
  ::operator delete(p);
}

struct ThreadStream {
  z_stream zs{};
  bool initialised = false;
  ~ThreadStream() {
    if (initialised) inflateEnd(&zs);
  }
};

// This thread's inflate stream, reset for a new block; nullptr if zlib
// could not allocate it.
z_stream* thread_stream() noexcept {
  thread_local ThreadStream t;
  if (!t.initialised) {
    t.zs.zalloc = zlib_alloc;
    t.zs.zfree = zlib_free;
    t.zs.opaque = nullptr;
    // 15 + 16: a 32 KiB window, gzip wrapper only (no zlib, no raw deflate).
    if (inflateInit2(&t.zs, 15 + 16) != Z_OK) return nullptr;
    t.initialised = true;
  } else if (inflateReset(&t.zs) != Z_OK) {
    return nullptr;
  }
  return &t.zs;
}

}  // namespace

GzipDecompressor::GzipDecompressor(std::span<const std::byte> block, uint64_t bound) noexcept
    : Decompressor(bound), zs_(thread_stream()) {
  if (zs_) {
    // zlib takes a non-const pointer but only reads the input. A block is at
    // most kMaxBatchBytes, so its size fits uInt.
    zs_->next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(block.data()));
    zs_->avail_in = static_cast<uInt>(block.size());
  }
}

Decompressor::Pull GzipDecompressor::pull(std::span<std::byte> window,
                                          std::span<const std::byte>* piece) {
  if (failed()) return Pull::kError;
  if (!zs_) return fail("cannot create a zlib stream", ErrorCode::kResourceExhausted);
  if (ended_) return Pull::kEnd;
  const auto given = static_cast<uInt>(room(window.size()));
  zs_->next_out = reinterpret_cast<Bytef*>(window.data());
  zs_->avail_out = given;
  std::size_t produced = 0;
  for (;;) {
    const int r = inflate(zs_, Z_NO_FLUSH);
    produced = given - zs_->avail_out;
    if (r == Z_STREAM_END) {
      if (zs_->avail_in == 0) {
        ended_ = true;
        break;
      }
      // Another member follows; it must be a whole gzip member too.
      if (inflateReset(zs_) != Z_OK) return fail("gzip records block is malformed");
      if (produced > 0) break;
      continue;
    }
    if (r == Z_OK) {
      if (produced > 0) break;
      continue;  // input consumed (a header, say) without output yet
    }
    if (r == Z_BUF_ERROR) {
      // No progress possible: the window has room, so the input ran out.
      if (produced > 0) break;
      return fail("gzip records block is truncated");
    }
    if (r == Z_MEM_ERROR) return fail("cannot allocate for zlib", ErrorCode::kResourceExhausted);
    return fail("gzip records block is malformed");  // Z_DATA_ERROR, Z_NEED_DICT
  }
  if (produced == 0) return Pull::kEnd;
  if (!account(produced, "gzip records block decompresses beyond the limit")) return Pull::kError;
  *piece = {window.data(), produced};
  return Pull::kData;
}

}  // namespace spillway::batch
