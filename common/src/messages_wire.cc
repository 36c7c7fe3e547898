// WireReader and WireWriter: the primitives of the native body codecs
// (docs/protocol.md, "Conventions").
#include "spillway/common/endian.h"
#include "spillway/common/error_text.h"
#include "spillway/common/messages/wire.h"
#include "spillway/common/varint.h"

namespace spillway::messages {

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

std::string_view WireReader::string() noexcept {
  std::span<const std::byte> h = take(kStringHeaderBytes);
  if (h.empty()) return {};
  std::span<const std::byte> s = take(load_be<uint16_t>(h.data()));
  return {reinterpret_cast<const char*>(s.data()), s.size()};
}

std::span<const std::byte> WireReader::bytes() noexcept {
  const int32_t n = i32();
  if (!ok_) return {};
  if (n < 0) {
    fail();
    return {};
  }
  return take(static_cast<size_t>(n));
}

void WireWriter::string(std::string_view s) noexcept {
  if (s.size() > UINT16_MAX) {
    keep(Status(ErrorCode::kInvalidArgument, "string longer than 65535 bytes"));
    return;
  }
  keep(out_.write_be<uint16_t>(static_cast<uint16_t>(s.size())));
  raw(std::as_bytes(std::span<const char>(s.data(), s.size())));
}

void WireWriter::error_message(std::string_view message) noexcept {
  static_assert(kMaxErrorTextBytes <= UINT16_MAX);
  const size_t size = write_error_text(message, nullptr, nullptr);
  keep(out_.write_be<uint16_t>(static_cast<uint16_t>(size)));
  write_error_text(
      message,
      [](void* self, std::string_view piece) {
        static_cast<WireWriter*>(self)->raw(
            std::as_bytes(std::span<const char>(piece.data(), piece.size())));
      },
      this);
}

void WireWriter::bytes(std::span<const std::byte> b) noexcept {
  if (b.size() > static_cast<size_t>(INT32_MAX)) {
    keep(Status(ErrorCode::kInvalidArgument, "bytes field longer than 2 GiB"));
    return;
  }
  i32(static_cast<int32_t>(b.size()));
  raw(b);
}

void WireWriter::patch_i32(uint64_t offset, int32_t v) noexcept {
  std::byte tmp[4];
  store_be<int32_t>(tmp, v);
  out_.overwrite(offset, tmp);
}

}  // namespace spillway::messages
