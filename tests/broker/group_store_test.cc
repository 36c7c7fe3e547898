// The group file format: a round trip, and every damaged file (each
// truncation, each flipped byte, lengths above their limits) is refused
// with kCorruptMessage, never trusted or crashed on; GroupStore skips such
// files when it loads.
#include "groups/group_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "spillway/storage/file_system.h"

namespace spillway::broker::groups {
namespace {

std::vector<std::byte> bytes(std::string_view s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

StoredGroup sample() {
  StoredGroup g{.group_id = "orders",
                .state = GroupState::kStable,
                .generation = 7,
                .protocol_type = "consumer",
                .protocol_name = "range",
                .leader_id = "m-1"};
  g.members.push_back({.member_id = "m-1",
                       .group_instance_id = "host-1",
                       .client_id = "c",
                       .client_host = "/127.0.0.1",
                       .session_timeout_ms = 10'000,
                       .rebalance_timeout_ms = 300'000,
                       .protocols = {{"range", bytes("sub")}, {"roundrobin", bytes("sub")}},
                       .assignment = bytes("p0,p1")});
  g.members.push_back({.member_id = "m-2",
                       .client_id = "c",
                       .client_host = "/127.0.0.2",
                       .session_timeout_ms = 10'000,
                       .rebalance_timeout_ms = 300'000,
                       .protocols = {{"range", bytes("")}},
                       .assignment = {}});
  return g;
}

TEST(GroupFile, RoundTrips) {
  const std::string encoded = encode_group(sample());
  Result<StoredGroup> back = decode_group(encoded, GroupLimits{});
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->group_id, "orders");
  EXPECT_EQ(back->state, GroupState::kStable);
  EXPECT_EQ(back->generation, 7);
  EXPECT_EQ(back->leader_id, "m-1");
  ASSERT_EQ(back->members.size(), 2u);
  EXPECT_EQ(back->members[0].group_instance_id, std::optional<std::string>("host-1"));
  EXPECT_FALSE(back->members[1].group_instance_id.has_value());
  ASSERT_EQ(back->members[0].protocols.size(), 2u);
  EXPECT_EQ(back->members[0].protocols[1].name, "roundrobin");
  EXPECT_EQ(back->members[0].assignment, bytes("p0,p1"));
  EXPECT_EQ(encode_group(*back), encoded);
}

TEST(GroupFile, EveryTruncationAndFlippedByteIsRefused) {
  const std::string encoded = encode_group(sample());
  for (size_t n = 0; n < encoded.size(); ++n) {
    Result<StoredGroup> r = decode_group(std::string_view(encoded).substr(0, n), GroupLimits{});
    EXPECT_EQ(r.status().code(), ErrorCode::kCorruptMessage) << "length " << n;
  }
  for (size_t i = 0; i < encoded.size(); ++i) {
    std::string damaged = encoded;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x40);
    EXPECT_EQ(decode_group(damaged, GroupLimits{}).status().code(), ErrorCode::kCorruptMessage)
        << "byte " << i;
  }
}

TEST(GroupFile, CountsAboveTheLimitsAreRefusedBeforeAllocating) {
  GroupLimits tight;
  tight.max_group_size = 1;
  EXPECT_EQ(decode_group(encode_group(sample()), tight).status().code(),
            ErrorCode::kCorruptMessage);
  tight = GroupLimits{};
  tight.max_assignment_bytes = 2;
  EXPECT_EQ(decode_group(encode_group(sample()), tight).status().code(),
            ErrorCode::kCorruptMessage);
}

TEST(GroupStore, SavesLoadsAndSkipsDamagedFiles) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("group_store_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  GroupStore store(storage::posix_file_system(), dir.string());
  StoredGroup g = sample();
  ASSERT_TRUE(store.save(g.group_id, encode_group(g)).ok());
  StoredGroup other = sample();
  other.group_id = "payments";
  ASSERT_TRUE(store.save(other.group_id, encode_group(other)).ok());
  // Damage one file; put another group's bytes under a third name.
  std::ofstream(dir / "groups" / "7061796d656e7473.group", std::ios::trunc) << "SPWG\x00\x01junk";
  std::filesystem::copy_file(dir / "groups" / "6f7264657273.group", dir / "groups" / "61.group");
  Result<std::vector<StoredGroup>> loaded = store.load_all(GroupLimits{});
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].group_id, "orders");
  ASSERT_TRUE(store.remove("orders").ok());
  ASSERT_TRUE(store.remove("never-saved").ok());
  EXPECT_FALSE(std::filesystem::exists(dir / "groups" / "6f7264657273.group"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace spillway::broker::groups
