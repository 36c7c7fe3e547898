// Body codecs of CommitOffsets (api key 7), CommitMemberOffsets (api key 17)
// and FetchOffsets (api key 8), version 0: a consumer group's committed
// offsets per topic partition. CommitOffsets is a "simple" commit (no
// member: refused while the group has members); CommitMemberOffsets is a
// member's, fenced by its member id and generation. Layout in
// docs/protocol.md ("CommitOffsets", "CommitMemberOffsets", "FetchOffsets").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "spillway/common/messages/native.h"

namespace spillway::messages {

inline constexpr int16_t kCommitOffsetsVersion = 0;
inline constexpr int16_t kCommitMemberOffsetsVersion = 0;
inline constexpr int16_t kFetchOffsetsVersion = 0;

struct CommitOffsetEntry {
  int32_t partition = 0;
  int64_t offset = 0;  // the next offset to consume

  static constexpr auto fields() {
    return std::tuple{
        Field<&CommitOffsetEntry::partition>{"partition"},
        Field<&CommitOffsetEntry::offset>{"offset"},
    };
  }
};

struct CommitOffsetsTopic {
  std::string_view name;
  Array<CommitOffsetEntry> entries;

  static constexpr auto fields() {
    return std::tuple{
        Field<&CommitOffsetsTopic::name>{"name"},
        Field<&CommitOffsetsTopic::entries>{"entries"},
    };
  }
};

struct CommitOffsetsRequest {
  std::string_view group;
  Array<CommitOffsetsTopic> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&CommitOffsetsRequest::group>{"group"},
        Field<&CommitOffsetsRequest::topics>{"topics"},
    };
  }
};

Result<CommitOffsetsRequest> decode_commit_offsets_request(std::span<const std::byte> body);
Status encode_commit_offsets_request(const CommitOffsetsRequest& request,
                                     WriteBuffer& out) noexcept;

// CommitOffsets from a member of the group (Kafka's OffsetCommit with a
// generation): stored only while `member_id` is in the group's current
// generation. Answered with a CommitOffsetsResponse.
struct CommitMemberOffsetsRequest {
  std::string_view group;
  std::string_view member_id;
  int32_t generation_id = -1;
  std::optional<std::string_view> group_instance_id;  // static membership; nullable
  Array<CommitOffsetsTopic> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&CommitMemberOffsetsRequest::group>{"group"},
        Field<&CommitMemberOffsetsRequest::member_id>{"member_id"},
        Field<&CommitMemberOffsetsRequest::generation_id>{"generation_id"},
        Field<&CommitMemberOffsetsRequest::group_instance_id>{"group_instance_id",
                                                              wire::kAllVersions,
                                                              wire::kAllVersions},
        Field<&CommitMemberOffsetsRequest::topics>{"topics"},
    };
  }
};

Result<CommitMemberOffsetsRequest> decode_commit_member_offsets_request(
    std::span<const std::byte> body);
Status encode_commit_member_offsets_request(const CommitMemberOffsetsRequest& request,
                                            WriteBuffer& out) noexcept;

struct PartitionError {
  int32_t partition = 0;
  ErrorCode error_code = ErrorCode::kOk;
  ErrorText error_message;

  static constexpr auto fields() {
    return std::tuple{
        Field<&PartitionError::partition>{"partition"},
        Field<&PartitionError::error_code>{"error_code"},
        Field<&PartitionError::error_message>{"error_message"},
    };
  }
};

struct CommitOffsetsTopicResult {
  std::string_view name;
  Array<PartitionError> results;

  static constexpr auto fields() {
    return std::tuple{
        Field<&CommitOffsetsTopicResult::name>{"name"},
        Field<&CommitOffsetsTopicResult::results>{"results"},
    };
  }
};

struct CommitOffsetsResponse {
  Array<CommitOffsetsTopicResult> topics;

  static constexpr auto fields() {
    return std::tuple{Field<&CommitOffsetsResponse::topics>{"topics"}};
  }
};

Result<CommitOffsetsResponse> decode_commit_offsets_response(std::span<const std::byte> body);
Status encode_commit_offsets_response(const CommitOffsetsResponse& response,
                                      WriteBuffer& out) noexcept;

struct FetchOffsetsTopic {
  std::string_view name;
  Array<int32_t> partitions;

  static constexpr auto fields() {
    return std::tuple{
        Field<&FetchOffsetsTopic::name>{"name"},
        Field<&FetchOffsetsTopic::partitions>{"partitions"},
    };
  }
};

struct FetchOffsetsRequest {
  std::string_view group;
  Array<FetchOffsetsTopic> topics;

  static constexpr auto fields() {
    return std::tuple{
        Field<&FetchOffsetsRequest::group>{"group"},
        Field<&FetchOffsetsRequest::topics>{"topics"},
    };
  }
};

Result<FetchOffsetsRequest> decode_fetch_offsets_request(std::span<const std::byte> body);
Status encode_fetch_offsets_request(const FetchOffsetsRequest& request, WriteBuffer& out) noexcept;

struct FetchOffsetsResult {
  int32_t partition = 0;
  int64_t offset = -1;  // -1 = none committed
  ErrorCode error_code = ErrorCode::kOk;
  ErrorText error_message;

  static constexpr auto fields() {
    return std::tuple{
        Field<&FetchOffsetsResult::partition>{"partition"},
        Field<&FetchOffsetsResult::offset>{"offset"},
        Field<&FetchOffsetsResult::error_code>{"error_code"},
        Field<&FetchOffsetsResult::error_message>{"error_message"},
    };
  }
};

struct FetchOffsetsTopicResult {
  std::string_view name;
  Array<FetchOffsetsResult> results;

  static constexpr auto fields() {
    return std::tuple{
        Field<&FetchOffsetsTopicResult::name>{"name"},
        Field<&FetchOffsetsTopicResult::results>{"results"},
    };
  }
};

struct FetchOffsetsResponse {
  Array<FetchOffsetsTopicResult> topics;

  static constexpr auto fields() {
    return std::tuple{Field<&FetchOffsetsResponse::topics>{"topics"}};
  }
};

Result<FetchOffsetsResponse> decode_fetch_offsets_response(std::span<const std::byte> body);
Status encode_fetch_offsets_response(const FetchOffsetsResponse& response,
                                     WriteBuffer& out) noexcept;

}  // namespace spillway::messages
