// The one description of a message: its fields in wire order, the types
// they have, the versions each exists in, where it may be null, and (for
// Kafka's flexible versions, KIP-482) which are tagged. Encoder, decoder,
// size computation and tests all read this description (codec.h); no
// message has hand-written per-version code beside it.
//
// A message or a struct inside one is a plain C++ struct with a
//
//   static constexpr auto fields() {
//     return std::tuple{
//         Field<&Topic::name>{"name"},
//         Field<&Topic::topic_id>{"topic_id", since(10)},
//         Field<&Topic::partitions>{"partitions"},
//     };
//   }
//
// (a function, so that the member pointers are taken in a complete class).
// A field's C++ type picks its wire type (codec.h): the fixed-width
// integers, bool, double, Uuid, std::string_view (STRING, COMPACT_STRING in
// flexible versions), std::optional<std::string_view> (NULLABLE_STRING),
// std::span<const std::byte> (BYTES), std::optional<...> of it
// (NULLABLE_BYTES), Records (RECORDS), Array<T> (ARRAY/COMPACT_ARRAY), enums
// (their underlying integer), and any struct with fields().
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>

namespace spillway::wire {

// The versions something exists in: [first, last]; empty when first > last.
struct Versions {
  int16_t first = 0;
  int16_t last = INT16_MAX;
  constexpr bool has(int16_t v) const noexcept { return v >= first && v <= last; }
  constexpr bool empty() const noexcept { return first > last; }
};
inline constexpr Versions kAllVersions{0, INT16_MAX};
inline constexpr Versions kNoVersions{1, 0};
// "v+" in Kafka's notation.
constexpr Versions since(int16_t v) noexcept {
  return {v, INT16_MAX};
}
// "a-b".
constexpr Versions between(int16_t a, int16_t b) noexcept {
  return {a, b};
}

// How a body is encoded: the message version, and whether that version is
// flexible (compact strings/arrays/bytes, a tag buffer after every struct).
struct Context {
  int16_t version = 0;
  bool flexible = false;
};

// Kafka's UUID: 16 bytes.
struct Uuid {
  std::array<std::byte, 16> bytes{};
  friend bool operator==(const Uuid&, const Uuid&) = default;
};

template <typename M>
struct MemberTraits;
template <typename C, typename M>
struct MemberTraits<M C::*> {
  using Class = C;
  using Type = M;
};

// One field of a struct. `Member` is the pointer to the C++ member that
// holds it; the struct's fields() lists them in wire order.
template <auto Member>
struct Field {
  using Class = typename MemberTraits<decltype(Member)>::Class;
  using Type = typename MemberTraits<decltype(Member)>::Type;
  static constexpr auto kMember = Member;

  std::string_view name;
  // The versions the field is on the wire in. Outside them a decoded struct
  // keeps the member's default and an encoder leaves the field out.
  Versions versions = kAllVersions;
  // The versions in which it may be null (strings, bytes, arrays, records).
  Versions nullable = kNoVersions;
  // >= 0: a tagged field (flexible versions only) with this tag, written in
  // the struct's tag buffer instead of in line, and only when it is not
  // the member's default value (its initialiser; for an array: empty).
  int32_t tag = -1;
};

// A struct with a description.
template <typename T>
concept Described = requires {
  T::fields();
};

}  // namespace spillway::wire
