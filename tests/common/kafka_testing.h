// Test support for the Kafka message descriptions (common/kafka/*.h):
// hex goldens, encoding to a vector, and a generic filler and comparer that
// walk any description, so that one test covers every field of every
// message in every version.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "spillway/common/wire/codec.h"

namespace spillway::testing {

// "00 12 ab" (spaces and line breaks ignored) as bytes.
inline std::vector<std::byte> unhex(std::string_view hex) {
  std::vector<std::byte> out;
  int high = -1;
  for (char ch : hex) {
    int nibble;
    if (ch >= '0' && ch <= '9') {
      nibble = ch - '0';
    } else if (ch >= 'a' && ch <= 'f') {
      nibble = ch - 'a' + 10;
    } else {
      continue;
    }
    if (high < 0) {
      high = nibble;
    } else {
      out.push_back(static_cast<std::byte>(high << 4 | nibble));
      high = -1;
    }
  }
  return out;
}

inline std::vector<std::byte> concat(std::span<const std::byte> a, std::span<const std::byte> b) {
  std::vector<std::byte> out(a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// Runs `write(WriteBuffer&)` and returns what it appended; fails the test
// if it returns an error.
template <typename Write>
std::vector<std::byte> written(Write write) {
  std::array<std::byte, 64> scratch;  // small: longer bodies spill into the pool
  WriteBuffer out{std::span<std::byte>(scratch)};
  const Status st = write(out);
  EXPECT_TRUE(st.ok()) << st.to_string();
  std::vector<std::byte> bytes(out.bytes_written());
  out.copy_to(bytes);
  return bytes;
}

// The body of `v` in context `c`; also checks encoded_size against it.
template <typename T>
std::vector<std::byte> encoded(const T& v, const wire::Context& c) {
  std::vector<std::byte> body = written([&](WriteBuffer& out) { return wire::encode(v, c, out); });
  EXPECT_EQ(body.size(), wire::encoded_size(v, c));
  return body;
}

// Fills every field of a description, recursively, with values that differ
// from the defaults (so that tagged fields go on the wire), two elements
// per array. With `nulls`, every field that may be null in the context is
// null instead. Owns what the filled messages view.
class Filler {
 public:
  Filler(wire::Context c, bool nulls) : c_(c), nulls_(nulls) {}

  template <typename T>
  void fill(T& v, bool nullable) {
    if constexpr (std::is_same_v<T, bool>) {
      v = true;
    } else if constexpr (std::is_integral_v<T>) {
      v = static_cast<T>(next());
    } else if constexpr (std::is_same_v<T, wire::Uuid>) {
      for (std::byte& b : v.bytes) b = static_cast<std::byte>(next());
    } else if constexpr (std::is_same_v<T, std::string_view>) {
      v = text();
    } else if constexpr (std::is_same_v<T, std::optional<std::string_view>>) {
      v = (nulls_ && nullable) ? std::nullopt : std::optional<std::string_view>(text());
    } else if constexpr (std::is_same_v<T, std::span<const std::byte>>) {
      v = std::as_bytes(std::span<const char>(text()));
    } else if constexpr (std::is_same_v<T, wire::Records>) {
      v = wire::Records{};
      if (nulls_ && nullable) {
        v.null = true;
      } else {
        v.bytes = std::as_bytes(std::span<const char>(text()));
      }
    } else if constexpr (wire::kIsArray<T>) {
      using E = std::remove_cvref_t<decltype(*v.begin())>;
      if (nulls_ && nullable) {
        v = T::null();
        return;
      }
      auto items = std::make_shared<std::array<E, 2>>();
      for (E& item : *items) fill(item, false);
      v = T(std::span<const E>(*items));
      owned_.push_back(std::move(items));
    } else {
      static_assert(wire::Described<T>, "a field type the filler does not know");
      std::apply(
          [&](const auto&... f) {
            (fill(v.*std::remove_cvref_t<decltype(f)>::kMember, f.nullable.has(c_.version)), ...);
          },
          T::fields());
    }
  }

 private:
  int next() { return ++counter_; }
  std::string_view text() { return strings_.emplace_back("s" + std::to_string(next())); }

  wire::Context c_;
  bool nulls_;
  int counter_ = 0;
  std::deque<std::string> strings_;
  std::vector<std::shared_ptr<void>> owned_;
};

inline bool same_bytes(std::span<const std::byte> a, std::span<const std::byte> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

// Expects `decoded` to equal `sent` in every field on the wire in context
// `c`, and every other field to hold its default. `path` names the field in
// failure messages.
template <typename T>
void expect_same(const T& sent, const T& decoded, const wire::Context& c, const std::string& path) {
  if constexpr (std::is_same_v<T, std::span<const std::byte>>) {
    EXPECT_TRUE(same_bytes(sent, decoded)) << path;
  } else if constexpr (std::is_same_v<T, wire::Records>) {
    EXPECT_EQ(sent.null, decoded.null) << path;
    EXPECT_TRUE(same_bytes(sent.bytes, decoded.bytes)) << path;
  } else if constexpr (wire::kIsArray<T>) {
    EXPECT_EQ(sent.is_null(), decoded.is_null()) << path;
    ASSERT_EQ(sent.size(), decoded.size()) << path;
    auto it = decoded.begin();
    int index = 0;
    for (const auto& item : sent) {
      expect_same(item, *it, c, path + "[" + std::to_string(index++) + "]");
      ++it;
    }
  } else if constexpr (wire::Described<T>) {
    static const T kDefault{};
    std::apply(
        [&](const auto&... f) {
          (
              [&] {
                constexpr auto member = std::remove_cvref_t<decltype(f)>::kMember;
                const bool on_wire = f.versions.has(c.version) && (f.tag < 0 || c.flexible);
                expect_same(on_wire ? sent.*member : kDefault.*member, decoded.*member, c,
                            path + "." + std::string(f.name));
              }(),
              ...);
        },
        T::fields());
  } else if constexpr (std::is_same_v<T, wire::Uuid>) {
    EXPECT_TRUE(sent == decoded) << path;
  } else {
    EXPECT_EQ(sent, decoded) << path;
  }
}

// Tagged fields of T (and of the structs inside it) are listed in strictly
// increasing tag order, as write_tags relies on.
template <typename T>
bool tags_in_order() {
  if constexpr (wire::kIsArray<T>) {
    return tags_in_order<std::remove_cvref_t<decltype(*std::declval<T>().begin())>>();
  } else if constexpr (wire::Described<T>) {
    bool ok = true;
    int32_t last = -1;
    std::apply(
        [&](const auto&... f) {
          ((ok = ok && tags_in_order<typename std::remove_cvref_t<decltype(f)>::Type>() &&
                 (f.tag < 0 || f.tag > last),
            last = f.tag >= 0 ? f.tag : last),
           ...);
        },
        T::fields());
    return ok;
  } else {
    return true;
  }
}

}  // namespace spillway::testing
