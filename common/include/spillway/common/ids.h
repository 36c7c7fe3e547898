// Strong types for the integers that are easy to swap: an offset, a
// partition index, an epoch and a producer id are different types, so that
// passing a partition where an offset belongs does not compile (Redpanda's
// named_type). Each is a trivially copyable wrapper with explicit
// construction, comparison, and only the arithmetic that means something
// (an offset plus a count is an offset; two offsets differ by a count).
// The wire codec (wire/codec.h) encodes one as its underlying integer.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace spillway {

template <typename T, typename Tag>
class NamedInt {
 public:
  using value_type = T;

  constexpr NamedInt() noexcept = default;
  constexpr explicit NamedInt(T v) noexcept : v_(v) {}
  constexpr T value() const noexcept { return v_; }

  friend constexpr auto operator<=>(NamedInt, NamedInt) noexcept = default;

 private:
  T v_{};
};

template <typename T>
inline constexpr bool kIsNamedInt = false;
template <typename T, typename Tag>
inline constexpr bool kIsNamedInt<NamedInt<T, Tag>> = true;

// A position in a partition's log; -1 usually means "none".
class Offset : public NamedInt<int64_t, struct OffsetTag> {
 public:
  using NamedInt::NamedInt;
  constexpr Offset next() const noexcept { return Offset(value() + 1); }
  friend constexpr Offset operator+(Offset o, int64_t n) noexcept { return Offset(o.value() + n); }
  friend constexpr Offset operator-(Offset o, int64_t n) noexcept { return Offset(o.value() - n); }
  friend constexpr int64_t operator-(Offset a, Offset b) noexcept { return a.value() - b.value(); }
  Offset& operator+=(int64_t n) noexcept { return *this = *this + n; }
  friend constexpr auto operator<=>(Offset, Offset) noexcept = default;
};
inline constexpr Offset kNoOffset{-1};

// A partition's index within its topic.
using PartitionId = NamedInt<int32_t, struct PartitionIdTag>;
// A partition leader's epoch (stamped into every stored batch).
using LeaderEpoch = NamedInt<int32_t, struct LeaderEpochTag>;
// A broker's id in a replicated cluster ([cluster] broker_id); -1 = none.
using BrokerId = int32_t;
inline constexpr BrokerId kNoBroker = -1;
// An idempotent producer's id and epoch (Kafka's producer_id, producer_epoch).
using ProducerId = NamedInt<int64_t, struct ProducerIdTag>;
using ProducerEpoch = NamedInt<int16_t, struct ProducerEpochTag>;

template <>
inline constexpr bool kIsNamedInt<Offset> = true;

}  // namespace spillway

template <typename T, typename Tag>
struct std::hash<spillway::NamedInt<T, Tag>> {
  size_t operator()(spillway::NamedInt<T, Tag> v) const noexcept {
    return std::hash<T>()(v.value());
  }
};
template <>
struct std::hash<spillway::Offset> {
  size_t operator()(spillway::Offset v) const noexcept { return std::hash<int64_t>()(v.value()); }
};
