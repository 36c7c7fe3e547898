// Body codecs of ListGroups (api key 14), DescribeGroups (15) and
// DeleteGroups (16), version 0: the administration of consumer groups
// (`spillway group`, spillway::Admin). Layouts in docs/protocol.md
// ("ListGroups", "DescribeGroups", "DeleteGroups").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kListGroupsVersion = 0;
inline constexpr int16_t kDescribeGroupsVersion = 0;
inline constexpr int16_t kDeleteGroupsVersion = 0;

// ListGroups: every group the broker knows (with members or with committed
// offsets). The request has no fields.
struct ListGroupsRequest {
  static constexpr auto fields() { return std::tuple{}; }
};

Result<ListGroupsRequest> decode_list_groups_request(std::span<const std::byte> body);
Status encode_list_groups_request(const ListGroupsRequest& request, WriteBuffer& out) noexcept;

struct ListedGroup {
  std::string_view group;
  std::string_view protocol_type;  // "consumer"; "" for a group with offsets only
  std::string_view state;          // Kafka's name: "Empty", "Stable", ...

  static constexpr auto fields() {
    return std::tuple{
        Field<&ListedGroup::group>{"group"},
        Field<&ListedGroup::protocol_type>{"protocol_type"},
        Field<&ListedGroup::state>{"state"},
    };
  }
};

struct ListGroupsResponse {
  Array<ListedGroup> groups;  // by name

  static constexpr auto fields() {
    return std::tuple{Field<&ListGroupsResponse::groups>{"groups"}};
  }
};

Result<ListGroupsResponse> decode_list_groups_response(std::span<const std::byte> body);
Status encode_list_groups_response(const ListGroupsResponse& response, WriteBuffer& out) noexcept;

// DescribeGroups: the members and state of the named groups.
struct DescribeGroupsRequest {
  Array<std::string_view> groups;

  static constexpr auto fields() {
    return std::tuple{Field<&DescribeGroupsRequest::groups>{"groups"}};
  }
};

Result<DescribeGroupsRequest> decode_describe_groups_request(std::span<const std::byte> body);
Status encode_describe_groups_request(const DescribeGroupsRequest& request,
                                      WriteBuffer& out) noexcept;

struct DescribedMember {
  std::string_view member_id;
  std::optional<std::string_view> group_instance_id;  // null: a dynamic member
  std::string_view client_id;
  std::string_view client_host;
  // The consumer protocol's assignment as the leader sent it
  // (kafka/consumer_protocol.h); empty before the first sync.
  std::span<const std::byte> assignment;

  static constexpr auto fields() {
    return std::tuple{
        Field<&DescribedMember::member_id>{"member_id"},
        Field<&DescribedMember::group_instance_id>{"group_instance_id", wire::kAllVersions,
                                                   wire::kAllVersions},
        Field<&DescribedMember::client_id>{"client_id"},
        Field<&DescribedMember::client_host>{"client_host"},
        Field<&DescribedMember::assignment>{"assignment"},
    };
  }
};

struct DescribedGroup {
  std::string_view group;
  ErrorCode error_code = ErrorCode::kOk;  // kUnknownGroup, ...; then the rest is empty
  ErrorText error_message;
  std::string_view state;  // Kafka's name: "Empty", "Stable", ...
  std::string_view protocol_type;
  std::string_view protocol;  // the chosen assignor, "" while none is
  int32_t generation = -1;
  Array<DescribedMember> members;

  static constexpr auto fields() {
    return std::tuple{
        Field<&DescribedGroup::group>{"group"},
        Field<&DescribedGroup::error_code>{"error_code"},
        Field<&DescribedGroup::error_message>{"error_message"},
        Field<&DescribedGroup::state>{"state"},
        Field<&DescribedGroup::protocol_type>{"protocol_type"},
        Field<&DescribedGroup::protocol>{"protocol"},
        Field<&DescribedGroup::generation>{"generation"},
        Field<&DescribedGroup::members>{"members"},
    };
  }
};

struct DescribeGroupsResponse {
  Array<DescribedGroup> groups;  // one per requested group, in request order

  static constexpr auto fields() {
    return std::tuple{Field<&DescribeGroupsResponse::groups>{"groups"}};
  }
};

Result<DescribeGroupsResponse> decode_describe_groups_response(std::span<const std::byte> body);
Status encode_describe_groups_response(const DescribeGroupsResponse& response,
                                       WriteBuffer& out) noexcept;

// DeleteGroups: deletes groups without members, with their committed
// offsets.
struct DeleteGroupsRequest {
  Array<std::string_view> groups;

  static constexpr auto fields() {
    return std::tuple{Field<&DeleteGroupsRequest::groups>{"groups"}};
  }
};

Result<DeleteGroupsRequest> decode_delete_groups_request(std::span<const std::byte> body);
Status encode_delete_groups_request(const DeleteGroupsRequest& request, WriteBuffer& out) noexcept;

struct DeletedGroup {
  std::string_view group;
  ErrorCode error_code = ErrorCode::kOk;  // kGroupNotEmpty, kUnknownGroup, ...
  ErrorText error_message;

  static constexpr auto fields() {
    return std::tuple{
        Field<&DeletedGroup::group>{"group"},
        Field<&DeletedGroup::error_code>{"error_code"},
        Field<&DeletedGroup::error_message>{"error_message"},
    };
  }
};

struct DeleteGroupsResponse {
  Array<DeletedGroup> groups;  // one per requested group, in request order

  static constexpr auto fields() {
    return std::tuple{Field<&DeleteGroupsResponse::groups>{"groups"}};
  }
};

Result<DeleteGroupsResponse> decode_delete_groups_response(std::span<const std::byte> body);
Status encode_delete_groups_response(const DeleteGroupsResponse& response,
                                     WriteBuffer& out) noexcept;

}  // namespace spillway::messages
