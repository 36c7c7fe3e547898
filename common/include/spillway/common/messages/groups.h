// Body codecs of the consumer group membership requests, version 0:
// JoinGroup (api key 10), SyncGroup (11), Heartbeat (12), LeaveGroup (13).
// Kafka's classic group protocol, minus what the native protocol carries
// elsewhere (errors travel in the response frame, as for every native
// request; throttling does not exist). The metadata and assignment bytes
// are opaque to the broker; Spillway's client puts Kafka's consumer protocol
// in them (kafka/consumer_protocol.h). Layout in docs/protocol.md
// ("Consumer groups").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kJoinGroupVersion = 0;
inline constexpr int16_t kSyncGroupVersion = 0;
inline constexpr int16_t kHeartbeatVersion = 0;
inline constexpr int16_t kLeaveGroupVersion = 0;

struct JoinGroupProtocol {
  std::string_view name;  // an assignor: "range", "cooperative-sticky", ...
  std::span<const std::byte> metadata;

  static constexpr auto fields() {
    return std::tuple{
        Field<&JoinGroupProtocol::name>{"name"},
        Field<&JoinGroupProtocol::metadata>{"metadata"},
    };
  }
};

struct JoinGroupRequest {
  std::string_view group_id;
  std::string_view member_id;                         // "" on a first join: the response names it
  std::optional<std::string_view> group_instance_id;  // static membership; nullable
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  std::string_view protocol_type;  // "consumer"
  Array<JoinGroupProtocol> protocols;

  static constexpr auto fields() {
    return std::tuple{
        Field<&JoinGroupRequest::group_id>{"group_id"},
        Field<&JoinGroupRequest::member_id>{"member_id"},
        Field<&JoinGroupRequest::group_instance_id>{"group_instance_id", wire::kAllVersions,
                                                    wire::kAllVersions},
        Field<&JoinGroupRequest::session_timeout_ms>{"session_timeout_ms"},
        Field<&JoinGroupRequest::rebalance_timeout_ms>{"rebalance_timeout_ms"},
        Field<&JoinGroupRequest::protocol_type>{"protocol_type"},
        Field<&JoinGroupRequest::protocols>{"protocols"},
    };
  }
};

struct JoinGroupMember {
  std::string_view member_id;
  std::optional<std::string_view> group_instance_id;  // nullable
  std::span<const std::byte> metadata;

  static constexpr auto fields() {
    return std::tuple{
        Field<&JoinGroupMember::member_id>{"member_id"},
        Field<&JoinGroupMember::group_instance_id>{"group_instance_id", wire::kAllVersions,
                                                   wire::kAllVersions},
        Field<&JoinGroupMember::metadata>{"metadata"},
    };
  }
};

struct JoinGroupResponse {
  int32_t generation_id = -1;
  std::string_view protocol_type;
  std::string_view protocol_name;
  std::string_view leader_id;
  std::string_view member_id;
  Array<JoinGroupMember> members;  // to the leader only; empty for the others

  static constexpr auto fields() {
    return std::tuple{
        Field<&JoinGroupResponse::generation_id>{"generation_id"},
        Field<&JoinGroupResponse::protocol_type>{"protocol_type"},
        Field<&JoinGroupResponse::protocol_name>{"protocol_name"},
        Field<&JoinGroupResponse::leader_id>{"leader_id"},
        Field<&JoinGroupResponse::member_id>{"member_id"},
        Field<&JoinGroupResponse::members>{"members"},
    };
  }
};

struct SyncGroupAssignment {
  std::string_view member_id;
  std::span<const std::byte> assignment;

  static constexpr auto fields() {
    return std::tuple{
        Field<&SyncGroupAssignment::member_id>{"member_id"},
        Field<&SyncGroupAssignment::assignment>{"assignment"},
    };
  }
};

struct SyncGroupRequest {
  std::string_view group_id;
  std::string_view member_id;
  int32_t generation_id = -1;
  std::optional<std::string_view> group_instance_id;  // nullable
  Array<SyncGroupAssignment> assignments;             // from the leader only

  static constexpr auto fields() {
    return std::tuple{
        Field<&SyncGroupRequest::group_id>{"group_id"},
        Field<&SyncGroupRequest::member_id>{"member_id"},
        Field<&SyncGroupRequest::generation_id>{"generation_id"},
        Field<&SyncGroupRequest::group_instance_id>{"group_instance_id", wire::kAllVersions,
                                                    wire::kAllVersions},
        Field<&SyncGroupRequest::assignments>{"assignments"},
    };
  }
};

struct SyncGroupResponse {
  std::string_view protocol_type;
  std::string_view protocol_name;
  std::span<const std::byte> assignment;  // this member's

  static constexpr auto fields() {
    return std::tuple{
        Field<&SyncGroupResponse::protocol_type>{"protocol_type"},
        Field<&SyncGroupResponse::protocol_name>{"protocol_name"},
        Field<&SyncGroupResponse::assignment>{"assignment"},
    };
  }
};

// The response to a Heartbeat has an empty body; its error (in the frame)
// is what matters: rebalance_in_progress, illegal_generation,
// unknown_member tell the member to rejoin.
struct HeartbeatRequest {
  std::string_view group_id;
  std::string_view member_id;
  int32_t generation_id = -1;
  std::optional<std::string_view> group_instance_id;  // nullable

  static constexpr auto fields() {
    return std::tuple{
        Field<&HeartbeatRequest::group_id>{"group_id"},
        Field<&HeartbeatRequest::member_id>{"member_id"},
        Field<&HeartbeatRequest::generation_id>{"generation_id"},
        Field<&HeartbeatRequest::group_instance_id>{"group_instance_id", wire::kAllVersions,
                                                    wire::kAllVersions},
    };
  }
};

struct LeaveGroupMember {
  std::string_view member_id;
  std::optional<std::string_view> group_instance_id;  // nullable

  static constexpr auto fields() {
    return std::tuple{
        Field<&LeaveGroupMember::member_id>{"member_id"},
        Field<&LeaveGroupMember::group_instance_id>{"group_instance_id", wire::kAllVersions,
                                                    wire::kAllVersions},
    };
  }
};

struct LeaveGroupRequest {
  std::string_view group_id;
  Array<LeaveGroupMember> members;

  static constexpr auto fields() {
    return std::tuple{
        Field<&LeaveGroupRequest::group_id>{"group_id"},
        Field<&LeaveGroupRequest::members>{"members"},
    };
  }
};

struct LeaveGroupMemberResult {
  std::string_view member_id;
  ErrorCode error_code = ErrorCode::kOk;
  ErrorText error_message;

  static constexpr auto fields() {
    return std::tuple{
        Field<&LeaveGroupMemberResult::member_id>{"member_id"},
        Field<&LeaveGroupMemberResult::error_code>{"error_code"},
        Field<&LeaveGroupMemberResult::error_message>{"error_message"},
    };
  }
};

struct LeaveGroupResponse {
  Array<LeaveGroupMemberResult> members;  // one per request member, in order

  static constexpr auto fields() {
    return std::tuple{Field<&LeaveGroupResponse::members>{"members"}};
  }
};

Result<JoinGroupRequest> decode_join_group_request(std::span<const std::byte> body);
Status encode_join_group_request(const JoinGroupRequest& request, WriteBuffer& out) noexcept;
Result<JoinGroupResponse> decode_join_group_response(std::span<const std::byte> body);
Status encode_join_group_response(const JoinGroupResponse& response, WriteBuffer& out) noexcept;
Result<SyncGroupRequest> decode_sync_group_request(std::span<const std::byte> body);
Status encode_sync_group_request(const SyncGroupRequest& request, WriteBuffer& out) noexcept;
Result<SyncGroupResponse> decode_sync_group_response(std::span<const std::byte> body);
Status encode_sync_group_response(const SyncGroupResponse& response, WriteBuffer& out) noexcept;
Result<HeartbeatRequest> decode_heartbeat_request(std::span<const std::byte> body);
Status encode_heartbeat_request(const HeartbeatRequest& request, WriteBuffer& out) noexcept;
Result<LeaveGroupRequest> decode_leave_group_request(std::span<const std::byte> body);
Status encode_leave_group_request(const LeaveGroupRequest& request, WriteBuffer& out) noexcept;
Result<LeaveGroupResponse> decode_leave_group_response(std::span<const std::byte> body);
Status encode_leave_group_response(const LeaveGroupResponse& response, WriteBuffer& out) noexcept;

}  // namespace spillway::messages
