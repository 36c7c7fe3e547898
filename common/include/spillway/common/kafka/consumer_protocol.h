// Kafka's consumer protocol: the bytes a consumer group member puts inside
// JoinGroup (its subscription, as a protocol's metadata) and the bytes the
// leader hands every member through SyncGroup (its assignment), for
// protocol type "consumer". The broker never interprets them; the
// assignors in the clients and the group describe tools do.
//
// Both are "data" messages in Kafka's schema language, written as
//   INT16 version, then the body at that version (never flexible),
// so they are encoded here with the wire/codec.h machinery in a
// non-flexible context. A reader that meets a version newer than it knows
// reads the fields it knows and ignores the rest (the format only grows at
// the end; Kafka's ConsumerProtocol documentation promises that).
//
// Spillway's native client uses this exact format in its JoinGroup
// metadata and SyncGroup assignments, so the describe tools decode groups
// of both listeners alike.
//
//   Subscription v0: topics [STRING], user_data NULLABLE_BYTES
//                v1: + owned_partitions [topic STRING, partitions [INT32]]
//                v2: + generation_id INT32 (-1: unknown)
//                v3: + rack_id NULLABLE_STRING
//   Assignment v0-3: assigned_partitions [topic STRING, partitions [INT32]],
//                    user_data NULLABLE_BYTES
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"
#include "spillway/common/wire/codec.h"
#include "spillway/common/wire/schema.h"
#include "spillway/common/write_buffer.h"

namespace spillway::kafka {

// The protocol type members of a consumer group declare in JoinGroup.
inline constexpr std::string_view kConsumerProtocolType = "consumer";

// Versions this code writes and fully understands.
inline constexpr int16_t kConsumerSubscriptionVersion = 3;
inline constexpr int16_t kConsumerAssignmentVersion = 3;

// A topic and some of its partitions (owned or assigned).
struct ConsumerTopicPartitions {
  std::string_view topic;
  wire::Array<int32_t> partitions;

  static constexpr auto fields() {
    return std::tuple{
        wire::Field<&ConsumerTopicPartitions::topic>{"topic"},
        wire::Field<&ConsumerTopicPartitions::partitions>{"partitions"},
    };
  }
};

struct ConsumerProtocolSubscription {
  wire::Array<std::string_view> topics;
  std::optional<std::span<const std::byte>> user_data;    // nullable
  wire::Array<ConsumerTopicPartitions> owned_partitions;  // v1+
  int32_t generation_id = -1;                             // v2+
  std::optional<std::string_view> rack_id;                // v3+, nullable

  static constexpr auto fields() {
    return std::tuple{
        wire::Field<&ConsumerProtocolSubscription::topics>{"topics"},
        wire::Field<&ConsumerProtocolSubscription::user_data>{"user_data", wire::kAllVersions,
                                                              wire::kAllVersions},
        wire::Field<&ConsumerProtocolSubscription::owned_partitions>{"owned_partitions",
                                                                     wire::since(1)},
        wire::Field<&ConsumerProtocolSubscription::generation_id>{"generation_id", wire::since(2)},
        wire::Field<&ConsumerProtocolSubscription::rack_id>{"rack_id", wire::since(3),
                                                            wire::since(3)},
    };
  }
};

struct ConsumerProtocolAssignment {
  wire::Array<ConsumerTopicPartitions> assigned_partitions;
  std::optional<std::span<const std::byte>> user_data;  // nullable

  static constexpr auto fields() {
    return std::tuple{
        wire::Field<&ConsumerProtocolAssignment::assigned_partitions>{"assigned_partitions"},
        wire::Field<&ConsumerProtocolAssignment::user_data>{"user_data", wire::kAllVersions,
                                                            wire::kAllVersions},
    };
  }
};

// A decoded message and the version its sender wrote. The message views
// the decoded bytes: it must not outlive them.
template <typename T>
struct VersionedConsumerMessage {
  int16_t version = 0;
  T message;
};

// Appends INT16 version + body. Fields the version lacks are left out.
// kInvalidArgument for a negative version.
Status encode_consumer_subscription(const ConsumerProtocolSubscription& s, int16_t version,
                                    WriteBuffer& out) noexcept;
Status encode_consumer_assignment(const ConsumerProtocolAssignment& a, int16_t version,
                                  WriteBuffer& out) noexcept;
// The same, as an owned byte string (what JoinGroup/SyncGroup carry).
Result<std::vector<std::byte>> consumer_subscription_bytes(
    const ConsumerProtocolSubscription& s, int16_t version = kConsumerSubscriptionVersion);
Result<std::vector<std::byte>> consumer_assignment_bytes(
    const ConsumerProtocolAssignment& a, int16_t version = kConsumerAssignmentVersion);

// Decodes version + body. A version above the ones known is read as the
// newest known one, its extra trailing bytes ignored; bytes left over after
// a known version are an error. kCorruptMessage naming the field otherwise.
Result<VersionedConsumerMessage<ConsumerProtocolSubscription>> decode_consumer_subscription(
    std::span<const std::byte> bytes);
Result<VersionedConsumerMessage<ConsumerProtocolAssignment>> decode_consumer_assignment(
    std::span<const std::byte> bytes);

}  // namespace spillway::kafka
