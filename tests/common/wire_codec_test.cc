// The description-driven codec (wire/schema.h, wire/codec.h) on a test
// message that uses every feature: fields added in later versions,
// nullability from a version on, flexible versions with compact lengths and
// tag buffers, known and unknown tags, nested arrays, records written from
// elsewhere. Layouts are checked byte for byte against hand-encoded bodies
// written from Kafka's protocol guide; malformed input of every length fails
// cleanly.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "spillway/common/wire/codec.h"

namespace spillway::wire {
namespace {

struct Item {
  int32_t id = 0;
  std::optional<std::string_view> label;  // v1+, nullable from v2
  int64_t hint = 0;                       // tagged (tag 1) from v3

  static constexpr auto fields() {
    return std::tuple{
        Field<&Item::id>{"id"},
        Field<&Item::label>{"label", since(1), since(2)},
        Field<&Item::hint>{.name = "hint", .versions = since(3), .tag = 1},
    };
  }
};

struct Message {
  int16_t code = 0;
  std::string_view name;
  Uuid topic_id;  // v2+
  Array<Item> items;
  Array<int32_t> numbers;  // nullable from v1
  Records records;         // nullable always
  bool flag = false;       // v1+

  static constexpr auto fields() {
    return std::tuple{
        Field<&Message::code>{"code"},
        Field<&Message::name>{"name"},
        Field<&Message::topic_id>{"topic_id", since(2)},
        Field<&Message::items>{"items"},
        Field<&Message::numbers>{"numbers", kAllVersions, since(1)},
        Field<&Message::records>{"records", kAllVersions, kAllVersions},
        Field<&Message::flag>{"flag", since(1)},
    };
  }
};

// v3 is the flexible version, as Kafka messages switch at some version.
Context ctx(int16_t v) {
  return Context{v, v >= 3};
}

std::vector<std::byte> bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

template <typename T>
std::vector<std::byte> encoded(const T& v, const Context& c) {
  std::array<std::byte, 256> scratch;
  WriteBuffer out{std::span<std::byte>(scratch)};
  EXPECT_TRUE(encode(v, c, out).ok());
  std::vector<std::byte> body(out.bytes_written());
  out.copy_to(body);
  EXPECT_EQ(body.size(), encoded_size(v, c));
  return body;
}

const std::array<Item, 2> kItems = {Item{7, "a", 0}, Item{8, std::nullopt, 5}};
const std::array<int32_t, 2> kNumbers = {1, -1};
const std::array<std::byte, 3> kRecords = {std::byte{0xAA}, std::byte{0xBB}, std::byte{0xCC}};

Message sample() {
  Message m;
  m.code = 3;
  m.name = "t";
  m.topic_id.bytes[15] = std::byte{9};
  m.items = kItems;
  m.numbers = kNumbers;
  m.records.bytes = kRecords;
  m.flag = true;
  return m;
}

TEST(WireCodec, Version0LayoutLeavesOutLaterFields) {
  Message m = sample();
  m.items = std::span<const Item>(kItems).first(1);  // label is not in v0 anyway
  EXPECT_EQ(encoded(m, ctx(0)),
            bytes({0,    3,                                      // code
                   0,    1,    't',                              // name: INT16 length
                   0,    0,    0,    1,    0,    0,    0,   7,   // items: INT32 count, id
                   0,    0,    0,    2,    0,    0,    0,   1,   // numbers
                   0xFF, 0xFF, 0xFF, 0xFF,                       // -1
                   0,    0,    0,    3,    0xAA, 0xBB, 0xCC}));  // records
}

TEST(WireCodec, FlexibleLayoutUsesCompactLengthsAndTagBuffers) {
  EXPECT_EQ(encoded(sample(), ctx(3)),
            bytes({0, 3,    // code
                   2, 't',  // name: COMPACT_STRING, length + 1
                   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9,  // topic_id
                   3,                                               // items: count + 1
                   0, 0, 0, 7, 2, 'a', 0,                           // id, label, empty tag buffer
                   0, 0, 0, 8, 0,                                   // id, null label
                   1, 1, 8, 0, 0, 0, 0, 0, 0, 0, 5,                 // one tag: hint (tag 1, 8
                                                                    // bytes) = 5
                   3, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF,           // numbers
                   4, 0xAA, 0xBB, 0xCC,                             // records: length + 1
                   1,                                               // flag
                   0}));                                            // empty tag buffer
}

TEST(WireCodec, EveryVersionRoundTrips) {
  for (int16_t v = 0; v <= 3; ++v) {
    SCOPED_TRACE(v);
    Message m = sample();
    if (v < 2) m.items = std::span<const Item>(kItems).first(1);  // null label needs v2
    const std::vector<std::byte> body = encoded(m, ctx(v));
    Result<Message> back = decode<Message>(body, ctx(v), "Test");
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(back->code, 3);
    EXPECT_EQ(back->name, "t");
    EXPECT_EQ(back->topic_id == m.topic_id, v >= 2);
    EXPECT_EQ(back->flag, v >= 1);
    ASSERT_EQ(back->items.size(), m.items.size());
    int index = 0;
    for (const Item& item : back->items) {
      EXPECT_EQ(item.id, kItems[index].id);
      if (v >= 1) {
        EXPECT_EQ(item.label, kItems[index].label);
      }
      EXPECT_EQ(item.hint, v >= 3 ? kItems[index].hint : 0);
      ++index;
    }
    std::vector<int32_t> numbers(back->numbers.begin(), back->numbers.end());
    EXPECT_EQ(numbers, std::vector<int32_t>(kNumbers.begin(), kNumbers.end()));
    EXPECT_TRUE(std::equal(back->records.bytes.begin(), back->records.bytes.end(), kRecords.begin(),
                           kRecords.end()));
  }
}

TEST(WireCodec, NullIsRefusedWhereTheVersionDoesNotAllowIt) {
  Message m = sample();  // item 8 has a null label: nullable only from v2
  std::array<std::byte, 256> scratch;
  WriteBuffer out{std::span<std::byte>(scratch)};
  EXPECT_EQ(encode(m, ctx(1), out).code(), ErrorCode::kInvalidArgument);
  m.numbers = Array<int32_t>::null();
  WriteBuffer out0{std::span<std::byte>(scratch)};
  EXPECT_FALSE(encode(m, ctx(0), out0).ok());
  // On the wire: a null numbers array in v0 is malformed, in v2 it is null.
  m.items = {};
  std::vector<std::byte> v2 = encoded(m, ctx(2));
  Result<Message> back = decode<Message>(v2, ctx(2), "Test");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->numbers.is_null());
  m.numbers = {};
  std::vector<std::byte> v0 = encoded(m, ctx(0));
  // numbers sits right after the empty items array: name(3) code(2) items(4).
  for (size_t i = 9; i < 13; ++i) v0[i] = std::byte{0xFF};
  Result<Message> bad = decode<Message>(v0, ctx(0), "Test");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "malformed Test v0 (field numbers)");
}

TEST(WireCodec, UnknownTagsAreSkippedAndOutOfOrderTagsRejected) {
  Message m;
  m.name = "x";
  std::vector<std::byte> body = encoded(m, ctx(3));
  ASSERT_EQ(body.back(), std::byte{0});  // the top-level tag buffer
  body.pop_back();
  std::vector<std::byte> with_tags = body;
  for (std::byte b : bytes({2, 5, 2, 'h', 'i', 9, 0})) with_tags.push_back(b);
  EXPECT_TRUE(decode<Message>(with_tags, ctx(3), "Test").ok());
  std::vector<std::byte> reordered = body;
  for (std::byte b : bytes({2, 9, 0, 5, 0})) reordered.push_back(b);
  EXPECT_FALSE(decode<Message>(reordered, ctx(3), "Test").ok());
}

TEST(WireCodec, EveryTruncationAndEveryExtraByteIsMalformed) {
  for (int16_t v = 0; v <= 3; ++v) {
    Message m = sample();
    if (v < 2) m.items = std::span<const Item>(kItems).first(1);
    const std::vector<std::byte> body = encoded(m, ctx(v));
    for (size_t n = 0; n < body.size(); ++n) {
      EXPECT_FALSE(decode<Message>(std::span(body).first(n), ctx(v), "Test").ok()) << v << " " << n;
    }
    std::vector<std::byte> longer = body;
    longer.push_back(std::byte{0});
    EXPECT_FALSE(decode<Message>(longer, ctx(v), "Test").ok());
  }
}

TEST(WireCodec, CountsAreCheckedAgainstTheBytesLeftBeforeIteration) {
  // code, name, then an items count of 2^31-1 with nothing after it.
  const std::vector<std::byte> body = bytes({0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF});
  Result<Message> r = decode<Message>(body, ctx(0), "Test");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "malformed Test v0 (field items)");
}

// Kafka writes a tagged field only when it differs from the default the
// schema declares (often -1, not zero), and a tagged array only when it is
// not empty.
struct Tagged {
  int32_t id = 0;
  int64_t epoch = -1;       // tag 0, default -1
  Array<int32_t> features;  // tag 1, default empty
  int32_t count = 0;        // tag 2, default 0

  static constexpr auto fields() {
    return std::tuple{
        Field<&Tagged::id>{"id"},
        Field<&Tagged::epoch>{.name = "epoch", .tag = 0},
        Field<&Tagged::features>{.name = "features", .tag = 1},
        Field<&Tagged::count>{.name = "count", .tag = 2},
    };
  }
};

TEST(WireCodec, TaggedFieldsAreWrittenOnlyWhenTheyDifferFromTheirDeclaredDefault) {
  const Context flexible{0, true};
  EXPECT_EQ(encoded(Tagged{}, flexible), bytes({0, 0, 0, 0, 0}));  // id, no tags
  Tagged zero_epoch;
  zero_epoch.epoch = 0;  // not the default: written, and read back as 0
  EXPECT_EQ(encoded(zero_epoch, flexible), bytes({0, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0}));
  Result<Tagged> back = decode<Tagged>(encoded(zero_epoch, flexible), flexible, "Tagged");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->epoch, 0);
  const std::array<int32_t, 1> features = {7};
  Tagged with_features;
  with_features.features = features;
  with_features.count = 3;
  EXPECT_EQ(encoded(with_features, flexible),
            bytes({0, 0, 0, 0, 2, 1, 5, 2, 0, 0, 0, 7, 2, 4, 0, 0, 0, 3}));
}

Status write_three(const void* ctx, WriteBuffer& out) {
  return out.write(*static_cast<const std::array<std::byte, 3>*>(ctx));
}

TEST(WireCodec, DeferredRecordsAreWrittenInPlace) {
  Message m;
  m.records.deferred_size = 3;
  m.records.write_deferred = &write_three;
  m.records.deferred_ctx = &kRecords;
  Message direct;
  direct.records.bytes = kRecords;
  EXPECT_EQ(encoded(m, ctx(3)), encoded(direct, ctx(3)));
  m.records.deferred_size = 4;  // a writer that does not keep its word
  std::array<std::byte, 256> scratch;
  WriteBuffer out{std::span<std::byte>(scratch)};
  EXPECT_FALSE(encode(m, ctx(3), out).ok());
}

struct Ids {
  PartitionId partition{0};
  Offset offset{0};
  static constexpr auto fields() {
    return std::tuple{Field<&Ids::partition>{"partition"}, Field<&Ids::offset>{"offset"}};
  }
};

TEST(WireCodec, StrongIdsGoOnTheWireAsTheirIntegers) {
  const Ids ids{PartitionId(3), Offset(-1)};
  EXPECT_EQ(encoded(ids, ctx(0)),
            bytes({0, 0, 0, 3, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}));
  Result<Ids> back = decode<Ids>(encoded(ids, ctx(0)), ctx(0), "Ids");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->partition, PartitionId(3));
  EXPECT_EQ(back->offset, kNoOffset);
  EXPECT_EQ(back->offset.next(), Offset(0));
  EXPECT_EQ(Offset(10) - Offset(4), 6);
}

}  // namespace
}  // namespace spillway::wire
