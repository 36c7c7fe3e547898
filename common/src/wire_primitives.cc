// WireReader and WireWriter: bounds-checked big-endian and varint
// primitives.
#include "spillway/common/endian.h"
#include "spillway/common/varint.h"
#include "spillway/common/wire/primitives.h"

namespace spillway::wire {

std::span<const std::byte> WireReader::take(size_t n) noexcept {
  if (!ok_ || rest_.size() < n) {
    fail();
    return {};
  }
  std::span<const std::byte> out = rest_.first(n);
  rest_ = rest_.subspan(n);
  return out;
}

int8_t WireReader::i8() noexcept {
  std::span<const std::byte> b = take(1);
  return b.empty() ? 0 : static_cast<int8_t>(b[0]);
}

int16_t WireReader::i16() noexcept {
  std::span<const std::byte> b = take(2);
  return b.empty() ? 0 : load_be<int16_t>(b.data());
}

int32_t WireReader::i32() noexcept {
  std::span<const std::byte> b = take(4);
  return b.empty() ? 0 : load_be<int32_t>(b.data());
}

int64_t WireReader::i64() noexcept {
  std::span<const std::byte> b = take(8);
  return b.empty() ? 0 : load_be<int64_t>(b.data());
}

uint32_t WireReader::uvarint() noexcept {
  uint64_t v = 0;
  const std::byte* end = rest_.data() + rest_.size();
  const std::byte* next =
      ok_ ? varint::get_uvarint(rest_.data(), end, varint::kMaxVarint32Bytes, 32, &v) : nullptr;
  if (next == nullptr) {
    fail();
    return 0;
  }
  rest_ = rest_.subspan(static_cast<size_t>(next - rest_.data()));
  return static_cast<uint32_t>(v);
}

int32_t WireReader::varint() noexcept {
  return varint::unzigzag32(uvarint());
}

int64_t WireReader::varlong() noexcept {
  uint64_t v = 0;
  const std::byte* end = rest_.data() + rest_.size();
  const std::byte* next =
      ok_ ? varint::get_uvarint(rest_.data(), end, varint::kMaxVarint64Bytes, 64, &v) : nullptr;
  if (next == nullptr) {
    fail();
    return 0;
  }
  rest_ = rest_.subspan(static_cast<size_t>(next - rest_.data()));
  return varint::unzigzag64(v);
}

void WireWriter::patch_i32(uint64_t offset, int32_t v) noexcept {
  std::byte tmp[4];
  store_be<int32_t>(tmp, v);
  out_.overwrite(offset, tmp);
}

}  // namespace spillway::wire
