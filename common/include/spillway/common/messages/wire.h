// Building blocks of the body codecs of both protocols (docs/protocol.md,
// "Conventions", and Kafka's protocol guide): a bounds-checked reader over a
// received body, a writer that appends to a pooled WriteBuffer, and
// WireArray, a lazily iterated `array<T>` that is either a view over
// validated wire bytes (decoded) or a view over caller-owned elements (to
// encode). Messages are described once, field by field, in schema.h, which
// drives these primitives. Nothing here allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string_view>
#include <type_traits>

#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"

namespace spillway::messages {

// Sizes of the wire primitives, for count-before-reserve checks.
inline constexpr size_t kStringHeaderBytes = 2;  // u16 length
inline constexpr size_t kBytesHeaderBytes = 4;   // i32 length
inline constexpr size_t kArrayHeaderBytes = 4;   // i32 count

// A cursor over a body. Every read checks the bytes left first; after a
// failed read the reader is exhausted and ok() is false, so a decoder may
// read a whole structure and test ok() once. Values never outlive the body.
class WireReader {
 public:
  explicit WireReader(std::span<const std::byte> body) noexcept : rest_(body) {}

  int8_t i8() noexcept;
  int16_t i16() noexcept;
  int32_t i32() noexcept;
  int64_t i64() noexcept;
  // [u16 length][bytes], a view into the body.
  std::string_view string() noexcept;
  // [i32 length][bytes], a view into the body. A negative length fails.
  std::span<const std::byte> bytes() noexcept;
  // The next `n` raw bytes.
  std::span<const std::byte> take(size_t n) noexcept;
  // Unsigned LEB128 of at most 5 bytes (Kafka's UNSIGNED_VARINT, the
  // lengths and counts of flexible versions).
  uint32_t uvarint() noexcept;
  // Zigzag varint / varlong (Kafka's VARINT, VARLONG).
  int32_t varint() noexcept;
  int64_t varlong() noexcept;

  bool ok() const noexcept { return ok_; }
  size_t remaining() const noexcept { return rest_.size(); }
  const std::byte* position() const noexcept { return rest_.data(); }
  void fail() noexcept {
    ok_ = false;
    rest_ = {};
  }
  // Names the field whose read failed, for the error message; the first
  // (innermost) name given is kept.
  void blame(std::string_view field) noexcept {
    if (blamed_.empty()) blamed_ = field;
  }
  std::string_view blamed() const noexcept { return blamed_; }

 private:
  std::span<const std::byte> rest_;
  std::string_view blamed_;
  bool ok_ = true;
};

// Appends big-endian values to a WriteBuffer (which spills into its pool when
// the scratch is full). The first failure (a refused rent, a string longer
// than 65535 bytes) is kept and later writes do nothing; check status() once
// at the end. On failure the buffer holds a partial body: discard it.
class WireWriter {
 public:
  explicit WireWriter(WriteBuffer& out) noexcept : out_(out) {}

  void i8(int8_t v) noexcept { keep(out_.write_be<uint8_t>(static_cast<uint8_t>(v))); }
  void i16(int16_t v) noexcept { keep(out_.write_be<int16_t>(v)); }
  void i32(int32_t v) noexcept { keep(out_.write_be<int32_t>(v)); }
  void i64(int64_t v) noexcept { keep(out_.write_be<int64_t>(v)); }
  void string(std::string_view s) noexcept;
  // A `string` carrying an error message: written in its safe form
  // (error_text.h: absolute paths shortened, bytes that are not printable
  // UTF-8 escaped, at most kMaxErrorTextBytes), so no error a peer reads
  // holds the server's paths or raw bytes a client sent. Every error_message
  // field of every response goes through here.
  void error_message(std::string_view message) noexcept;
  // [i32 length][bytes].
  void bytes(std::span<const std::byte> b) noexcept;
  // Only the [i32 length] of a `bytes` field; the caller then writes exactly
  // `length` bytes with raw() (e.g. a batch held in several pooled segments).
  void bytes_header(int32_t length) noexcept { i32(length); }
  void raw(std::span<const std::byte> b) noexcept { keep(out_.write(b)); }
  void uvarint(uint32_t v) noexcept { keep(out_.write_uvarint(v)); }
  void varint(int32_t v) noexcept { keep(out_.write_varint(v)); }
  void varlong(int64_t v) noexcept { keep(out_.write_varlong(v)); }
  // Records a failure (e.g. a value the encoding cannot represent).
  void fail(Status s) noexcept { keep(std::move(s)); }

  // Bytes written to the buffer so far (by everyone, not only this writer).
  uint64_t position() const noexcept { return out_.bytes_written(); }
  // Patches an i32 written earlier at `offset` (e.g. a count not known up
  // front). Precondition: offset + 4 <= position().
  void patch_i32(uint64_t offset, int32_t v) noexcept;

  const Status& status() const noexcept { return status_; }
  bool ok() const noexcept { return status_.ok(); }
  WriteBuffer& buffer() noexcept { return out_; }

 private:
  void keep(Status s) noexcept {
    if (!s.ok() && status_.ok()) status_ = std::move(s);
  }

  WriteBuffer& out_;
  Status status_;
};

// How one element of an array<T> is read and written. The primary template
// forwards to T's static members:
//   static constexpr size_t kMinWireBytes;              // smallest encoding
//   static bool read(WireReader&, T* out);              // false = malformed
//   static void write(WireWriter&, const T&);
template <typename T>
struct WireElement {
  static constexpr size_t kMinWireBytes = T::kMinWireBytes;
  static bool read(WireReader& r, T* out) noexcept { return T::read(r, out); }
  static void write(WireWriter& w, const T& v) noexcept { T::write(w, v); }
};

template <>
struct WireElement<int32_t> {
  static constexpr size_t kMinWireBytes = 4;
  static bool read(WireReader& r, int32_t* out) noexcept {
    *out = r.i32();
    return r.ok();
  }
  static void write(WireWriter& w, int32_t v) noexcept { w.i32(v); }
};

template <>
struct WireElement<std::string_view> {
  static constexpr size_t kMinWireBytes = 2;
  static bool read(WireReader& r, std::string_view* out) noexcept {
    *out = r.string();
    return r.ok();
  }
  static void write(WireWriter& w, std::string_view v) noexcept { w.string(v); }
};

// array<T>: i32 count, then count elements. A decoded WireArray views the
// element bytes of a body that read() has already validated, so iterating it
// cannot fail and parses each element as it goes (no storage per element).
// An encodable WireArray views caller-owned elements. Either way it is two
// words and a count, and must not outlive what it views.
template <typename T>
class WireArray {
 public:
  WireArray() noexcept = default;
  // Views caller-owned elements (for encoding).
  WireArray(std::span<const T> items) noexcept  // NOLINT(google-explicit-constructor)
      : count_(static_cast<int32_t>(items.size())), items_(items.data()) {}
  // Views a caller-owned contiguous container (std::array, std::vector).
  template <typename R>
  requires(!std::is_same_v<std::remove_cvref_t<R>, WireArray> &&
           std::is_convertible_v<const R&, std::span<const T>>) WireArray(const R& items)
  noexcept  // NOLINT(google-explicit-constructor)
      : WireArray(std::span<const T>(items)) {}

  int32_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;

    iterator() noexcept = default;
    const T& operator*() const noexcept { return items_ ? *items_ : current_; }
    const T* operator->() const noexcept { return &**this; }
    iterator& operator++() noexcept {
      --left_;
      if (items_) {
        ++items_;
      } else if (left_ > 0) {
        parse();
      }
      return *this;
    }
    void operator++(int) noexcept { ++*this; }
    bool operator==(const iterator& o) const noexcept { return left_ == o.left_; }

   private:
    friend class WireArray;
    void parse() noexcept {
      WireReader r(rest_);
      WireElement<T>::read(r, &current_);  // validated by read(): cannot fail
      rest_ = rest_.subspan(rest_.size() - r.remaining());
    }
    int32_t left_ = 0;
    const T* items_ = nullptr;
    std::span<const std::byte> rest_;
    T current_{};
  };

  iterator begin() const noexcept {
    iterator it;
    it.left_ = count_;
    if (items_) {
      it.items_ = items_;
    } else {
      it.rest_ = wire_;
      if (count_ > 0) it.parse();
    }
    return it;
  }
  iterator end() const noexcept { return iterator(); }

  // Reads [i32 count][elements], validating every element (recursively) so
  // later iteration cannot fail. The count is checked against the bytes left
  // before anything else. `allow_null`: a count of -1 is accepted and
  // reported through *is_null (Metadata's "all topics").
  static bool read(WireReader& r, WireArray* out, bool* is_null = nullptr) noexcept {
    const int32_t count = r.i32();
    if (!r.ok()) return false;
    if (count == -1 && is_null) {
      *is_null = true;
      *out = WireArray();
      return true;
    }
    if (is_null) *is_null = false;
    if (count < 0 || static_cast<size_t>(count) > r.remaining() / WireElement<T>::kMinWireBytes) {
      r.fail();
      return false;
    }
    const std::byte* start = r.position();
    T scratch{};
    for (int32_t i = 0; i < count; ++i) {
      if (!WireElement<T>::read(r, &scratch) || !r.ok()) {
        r.fail();
        return false;
      }
    }
    out->count_ = count;
    out->items_ = nullptr;
    out->wire_ = std::span<const std::byte>(start, static_cast<size_t>(r.position() - start));
    return true;
  }

  static void write(WireWriter& w, const WireArray& a) noexcept {
    w.i32(a.count_);
    for (const T& item : a) WireElement<T>::write(w, item);
  }

 private:
  int32_t count_ = 0;
  const T* items_ = nullptr;  // non-null: views caller elements
  std::span<const std::byte> wire_;
};

// Writes `a` as array<T>, or a null array (count -1) when `null`.
template <typename T>
void write_array(WireWriter& w, const WireArray<T>& a) noexcept {
  WireArray<T>::write(w, a);
}

// Error results carry an i16 on the wire; unknown numbers pass through.
inline ErrorCode error_code_from_wire(int16_t v) noexcept {
  return static_cast<ErrorCode>(v);
}

}  // namespace spillway::messages
