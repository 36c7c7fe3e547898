// The encoder, decoder and size computation that every message description
// (schema.h) drives. One traversal of a struct's fields() per direction,
// resolved at compile time: decoding checks every length and count against
// the bytes left before anything is sized and allocates nothing (strings,
// bytes and arrays are views into the body), encoding appends to a pooled
// WriteBuffer.
//
// Wire types by C++ type and context (Kafka's protocol guide, "Protocol
// Primitive Types"; the native protocol is the non-flexible case):
//   int8_t..int64_t, uint16_t, uint32_t   big-endian fixed width
//   bool                                  INT8, non-zero = true
//   double                                FLOAT64
//   enums, ids.h's strong types           their underlying integer
//   Uuid                                  16 bytes
//   std::string_view, optional<...>       STRING: INT16 length (-1 = null);
//                                         flexible: UNSIGNED_VARINT length+1
//                                         (0 = null)
//   std::span<const std::byte>, optional  BYTES: INT32 length (-1 = null);
//                                         flexible: UNSIGNED_VARINT length+1
//   Records                               as nullable BYTES
//   ErrorText                             STRING, written in its safe form
//   Array<T>                              INT32 count (-1 = null); flexible:
//                                         UNSIGNED_VARINT count+1 (0 = null)
//   a Described struct                    its fields; flexible versions end
//                                         it with a tag buffer
// Null is accepted only where the field's `nullable` versions say so.
#pragma once

#include <cstring>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "spillway/common/endian.h"
#include "spillway/common/error_text.h"
#include "spillway/common/ids.h"
#include "spillway/common/status.h"
#include "spillway/common/varint.h"
#include "spillway/common/wire/primitives.h"
#include "spillway/common/wire/schema.h"
#include "spillway/common/write_buffer.h"

namespace spillway::wire {

// RECORDS: zero or more record batches. Decoded, `bytes` views the body.
// To encode bytes that are not in memory yet (a fetch response copies them
// from a log segment straight into the response), set `deferred_size` and
// `write_deferred`, which must append exactly that many bytes, or none when
// it has placed them beside the buffer at its current end (the broker's
// fetch hands them to the connection as a file range sent with sendfile;
// the frame around them is still encoded here).
struct Records {
  std::span<const std::byte> bytes;
  bool null = false;
  uint64_t deferred_size = 0;
  Status (*write_deferred)(const void* ctx, WriteBuffer& out) = nullptr;
  const void* deferred_ctx = nullptr;

  // Records that `write` appends when the message is encoded: exactly
  // `size` bytes, from `ctx`.
  static Records deferred(uint64_t size, Status (*write)(const void* ctx, WriteBuffer& out),
                          const void* ctx) noexcept {
    Records r;
    r.deferred_size = size;
    r.write_deferred = write;
    r.deferred_ctx = ctx;
    return r;
  }

  uint64_t size() const noexcept { return write_deferred ? deferred_size : bytes.size(); }
  bool empty() const noexcept { return size() == 0; }
  // Decoded records read as the bytes they are.
  operator std::span<const std::byte>() const noexcept { return bytes; }  // NOLINT
};

// An error message sent to a peer. It is written in its safe form
// (error_text.h: the server's absolute paths shortened to their last
// component, bytes that are not printable UTF-8 escaped, at most
// kMaxErrorTextBytes), so no error a peer reads holds the server's paths or
// raw bytes a client sent. Where the field is nullable, "" goes as null.
// Decoded, `text` is what came (null reads as "").
struct ErrorText {
  std::string_view text;

  ErrorText() noexcept = default;
  ErrorText(std::string_view t) noexcept : text(t) {}    // NOLINT(google-explicit-constructor)
  ErrorText(const char* t) noexcept : text(t) {}         // NOLINT(google-explicit-constructor)
  ErrorText(const std::string& t) noexcept : text(t) {}  // NOLINT(google-explicit-constructor)
  operator std::string_view() const noexcept { return text; }  // NOLINT
  bool empty() const noexcept { return text.empty(); }
  friend bool operator==(const ErrorText& a, const ErrorText& b) noexcept {
    return a.text == b.text;
  }
};

// Counts the bytes an encoding takes; the same calls as WireWriter.
class SizeCounter {
 public:
  void i8(int8_t) noexcept { n_ += 1; }
  void i16(int16_t) noexcept { n_ += 2; }
  void i32(int32_t) noexcept { n_ += 4; }
  void i64(int64_t) noexcept { n_ += 8; }
  void uvarint(uint32_t v) noexcept { n_ += varint::uvarint_size(v); }
  void raw(std::span<const std::byte> b) noexcept { n_ += b.size(); }
  void records(const Records& r) noexcept { n_ += r.size(); }
  void fail(Status) noexcept {}
  uint64_t size() const noexcept { return n_; }

 private:
  uint64_t n_ = 0;
};

template <typename E>
class Array;

template <typename T>
inline constexpr bool kIsArray = false;
template <typename E>
inline constexpr bool kIsArray<Array<E>> = true;
template <typename T>
inline constexpr bool kIsOptional = false;
template <typename T>
inline constexpr bool kIsOptional<std::optional<T>> = true;

template <typename T>
bool read_value(WireReader& r, T& out, const Context& c, bool nullable) noexcept;
template <typename Out, typename T>
void write_value(Out& w, const T& v, const Context& c, bool nullable) noexcept;
template <typename T>
size_t min_value_bytes(const Context& c) noexcept;
template <Described T>
bool read_struct(WireReader& r, T& out, const Context& c) noexcept;
template <typename Out, Described T>
void write_struct(Out& w, const T& v, const Context& c) noexcept;

// array<E>: a view, either over validated wire bytes (decoded: elements are
// parsed as they are iterated, so a decoded array costs no storage per
// element) or over caller-owned elements (to encode). Must not outlive what
// it views.
template <typename E>
class Array {
 public:
  Array() noexcept = default;
  // Views caller-owned elements (for encoding).
  Array(std::span<const E> items) noexcept  // NOLINT(google-explicit-constructor)
      : count_(static_cast<int32_t>(items.size())), items_(items.data()) {}
  template <typename R>
  requires(!std::is_same_v<std::remove_cvref_t<R>, Array> &&
           std::is_convertible_v<const R&, std::span<const E>>) Array(const R& items)
  noexcept  // NOLINT(google-explicit-constructor)
      : Array(std::span<const E>(items)) {}
  // The null array (where the field is nullable).
  static Array null() noexcept {
    Array a;
    a.null_ = true;
    return a;
  }

  int32_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  bool is_null() const noexcept { return null_; }

  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = E;
    using difference_type = std::ptrdiff_t;
    using pointer = const E*;
    using reference = const E&;

    iterator() noexcept = default;
    const E& operator*() const noexcept { return items_ ? *items_ : current_; }
    const E* operator->() const noexcept { return &**this; }
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
    friend class Array;
    void parse() noexcept {
      WireReader r(rest_);
      current_ = E{};
      read_value(r, current_, ctx_, false);  // validated when decoded: cannot fail
      rest_ = rest_.subspan(rest_.size() - r.remaining());
    }
    int32_t left_ = 0;
    const E* items_ = nullptr;
    std::span<const std::byte> rest_;
    Context ctx_;
    E current_{};
  };

  iterator begin() const noexcept {
    iterator it;
    it.left_ = count_;
    if (items_) {
      it.items_ = items_;
    } else {
      it.rest_ = wire_;
      it.ctx_ = ctx_;
      if (count_ > 0) it.parse();
    }
    return it;
  }
  iterator end() const noexcept { return iterator(); }

  // Reads the count and validates every element (recursively), so that
  // later iteration cannot fail. The count is checked against the bytes
  // left before anything else.
  static bool read(WireReader& r, Array* out, const Context& c, bool nullable) noexcept {
    int64_t count;
    if (c.flexible) {
      count = static_cast<int64_t>(r.uvarint()) - 1;
    } else {
      count = r.i32();
    }
    if (!r.ok()) return false;
    *out = Array();
    if (count == -1) {
      if (!nullable) return false;
      out->null_ = true;
      return true;
    }
    const size_t min_element = std::max<size_t>(1, min_value_bytes<E>(c));
    if (count < 0 || static_cast<uint64_t>(count) > r.remaining() / min_element) return false;
    const std::byte* start = r.position();
    E scratch{};
    for (int64_t i = 0; i < count; ++i) {
      scratch = E{};
      if (!read_value(r, scratch, c, false)) return false;
    }
    out->count_ = static_cast<int32_t>(count);
    out->ctx_ = c;
    out->wire_ = std::span<const std::byte>(start, static_cast<size_t>(r.position() - start));
    return true;
  }

  template <typename Out>
  static void write(Out& w, const Array& a, const Context& c, bool nullable) noexcept {
    if (a.null_ && !nullable) {
      w.fail(Status(ErrorCode::kInvalidArgument, "null array in a version where it cannot be"));
      return;
    }
    if (c.flexible) {
      w.uvarint(a.null_ ? 0u : static_cast<uint32_t>(a.count_) + 1);
    } else {
      w.i32(a.null_ ? -1 : a.count_);
    }
    for (const E& item : a) write_value(w, item, c, false);
  }

 private:
  int32_t count_ = 0;
  bool null_ = false;
  Context ctx_;
  const E* items_ = nullptr;  // non-null: views caller elements
  std::span<const std::byte> wire_;
};

namespace detail {

inline bool read_length(WireReader& r, const Context& c, bool wide, int64_t* length) noexcept {
  if (c.flexible) {
    *length = static_cast<int64_t>(r.uvarint()) - 1;
  } else {
    *length = wide ? r.i32() : r.i16();
  }
  return r.ok();
}

template <typename Out>
void write_length(Out& w, const Context& c, bool wide, int64_t length) noexcept {
  if (c.flexible) {
    w.uvarint(static_cast<uint32_t>(length + 1));
  } else if (wide) {
    w.i32(static_cast<int32_t>(length));
  } else {
    w.i16(static_cast<int16_t>(length));
  }
}

// Reads a length-prefixed run: -1 is null (allowed only when `nullable`).
inline bool read_run(WireReader& r, const Context& c, bool wide, bool nullable,
                     std::optional<std::span<const std::byte>>* out) noexcept {
  int64_t length;
  if (!read_length(r, c, wide, &length)) return false;
  if (length == -1) {
    *out = std::nullopt;
    return nullable;
  }
  if (length < 0) return false;
  std::span<const std::byte> run = r.take(static_cast<size_t>(length));
  if (!r.ok()) return false;
  *out = run;
  return true;
}

template <typename Out>
void write_run(Out& w, const Context& c, bool wide, std::span<const std::byte> run) noexcept {
  const size_t limit = wide ? static_cast<size_t>(INT32_MAX) - 1 : static_cast<size_t>(INT16_MAX);
  if (run.size() > limit) {
    w.fail(Status(ErrorCode::kInvalidArgument,
                  wide ? "bytes field longer than 2 GiB" : "string longer than 32767 bytes"));
    return;
  }
  write_length(w, c, wide, static_cast<int64_t>(run.size()));
  w.raw(run);
}

inline std::span<const std::byte> as_bytes(std::string_view s) noexcept {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}
inline std::string_view as_string(std::span<const std::byte> b) noexcept {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

template <typename T>
bool read_fixed(WireReader& r, T* out) noexcept {
  std::span<const std::byte> b = r.take(sizeof(T));
  if (b.empty()) return false;
  *out = load_be<T>(b.data());
  return true;
}

template <typename Out, typename T>
void write_fixed(Out& w, T v) noexcept {
  if constexpr (sizeof(T) == 1) {
    w.i8(static_cast<int8_t>(v));
  } else if constexpr (sizeof(T) == 2) {
    w.i16(static_cast<int16_t>(v));
  } else if constexpr (sizeof(T) == 4) {
    w.i32(static_cast<int32_t>(v));
  } else {
    w.i64(static_cast<int64_t>(v));
  }
}

}  // namespace detail

template <typename T>
bool read_value(WireReader& r, T& out, const Context& c, bool nullable) noexcept {
  if constexpr (kIsNamedInt<T>) {
    typename T::value_type v{};
    if (!detail::read_fixed(r, &v)) return false;
    out = T(v);
    return true;
  } else if constexpr (std::is_same_v<T, bool>) {
    int8_t b = 0;
    if (!detail::read_fixed(r, &b)) return false;
    out = b != 0;
    return true;
  } else if constexpr (std::is_enum_v<T>) {
    std::underlying_type_t<T> u{};
    if (!detail::read_fixed(r, &u)) return false;
    out = static_cast<T>(u);
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    return detail::read_fixed(r, &out);
  } else if constexpr (std::is_same_v<T, double>) {
    uint64_t u = 0;
    if (!detail::read_fixed(r, &u)) return false;
    std::memcpy(&out, &u, sizeof out);
    return true;
  } else if constexpr (std::is_same_v<T, Uuid>) {
    std::span<const std::byte> b = r.take(16);
    if (b.empty()) return false;
    std::memcpy(out.bytes.data(), b.data(), 16);
    return true;
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    std::optional<std::span<const std::byte>> run;
    if (!detail::read_run(r, c, false, false, &run)) return false;
    out = detail::as_string(*run);
    return true;
  } else if constexpr (std::is_same_v<T, std::optional<std::string_view>>) {
    std::optional<std::span<const std::byte>> run;
    if (!detail::read_run(r, c, false, nullable, &run)) return false;
    out = run ? std::optional<std::string_view>(detail::as_string(*run)) : std::nullopt;
    return true;
  } else if constexpr (std::is_same_v<T, std::span<const std::byte>>) {
    std::optional<std::span<const std::byte>> run;
    if (!detail::read_run(r, c, true, false, &run)) return false;
    out = *run;
    return true;
  } else if constexpr (std::is_same_v<T, std::optional<std::span<const std::byte>>>) {
    return detail::read_run(r, c, true, nullable, &out);
  } else if constexpr (std::is_same_v<T, ErrorText>) {
    std::optional<std::span<const std::byte>> run;
    if (!detail::read_run(r, c, false, nullable, &run)) return false;
    out = ErrorText(run ? detail::as_string(*run) : std::string_view());
    return true;
  } else if constexpr (std::is_same_v<T, Records>) {
    std::optional<std::span<const std::byte>> run;
    if (!detail::read_run(r, c, true, nullable, &run)) return false;
    out = Records{};
    out.null = !run.has_value();
    if (run) out.bytes = *run;
    return true;
  } else if constexpr (kIsArray<T>) {
    return T::read(r, &out, c, nullable);
  } else {
    static_assert(Described<T>, "no wire type for this C++ type");
    return read_struct(r, out, c);
  }
}

template <typename Out, typename T>
void write_value(Out& w, const T& v, const Context& c, bool nullable) noexcept {
  if constexpr (kIsNamedInt<T>) {
    detail::write_fixed(w, v.value());
  } else if constexpr (std::is_same_v<T, bool>) {
    w.i8(v ? 1 : 0);
  } else if constexpr (std::is_enum_v<T>) {
    detail::write_fixed(w, static_cast<std::underlying_type_t<T>>(v));
  } else if constexpr (std::is_integral_v<T>) {
    detail::write_fixed(w, v);
  } else if constexpr (std::is_same_v<T, double>) {
    uint64_t u;
    std::memcpy(&u, &v, sizeof u);
    w.i64(static_cast<int64_t>(u));
  } else if constexpr (std::is_same_v<T, Uuid>) {
    w.raw(v.bytes);
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    detail::write_run(w, c, false, detail::as_bytes(v));
  } else if constexpr (std::is_same_v<T, std::optional<std::string_view>>) {
    if (!v) {
      if (!nullable) w.fail(Status(ErrorCode::kInvalidArgument, "null string where not allowed"));
      detail::write_length(w, c, false, -1);
      return;
    }
    detail::write_run(w, c, false, detail::as_bytes(*v));
  } else if constexpr (std::is_same_v<T, std::span<const std::byte>>) {
    detail::write_run(w, c, true, v);
  } else if constexpr (std::is_same_v<T, std::optional<std::span<const std::byte>>>) {
    if (!v) {
      if (!nullable) w.fail(Status(ErrorCode::kInvalidArgument, "null bytes where not allowed"));
      detail::write_length(w, c, true, -1);
      return;
    }
    detail::write_run(w, c, true, *v);
  } else if constexpr (std::is_same_v<T, ErrorText>) {
    if (nullable && v.text.empty()) {
      detail::write_length(w, c, false, -1);
      return;
    }
    static_assert(kMaxErrorTextBytes <= INT16_MAX);
    const size_t size = write_error_text(v.text, nullptr, nullptr);
    detail::write_length(w, c, false, static_cast<int64_t>(size));
    write_error_text(
        v.text,
        [](void* out, std::string_view piece) {
          static_cast<Out*>(out)->raw(detail::as_bytes(piece));
        },
        &w);
  } else if constexpr (std::is_same_v<T, Records>) {
    if (v.null) {
      if (!nullable) w.fail(Status(ErrorCode::kInvalidArgument, "null records where not allowed"));
      detail::write_length(w, c, true, -1);
      return;
    }
    if (v.size() > static_cast<uint64_t>(INT32_MAX) - 1) {
      w.fail(Status(ErrorCode::kInvalidArgument, "records longer than 2 GiB"));
      return;
    }
    detail::write_length(w, c, true, static_cast<int64_t>(v.size()));
    if (v.write_deferred) {
      w.records(v);
    } else {
      w.raw(v.bytes);
    }
  } else if constexpr (kIsArray<T>) {
    T::write(w, v, c, nullable);
  } else {
    static_assert(Described<T>, "no wire type for this C++ type");
    write_struct(w, v, c);
  }
}

template <typename T>
size_t min_value_bytes(const Context& c) noexcept {
  if constexpr (kIsNamedInt<T>) {
    return sizeof(typename T::value_type);
  } else if constexpr (std::is_same_v<T, bool>) {
    return 1;
  } else if constexpr (std::is_enum_v<T>) {
    return sizeof(std::underlying_type_t<T>);
  } else if constexpr (std::is_arithmetic_v<T>) {
    return sizeof(T);
  } else if constexpr (std::is_same_v<T, Uuid>) {
    return 16;
  } else if constexpr (std::is_same_v<T, std::string_view> ||
                       std::is_same_v<T, std::optional<std::string_view>> ||
                       std::is_same_v<T, ErrorText>) {
    return c.flexible ? 1 : 2;
  } else if constexpr (std::is_same_v<T, std::span<const std::byte>> ||
                       std::is_same_v<T, std::optional<std::span<const std::byte>>> ||
                       std::is_same_v<T, Records> || kIsArray<T>) {
    return c.flexible ? 1 : 4;
  } else {
    static_assert(Described<T>, "no wire type for this C++ type");
    size_t n = c.flexible ? 1 : 0;  // the tag buffer's count
    std::apply(
        [&](const auto&... f) {
          ((n += (f.tag < 0 && f.versions.has(c.version))
                     ? min_value_bytes<typename std::remove_cvref_t<decltype(f)>::Type>(c)
                     : 0),
           ...);
        },
        T::fields());
    return n;
  }
}

namespace detail {

template <typename T, typename F>
bool read_inline_field(WireReader& r, T& out, const F& f, const Context& c) noexcept {
  if (f.tag >= 0 || !f.versions.has(c.version)) return true;
  if (read_value(r, out.*F::kMember, c, f.nullable.has(c.version)) && r.ok()) return true;
  r.fail();
  r.blame(f.name);
  return false;
}

// Reads a tag buffer: known tags into their members, unknown ones skipped.
template <typename T>
bool read_tags(WireReader& r, T& out, const Context& c) noexcept {
  const uint32_t count = r.uvarint();
  if (!r.ok() || count > r.remaining() / 2) return false;  // a tag and a size each
  int64_t previous = -1;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t tag = r.uvarint();
    const uint32_t size = r.uvarint();
    if (!r.ok() || static_cast<int64_t>(tag) <= previous || size > r.remaining()) return false;
    previous = tag;
    WireReader field_reader(r.take(size));
    bool known_ok = true;
    std::apply(
        [&](const auto&... f) {
          ((f.tag >= 0 && static_cast<uint32_t>(f.tag) == tag && f.versions.has(c.version)
                ? (known_ok =
                       read_value(field_reader, out.*std::remove_cvref_t<decltype(f)>::kMember, c,
                                  f.nullable.has(c.version)) &&
                       field_reader.ok() && field_reader.remaining() == 0)
                : false),
           ...);
        },
        T::fields());
    if (!known_ok) {
      r.fail();
      return false;
    }
  }
  return r.ok();
}

// Whether a tagged field goes on the wire: as in Kafka, only when its value
// differs from the default its description declares, which is the member's
// initialiser (often -1, not zero); an array only when it is null or not
// empty; a type without == (a struct without one) always.
template <typename F, typename T>
bool tag_present(const F& f, const T& v, const Context& c) noexcept {
  using M = typename F::Type;
  if (f.tag < 0 || !f.versions.has(c.version)) return false;
  const M& value = v.*F::kMember;
  if constexpr (kIsArray<M>) {
    return value.is_null() || !value.empty();
  } else if constexpr (std::equality_comparable<M>) {
    return !(value == typename F::Class{}.*F::kMember);
  } else {
    return true;
  }
}

template <typename Out, typename T>
void write_tags(Out& w, const T& v, const Context& c) noexcept {
  uint32_t count = 0;
  std::apply([&](const auto&... f) { ((count += tag_present(f, v, c) ? 1 : 0), ...); },
             T::fields());
  w.uvarint(count);
  if (count == 0) return;
  // fields() lists tagged fields in increasing tag order, as the wire wants.
  std::apply(
      [&](const auto&... f) {
        (
            [&] {
              if (!tag_present(f, v, c)) return;
              const auto& value = v.*std::remove_cvref_t<decltype(f)>::kMember;
              const bool nullable = f.nullable.has(c.version);
              SizeCounter size;
              write_value(size, value, c, nullable);
              w.uvarint(static_cast<uint32_t>(f.tag));
              w.uvarint(static_cast<uint32_t>(size.size()));
              write_value(w, value, c, nullable);
            }(),
            ...);
      },
      T::fields());
}

}  // namespace detail

template <Described T>
bool read_struct(WireReader& r, T& out, const Context& c) noexcept {
  const bool fields_ok =
      std::apply([&](const auto&... f) { return (detail::read_inline_field(r, out, f, c) && ...); },
                 T::fields());
  if (!fields_ok) return false;
  if (c.flexible && !detail::read_tags(r, out, c)) {
    r.fail();
    r.blame("tagged fields");
    return false;
  }
  return r.ok();
}

template <typename Out, Described T>
void write_struct(Out& w, const T& v, const Context& c) noexcept {
  std::apply(
      [&](const auto&... f) {
        ((f.tag < 0 && f.versions.has(c.version)
              ? write_value(w, v.*std::remove_cvref_t<decltype(f)>::kMember, c,
                            f.nullable.has(c.version))
              : void()),
         ...);
      },
      T::fields());
  if (c.flexible) detail::write_tags(w, v, c);
}

// Appends records written by Records::write_deferred (WireWriter's side of
// SizeCounter::records).
class MessageWriter : public WireWriter {
 public:
  using WireWriter::WireWriter;
  void records(const Records& r) noexcept {
    if (!ok()) return;
    const uint64_t before = position();
    if (Status st = r.write_deferred(r.deferred_ctx, buffer()); !st.ok()) {
      fail(std::move(st));
    } else if (const uint64_t n = position() - before; n != r.deferred_size && n != 0) {
      fail(Status(ErrorCode::kUnknown, "deferred records wrote the wrong number of bytes"));
    }
  }
};

// Decodes a whole body as `T` in context `c`. Every byte must be used.
// Error: kCorruptMessage "malformed <what> v<version>" naming the field.
template <Described T>
Result<T> decode(std::span<const std::byte> body, const Context& c, std::string_view what) {
  WireReader r(body);
  T out{};
  if (!read_struct(r, out, c) || r.remaining() != 0) {
    std::string message = "malformed " + std::string(what) + " v" + std::to_string(c.version);
    if (!r.blamed().empty()) message += " (field " + std::string(r.blamed()) + ")";
    if (r.ok() && r.remaining() != 0)
      message += " (" + std::to_string(r.remaining()) + " bytes left over)";
    return Status(ErrorCode::kCorruptMessage, std::move(message));
  }
  return out;
}

// Appends `v` encoded in context `c` to `out`. On error `out` holds a
// partial body: discard it.
template <Described T>
Status encode(const T& v, const Context& c, WriteBuffer& out) noexcept {
  MessageWriter w(out);
  write_struct(w, v, c);
  return w.status();
}

// Bytes encode(v, c) appends.
template <Described T>
uint64_t encoded_size(const T& v, const Context& c) noexcept {
  SizeCounter n;
  write_struct(n, v, c);
  return n.size();
}

}  // namespace spillway::wire
