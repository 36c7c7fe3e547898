// The one interface through which a compressed records block (gzip, snappy,
// lz4 or zstd: RecordBatch attribute codecs 1-4) becomes bytes, piece by
// piece, never more than a bound in total. Validation reads records through
// it without keeping them (decompressed_source.h); decompress_records copies
// the pieces out. Private to spillway_common.
//
// Memory: every decompressor works in a per-thread context that is created
// once and reused (zstd and lz4 contexts, a zlib stream, a snappy scratch
// buffer), so a steady stream of batches allocates nothing. One decompressor
// at a time per thread: constructing a second one on the same thread while
// the first is in use resets the shared context under it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "spillway/common/record_batch.h"
#include "spillway/common/status.h"

namespace spillway::batch {

class Decompressor {
 public:
  enum class Pull : uint8_t {
    kData,   // *piece holds the next decompressed bytes (never empty)
    kEnd,    // the block is complete: every frame ended, all input used
    kError,  // malformed, truncated, beyond the bound, or no context: see error()
  };

  virtual ~Decompressor() = default;
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // Produces the next piece of output. `window` (non-empty) is scratch the
  // decompressor may write into; on kData, *piece is at most window.size()
  // bytes, either a prefix of `window` or memory of the decompressor's own,
  // and stays valid until the next call. After kEnd or kError every further
  // call returns the same.
  virtual Pull pull(std::span<std::byte> window, std::span<const std::byte>* piece) = 0;

  // Why the last pull returned kError (a static string), else nullptr.
  const char* error() const noexcept { return error_; }
  // kCorruptMessage for bad input (including a block that expands past the
  // bound), kResourceExhausted when a context could not be allocated.
  ErrorCode error_code() const noexcept { return error_code_; }
  Status error_status() const {
    return Status(error_code_, error_ ? error_ : "decompression failed");
  }

 protected:
  // `bound`: the most bytes the whole block may decompress to.
  explicit Decompressor(uint64_t bound) noexcept : bound_(bound) {}

  // The largest output worth asking the codec for: the window, but never
  // more than one byte past the bound, so that passing it is observable
  // while a bomb is never inflated beyond it.
  std::size_t room(std::size_t window) const noexcept {
    const uint64_t left = bound_ - produced_ + 1;
    return left < window ? static_cast<std::size_t>(left) : window;
  }
  // Bytes the block may still produce without passing the bound.
  uint64_t remaining() const noexcept { return bound_ - produced_; }
  // Accounts for n bytes of output; false (and an error) past the bound.
  bool account(std::size_t n, const char* beyond_bound) noexcept {
    produced_ += n;
    if (produced_ > bound_) {
      fail(beyond_bound);
      return false;
    }
    return true;
  }
  Pull fail(const char* why, ErrorCode code = ErrorCode::kCorruptMessage) noexcept {
    if (!error_) {
      error_ = why;
      error_code_ = code;
    }
    return Pull::kError;
  }
  // kError again after a failure; what pull() returns once it has failed.
  bool failed() const noexcept { return error_ != nullptr; }

 private:
  uint64_t bound_;
  uint64_t produced_ = 0;
  const char* error_ = nullptr;
  ErrorCode error_code_ = ErrorCode::kCorruptMessage;
};

}  // namespace spillway::batch
