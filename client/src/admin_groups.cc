// Admin's consumer group calls: ListGroups, DescribeGroups and DeleteGroups
// (docs/protocol.md), and what describe and reset build on them from
// Metadata, FetchOffsets and CommitOffsets.
#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "channel.h"
#include "group_offsets.h"
#include "metadata.h"
#include "spillway/admin.h"
#include "spillway/common/kafka/consumer_protocol.h"
#include "spillway/common/messages/group_admin.h"
#include "spillway/common/messages/offsets.h"
#include "spillway/consumer.h"

namespace spillway {

namespace {

std::string owned(std::string_view s) {
  return std::string(s);
}

// A group's error as a Status whose message names the group.
Status group_error(std::string_view group, ErrorCode code, std::string_view message) {
  const std::string why = message.empty() ? std::string(error_code_name(code)) : owned(message);
  if (why.find(group) != std::string::npos) return Status(code, why);
  return Status(code, "group " + owned(group) + ": " + why);
}

// One DescribeGroups round trip for `group`, copied out of the answer.
// Error: the call's, or the group's own (kUnknownGroup, ...).
Result<GroupDescription> describe_members(wire::Channel& channel, std::string_view group) {
  const std::string_view names[] = {group};
  const messages::DescribeGroupsRequest request{.groups = names};
  Result<std::vector<std::byte>> body = channel.call(
      frame::ApiKey::kDescribeGroups, messages::kDescribeGroupsVersion,
      [&](WriteBuffer& out) { return messages::encode_describe_groups_request(request, out); });
  if (!body.ok()) return body.status();
  Result<messages::DescribeGroupsResponse> decoded =
      messages::decode_describe_groups_response(*body);
  if (!decoded.ok()) return decoded.status();
  for (const messages::DescribedGroup& g : decoded->groups) {
    if (g.group != group) continue;
    if (g.error_code != ErrorCode::kOk) {
      return group_error(group, g.error_code, g.error_message);
    }
    GroupDescription d;
    d.group = owned(g.group);
    d.state = owned(g.state);
    d.protocol_type = owned(g.protocol_type);
    d.protocol = owned(g.protocol);
    d.generation = g.generation;
    for (const messages::DescribedMember& m : g.members) {
      GroupMember member;
      member.member_id = owned(m.member_id);
      if (m.group_instance_id) member.group_instance_id = owned(*m.group_instance_id);
      member.client_id = owned(m.client_id);
      member.client_host = owned(m.client_host);
      // Only a consumer group's assignments are in the consumer protocol;
      // one that does not decode is shown as none rather than failing the
      // whole describe.
      if (d.protocol_type == kafka::kConsumerProtocolType && !m.assignment.empty()) {
        auto assignment = kafka::decode_consumer_assignment(m.assignment);
        if (assignment.ok()) {
          for (const kafka::ConsumerTopicPartitions& tp : assignment->message.assigned_partitions) {
            GroupTopicPartitions& out = member.assignment.emplace_back();
            out.topic = owned(tp.topic);
            for (int32_t p : tp.partitions) out.partitions.push_back(p);
          }
        }
      }
      d.members.push_back(std::move(member));
    }
    return d;
  }
  return Status(ErrorCode::kCorruptMessage,
                "the DescribeGroups answer leaves out group " + owned(group));
}

// The offsets `group` committed for every partition of `topics`, in one
// FetchOffsets round trip: (topic, partition) -> offset, for those with one.
Result<std::map<std::pair<std::string, int32_t>, int64_t>> committed_offsets(
    wire::Channel& channel, std::string_view group, const std::vector<TopicDescription>& topics) {
  std::vector<int32_t> ids;
  size_t total = 0;
  for (const TopicDescription& t : topics) total += t.partitions.size();
  ids.reserve(total);  // views into it stay valid
  std::vector<messages::FetchOffsetsTopic> wanted;
  for (const TopicDescription& t : topics) {
    const size_t first = ids.size();
    for (const PartitionDescription& p : t.partitions) ids.push_back(p.partition);
    wanted.push_back(
        {.name = t.name,
         .partitions = std::span<const int32_t>(ids).subspan(first, ids.size() - first)});
  }
  std::map<std::pair<std::string, int32_t>, int64_t> out;
  if (wanted.empty()) return out;
  const messages::FetchOffsetsRequest request{.group = group, .topics = wanted};
  Result<std::vector<std::byte>> body = channel.call(
      frame::ApiKey::kFetchOffsets, messages::kFetchOffsetsVersion,
      [&](WriteBuffer& w) { return messages::encode_fetch_offsets_request(request, w); });
  if (!body.ok()) return body.status();
  Result<messages::FetchOffsetsResponse> decoded = messages::decode_fetch_offsets_response(*body);
  if (!decoded.ok()) return decoded.status();
  for (const messages::FetchOffsetsTopicResult& t : decoded->topics) {
    for (const messages::FetchOffsetsResult& r : t.results) {
      // A partition that errs (a topic deleted meanwhile) has no offset to show.
      if (r.error_code == ErrorCode::kOk && r.offset >= 0) {
        out[{owned(t.name), r.partition}] = r.offset;
      }
    }
  }
  return out;
}

// The first offset in [from, end) of `topic`/`partition` whose record's
// timestamp is >= `timestamp`, or `end` when there is none: a read of the
// partition from `from` (see Admin::reset_offsets).
Result<int64_t> first_offset_at_or_after(const Connection& connection, std::string_view topic,
                                         int32_t partition, int64_t from, int64_t end,
                                         int64_t timestamp) {
  if (from >= end) return end;
  ConsumerOptions options;
  options.bootstrap = connection.address();
  options.connect_timeout = connection.options().connect_timeout;
  options.request_timeout = connection.options().request_timeout;
  options.security = connection.options().security;
  Result<std::unique_ptr<Consumer>> consumer = Consumer::create(options);
  if (!consumer.ok()) return consumer.status();
  const int32_t partitions[] = {partition};
  SPILLWAY_RETURN_IF_ERROR((*consumer)->assign(topic, partitions));
  SPILLWAY_RETURN_IF_ERROR((*consumer)->seek(topic, partition, from));
  int64_t next = from;
  while (next < end) {
    Result<ConsumerRecords> records = (*consumer)->poll(options.request_timeout);
    if (!records.ok()) return records.status();
    if (records->empty()) {
      return Status(ErrorCode::kTimeout, owned(topic) + "/" + std::to_string(partition) +
                                             ": no records from offset " + std::to_string(next) +
                                             " within the request timeout");
    }
    for (const ConsumerRecord& r : *records) {
      if (r.offset >= end) return end;
      if (r.timestamp >= timestamp) return r.offset;
      next = r.offset + 1;
    }
  }
  return end;
}

}  // namespace

Result<std::vector<GroupListing>> Admin::list_groups() {
  Result<std::vector<std::byte>> body =
      wire::channel_of(connection_)
          .call(frame::ApiKey::kListGroups, messages::kListGroupsVersion,
                [](WriteBuffer& out) { return messages::encode_list_groups_request({}, out); });
  if (!body.ok()) return body.status();
  Result<messages::ListGroupsResponse> decoded = messages::decode_list_groups_response(*body);
  if (!decoded.ok()) return decoded.status();
  std::vector<GroupListing> groups;
  groups.reserve(static_cast<size_t>(decoded->groups.size()));
  for (const messages::ListedGroup& g : decoded->groups) {
    groups.push_back({owned(g.group), owned(g.protocol_type), owned(g.state)});
  }
  return groups;
}

Result<GroupDescription> Admin::describe_group(std::string_view group) {
  wire::Channel& channel = wire::channel_of(connection_);
  Result<GroupDescription> d = describe_members(channel, group);
  if (!d.ok()) return d.status();
  Result<std::vector<wire::TopicMetadata>> metadata = wire::request_all_metadata(channel);
  if (!metadata.ok()) return metadata.status();
  std::vector<TopicDescription> topics;
  for (wire::TopicMetadata& t : *metadata) {
    if (t.error == ErrorCode::kOk) topics.push_back(std::move(t.topic));
  }
  auto committed = committed_offsets(channel, group, topics);
  if (!committed.ok()) return committed.status();

  // Who has each partition.
  std::map<std::pair<std::string, int32_t>, const GroupMember*> owner;
  for (const GroupMember& m : d->members) {
    for (const GroupTopicPartitions& tp : m.assignment) {
      for (int32_t p : tp.partitions) owner[{tp.topic, p}] = &m;
    }
  }
  for (const TopicDescription& t : topics) {
    for (const PartitionDescription& p : t.partitions) {
      const auto key = std::make_pair(t.name, p.partition);
      const auto c = committed->find(key);
      const auto o = owner.find(key);
      if (c == committed->end() && o == owner.end()) continue;
      GroupPartitionLag row;
      row.topic = t.name;
      row.partition = p.partition;
      row.log_end_offset = p.high_watermark;
      if (o != owner.end()) {
        row.member_id = o->second->member_id;
        row.client_id = o->second->client_id;
      }
      if (c != committed->end()) {
        row.committed = c->second;
        row.lag = std::max<int64_t>(0, p.high_watermark - c->second);
      }
      d->partitions.push_back(std::move(row));
    }
  }
  std::sort(d->partitions.begin(), d->partitions.end(), [](const auto& a, const auto& b) {
    return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
  });
  return d;
}

Status Admin::delete_group(std::string_view group) {
  const std::string_view names[] = {group};
  const messages::DeleteGroupsRequest request{.groups = names};
  Result<std::vector<std::byte>> body =
      wire::channel_of(connection_)
          .call(frame::ApiKey::kDeleteGroups, messages::kDeleteGroupsVersion,
                [&](WriteBuffer& out) {
                  return messages::encode_delete_groups_request(request, out);
                });
  if (!body.ok()) return body.status();
  Result<messages::DeleteGroupsResponse> decoded = messages::decode_delete_groups_response(*body);
  if (!decoded.ok()) return decoded.status();
  for (const messages::DeletedGroup& g : decoded->groups) {
    if (g.group != group) continue;
    if (g.error_code == ErrorCode::kOk) return Status::Ok();
    return group_error(group, g.error_code, g.error_message);
  }
  return Status(ErrorCode::kCorruptMessage,
                "the DeleteGroups answer leaves out group " + owned(group));
}

Result<std::vector<OffsetResetResult>> Admin::reset_offsets(std::string_view group,
                                                            std::string_view topic,
                                                            const OffsetResetSpec& spec) {
  wire::Channel& channel = wire::channel_of(connection_);
  // A group nobody knows yet may be given offsets; one with members may not
  // (they would overwrite them with their next commit). The broker enforces
  // that (the commit below is a simple one, refused with kUnknownMember
  // while the group has members); this look first only makes the message
  // name the members and the state.
  Result<GroupDescription> d = describe_members(channel, group);
  if (!d.ok() && d.status().code() != ErrorCode::kUnknownGroup) return d.status();
  if (d.ok() && !d->members.empty()) {
    return Status(ErrorCode::kGroupNotEmpty,
                  "group " + owned(group) + " has " + std::to_string(d->members.size()) +
                      " member" + (d->members.size() == 1 ? "" : "s") + " (state " + d->state +
                      "); stop its consumers before resetting its offsets");
  }
  Result<TopicDescription> t = wire::describe_topic(channel, topic);
  if (!t.ok()) return t.status();
  std::vector<PartitionId> ids;
  for (const PartitionDescription& p : t->partitions) ids.push_back(PartitionId(p.partition));
  Result<std::vector<wire::CommittedOffset>> old =
      wire::fetch_committed(channel, group, topic, ids);
  if (!old.ok()) return old.status();

  std::vector<OffsetResetResult> results;
  std::vector<TopicPartitionOffset> commits;
  for (const PartitionDescription& p : t->partitions) {
    OffsetResetResult r;
    r.partition = p.partition;
    for (const wire::CommittedOffset& c : *old) {
      if (c.partition.value() == p.partition && c.error.ok()) r.old_offset = c.offset.value();
    }
    switch (spec.kind) {
      case OffsetResetSpec::Kind::kEarliest:
        r.new_offset = p.log_start_offset;
        break;
      case OffsetResetSpec::Kind::kLatest:
        r.new_offset = p.high_watermark;
        break;
      case OffsetResetSpec::Kind::kOffset:
        r.new_offset = std::clamp(spec.value, p.log_start_offset, p.high_watermark);
        break;
      case OffsetResetSpec::Kind::kTimestamp: {
        Result<int64_t> found = first_offset_at_or_after(
            connection_, topic, p.partition, p.log_start_offset, p.high_watermark, spec.value);
        if (!found.ok()) return found.status();
        r.new_offset = *found;
        break;
      }
    }
    commits.push_back({std::string(topic), p.partition, r.new_offset});
    results.push_back(r);
  }
  if (Status st = wire::commit_offsets(channel, group, commits); !st.ok()) {
    if (st.code() == ErrorCode::kGroupNotEmpty || st.code() == ErrorCode::kUnknownMember ||
        st.code() == ErrorCode::kIllegalGeneration) {
      // The broker's refusal: a member joined after the look above.
      return Status(ErrorCode::kGroupNotEmpty,
                    "group " + owned(group) +
                        " has members now; stop its consumers before resetting its offsets (" +
                        std::string(st.message()) + ")");
    }
    return st;
  }
  return results;
}

}  // namespace spillway
