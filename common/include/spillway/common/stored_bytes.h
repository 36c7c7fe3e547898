// The big-endian integers and length-prefixed strings of the broker's small
// state files (groups, ACLs, SCRAM credentials): appenders for writing, and
// a reader that checks every length against the bytes left (and a limit)
// before it copies anything, so a damaged or hostile file cannot make it
// read past the end or allocate much. Each file adds its own magic, version
// and CRC around these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spillway::stored {

inline void put_u8(std::string& out, uint8_t v) {
  out.push_back(static_cast<char>(v));
}
inline void put_u16(std::string& out, uint16_t v) {
  put_u8(out, static_cast<uint8_t>(v >> 8));
  put_u8(out, static_cast<uint8_t>(v));
}
inline void put_u32(std::string& out, uint32_t v) {
  put_u16(out, static_cast<uint16_t>(v >> 16));
  put_u16(out, static_cast<uint16_t>(v));
}
// A string after its u32 length.
inline void put_str(std::string& out, std::string_view s) {
  put_u32(out, static_cast<uint32_t>(s.size()));
  out.append(s);
}

// Every read checks the bytes left first; the first failure sticks (ok()
// turns false and every later read returns zero or empty).
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  size_t left() const { return in_.size(); }
  uint8_t u8() {
    if (!need(1)) return 0;
    const auto v = static_cast<uint8_t>(in_[0]);
    in_.remove_prefix(1);
    return v;
  }
  uint16_t u16() { return static_cast<uint16_t>((u8() << 8) | u8()); }
  uint32_t u32() {
    const uint32_t hi = u16();
    return (hi << 16) | u16();
  }
  int32_t i32() { return static_cast<int32_t>(u32()); }
  // The next `n` bytes.
  std::string take(size_t n) {
    if (!need(n)) return {};
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  // A string after its u32 length, which must not exceed `limit`.
  std::string str(uint32_t limit) {
    const uint32_t n = u32();
    if (n > limit) return fail<std::string>();
    return take(n);
  }
  std::vector<std::byte> bytes(size_t limit) {
    const uint32_t n = u32();
    if (n > limit || !need(n)) return fail<std::vector<std::byte>>();
    const auto* p = reinterpret_cast<const std::byte*>(in_.data());
    std::vector<std::byte> b(p, p + n);
    in_.remove_prefix(n);
    return b;
  }
  // A count of items that take at least `min_item` bytes each.
  uint32_t count(size_t limit, size_t min_item) {
    const uint32_t n = u32();
    if (n > limit || static_cast<uint64_t>(n) * min_item > in_.size()) return fail<uint32_t>();
    return n;
  }

 private:
  bool need(size_t n) {
    if (ok_ && in_.size() >= n) return true;
    ok_ = false;
    return false;
  }
  template <typename T>
  T fail() {
    ok_ = false;
    return T{};
  }
  std::string_view in_;
  bool ok_ = true;
};

}  // namespace spillway::stored
