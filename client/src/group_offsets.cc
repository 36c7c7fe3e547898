// FetchOffsets, CommitOffsets and CommitMemberOffsets over a Channel (see group_offsets.h).
#include "group_offsets.h"

#include <algorithm>
#include <string>

#include "channel.h"
#include "spillway/common/messages/offsets.h"

namespace spillway::wire {

Result<std::vector<CommittedOffset>> fetch_committed(Channel& channel, std::string_view group,
                                                     std::string_view topic,
                                                     std::span<const PartitionId> partitions) {
  std::vector<int32_t> ids;
  ids.reserve(partitions.size());
  for (PartitionId p : partitions) ids.push_back(p.value());
  const messages::FetchOffsetsTopic topics[] = {{.name = topic, .partitions = ids}};
  const messages::FetchOffsetsRequest request{.group = group, .topics = topics};
  Result<std::vector<std::byte>> body = channel.call(
      frame::ApiKey::kFetchOffsets, messages::kFetchOffsetsVersion,
      [&](WriteBuffer& out) { return messages::encode_fetch_offsets_request(request, out); });
  if (!body.ok()) return body.status();
  Result<messages::FetchOffsetsResponse> decoded = messages::decode_fetch_offsets_response(*body);
  if (!decoded.ok()) return decoded.status();
  std::vector<CommittedOffset> out;
  for (const messages::FetchOffsetsTopicResult& t : decoded->topics) {
    for (const messages::FetchOffsetsResult& o : t.results) {
      if (o.error_code != ErrorCode::kOk) {
        out.push_back({.partition = PartitionId(o.partition),
                       .offset = kNoOffset,
                       .error = Status(o.error_code, std::string(o.error_message))});
      } else if (t.name == topic) {
        out.push_back({.partition = PartitionId(o.partition),
                       .offset = Offset(o.offset),
                       .error = Status::Ok()});
      }
    }
  }
  return out;
}

Status commit_offsets(Channel& channel, std::string_view group,
                      std::span<const TopicPartitionOffset> offsets,
                      std::optional<CommitMember> member) {
  std::vector<TopicPartitionOffset> sorted(offsets.begin(), offsets.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.topic < b.topic; });
  // One CommitOffsetsTopic per run of equal topics, viewing its entries.
  std::vector<messages::CommitOffsetEntry> entries;
  entries.reserve(sorted.size());
  for (const TopicPartitionOffset& o : sorted) {
    entries.push_back({.partition = o.partition, .offset = o.offset});
  }
  std::vector<messages::CommitOffsetsTopic> topics;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j < sorted.size() && sorted[j].topic == sorted[i].topic) ++j;
    topics.push_back(
        {.name = sorted[i].topic,
         .entries = std::span<const messages::CommitOffsetEntry>(entries.data() + i, j - i)});
    i = j;
  }
  const auto call = [&]() -> Result<std::vector<std::byte>> {
    if (!member) {
      const messages::CommitOffsetsRequest request{.group = group, .topics = topics};
      return channel.call(
          frame::ApiKey::kCommitOffsets, messages::kCommitOffsetsVersion,
          [&](WriteBuffer& out) { return messages::encode_commit_offsets_request(request, out); });
    }
    const messages::CommitMemberOffsetsRequest request{.group = group,
                                                       .member_id = member->member_id,
                                                       .generation_id = member->generation,
                                                       .group_instance_id = std::nullopt,
                                                       .topics = topics};
    return channel.call(frame::ApiKey::kCommitMemberOffsets,
                        messages::kCommitMemberOffsetsVersion, [&](WriteBuffer& out) {
                          return messages::encode_commit_member_offsets_request(request, out);
                        });
  };
  Result<std::vector<std::byte>> body = call();
  if (!body.ok()) return body.status();
  Result<messages::CommitOffsetsResponse> decoded = messages::decode_commit_offsets_response(*body);
  if (!decoded.ok()) return decoded.status();
  for (const messages::CommitOffsetsTopicResult& t : decoded->topics) {
    for (const messages::PartitionError& o : t.results) {
      if (o.error_code != ErrorCode::kOk) {
        return Status(o.error_code, std::string(t.name) + "/" + std::to_string(o.partition) + ": " +
                                        std::string(o.error_message));
      }
    }
  }
  return Status::Ok();
}

}  // namespace spillway::wire
