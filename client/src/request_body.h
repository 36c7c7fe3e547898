// Control requests (admin calls, consumer offsets, metadata lookups) encode
// their body with a common/messages encoder into a WriteBuffer, then hand
// Connection::request() one contiguous copy. Not for the hot path: the copy
// is a vector allocated per call.
#pragma once

#include <cstddef>
#include <vector>

#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"

namespace spillway::wire {

// Runs `encode(WriteBuffer&) -> Status` and returns the bytes it wrote, or
// its error (e.g. a string longer than 65535 bytes, a refused spill).
template <typename Fn>
Result<std::vector<std::byte>> encode_body(Fn&& encode) {
  std::byte scratch[512];
  WriteBuffer buf(scratch);
  SPILLWAY_RETURN_IF_ERROR(encode(buf));
  std::vector<std::byte> out(buf.bytes_written());
  buf.copy_to(out);
  return out;
}

}  // namespace spillway::wire
