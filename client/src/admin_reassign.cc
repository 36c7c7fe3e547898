// Admin::alter_partition_reassignments and list_partition_reassignments:
// native AlterPartitionReassignments (key 29) and
// ListPartitionReassignments (key 30).
#include <array>
#include <map>

#include "channel.h"
#include "spillway/admin.h"
#include "spillway/common/messages/reassignments.h"

namespace spillway {

namespace {

std::vector<int32_t> ids(const wire::Array<int32_t>& list) {
  std::vector<int32_t> out;
  out.reserve(static_cast<size_t>(list.size()));
  for (int32_t id : list) out.push_back(id);
  return out;
}

}  // namespace

Result<std::vector<ReassignmentResult>> Admin::alter_partition_reassignments(
    const std::vector<PartitionReassignment>& moves, int64_t throttle_bytes_per_sec) {
  // The request groups partitions by topic, in order of first appearance.
  std::vector<std::string_view> names;
  std::map<std::string_view, size_t> topic_of;
  for (const PartitionReassignment& m : moves) {
    if (topic_of.try_emplace(m.topic, names.size()).second) names.push_back(m.topic);
  }
  std::vector<std::vector<messages::ReassignPartitionRequest>> partitions(names.size());
  for (const PartitionReassignment& m : moves) {
    partitions[topic_of[m.topic]].push_back({.partition = m.partition, .replicas = m.replicas});
  }
  std::vector<messages::ReassignTopicRequest> topics;
  topics.reserve(names.size());
  for (size_t t = 0; t < names.size(); ++t) {
    topics.push_back({.name = names[t], .partitions = partitions[t]});
  }
  const messages::AlterPartitionReassignmentsRequest request{
      .throttle_bytes_per_sec = throttle_bytes_per_sec, .topics = topics};
  Result<std::vector<std::byte>> body =
      wire::channel_of(connection_)
          .call(frame::ApiKey::kAlterPartitionReassignments,
                messages::kAlterPartitionReassignmentsVersion, [&](WriteBuffer& out) {
                  return messages::encode_alter_partition_reassignments_request(request, out);
                });
  if (!body.ok()) return body.status();
  Result<messages::AlterPartitionReassignmentsResponse> decoded =
      messages::decode_alter_partition_reassignments_response(*body);
  if (!decoded.ok()) return decoded.status();
  std::vector<ReassignmentResult> out;
  for (const messages::ReassignTopicResult& t : decoded->topics) {
    for (const messages::ReassignPartitionResult& r : t.results) {
      out.push_back({.topic = std::string(t.name),
                     .partition = r.partition,
                     .status = r.error_code == ErrorCode::kOk
                                   ? Status::Ok()
                                   : Status(r.error_code, std::string(r.error_message.text))});
    }
  }
  return out;
}

Result<std::vector<OngoingReassignment>> Admin::list_partition_reassignments(
    std::string_view topic) {
  const std::array<messages::ListReassignmentsTopicRequest, 1> one{{{.name = topic}}};
  messages::ListPartitionReassignmentsRequest request;
  if (!topic.empty()) request.topics = one;
  Result<std::vector<std::byte>> body =
      wire::channel_of(connection_)
          .call(frame::ApiKey::kListPartitionReassignments,
                messages::kListPartitionReassignmentsVersion, [&](WriteBuffer& out) {
                  return messages::encode_list_partition_reassignments_request(request, out);
                });
  if (!body.ok()) return body.status();
  Result<messages::ListPartitionReassignmentsResponse> decoded =
      messages::decode_list_partition_reassignments_response(*body);
  if (!decoded.ok()) return decoded.status();
  std::vector<OngoingReassignment> out;
  for (const messages::OngoingReassignmentsTopic& t : decoded->topics) {
    for (const messages::OngoingReassignmentBody& p : t.partitions) {
      out.push_back({.topic = std::string(t.name),
                     .partition = p.partition,
                     .replicas = ids(p.replicas),
                     .target = ids(p.target),
                     .adding = ids(p.adding),
                     .removing = ids(p.removing),
                     .isr = ids(p.isr),
                     .leader = p.leader,
                     .throttle_bytes_per_sec = p.throttle_bytes_per_sec});
    }
  }
  return out;
}

}  // namespace spillway
