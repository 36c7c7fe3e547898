// AlterPartitionReassignments and ListPartitionReassignments. Administrative
// requests: the orders and views are built in vectors per request.
#include "reassignment_handlers.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/cluster_admin.h"
#include "cluster/reassignment.h"
#include "handlers/access.h"
#include "spillway/common/messages/reassignments.h"

namespace spillway::broker {

namespace {

constexpr const char* kNotACluster =
    "not a cluster: moving partitions needs a replicated cluster ([cluster] etcd_endpoints)";

// One Alter request in flight: the orders grouped by topic (one etcd write
// each) and where each result goes in the response.
struct AlterWork {
  struct Slot {
    size_t group;  // index into `groups`
    size_t order;  // index into that group's orders
  };
  struct Group {
    std::string topic;
    std::vector<cluster::ReassignOrder> orders;
    std::vector<Status> results;
  };
  std::vector<Group> groups;
  std::vector<std::string> request_topics;  // in request order
  std::vector<std::vector<Slot>> slots;     // per request topic, per partition
  std::vector<int32_t> partitions;          // per slot, flattened in request order
  size_t pending = 0;
};

Status encode_alter_response(const AlterWork& work, WriteBuffer& out) {
  std::vector<messages::ReassignPartitionResult> results;
  std::vector<messages::ReassignTopicResult> topics;
  size_t n = 0;
  for (const auto& s : work.slots) n += s.size();
  results.reserve(n);
  size_t flat = 0;
  std::vector<size_t> first;
  for (const auto& topic_slots : work.slots) {
    first.push_back(results.size());
    for (const AlterWork::Slot& slot : topic_slots) {
      const Status& st = work.groups[slot.group].results[slot.order];
      results.push_back({.partition = work.partitions[flat++],
                         .error_code = st.code(),
                         .error_message = st.message()});
    }
  }
  first.push_back(results.size());
  for (size_t t = 0; t < work.request_topics.size(); ++t) {
    topics.push_back(
        {.name = work.request_topics[t],
         .results = std::span<const messages::ReassignPartitionResult>(results).subspan(
             first[t], first[t + 1] - first[t])});
  }
  return messages::encode_alter_partition_reassignments_response({topics}, out);
}

}  // namespace

void AlterPartitionReassignmentsHandler::handle(Exchange& exchange) {
  Result<messages::AlterPartitionReassignmentsRequest> request =
      messages::decode_alter_partition_reassignments_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (!may_cluster(context_, exchange, security::AclOperation::kAlter)) {
    exchange.finish(Status(ErrorCode::kClusterAuthorizationFailed,
                           "not authorized to move partitions (needs Alter on the cluster)"));
    return;
  }
  if (context_.cluster_admin == nullptr) {
    exchange.finish(Status(ErrorCode::kInvalidArgument, kNotACluster));
    return;
  }
  if (request->throttle_bytes_per_sec < 0) {
    exchange.finish(Status(ErrorCode::kInvalidArgument,
                           "the throttle is 0 (none) or a number of bytes per second, not " +
                               std::to_string(request->throttle_bytes_per_sec)));
    return;
  }
  // Counts first: nothing is copied for a request past the limits.
  size_t count = 0;
  for (const messages::ReassignTopicRequest& t : request->topics) {
    for (const messages::ReassignPartitionRequest& p : t.partitions) {
      if (static_cast<size_t>(p.replicas.size()) > messages::kMaxReassignReplicas) {
        exchange.finish(Status(ErrorCode::kInvalidReplicaAssignment,
                               "partition " + std::string(t.name) + "/" +
                                   std::to_string(p.partition) + " names " +
                                   std::to_string(p.replicas.size()) + " replicas; at most " +
                                   std::to_string(messages::kMaxReassignReplicas)));
        return;
      }
      ++count;
    }
  }
  if (count == 0) {
    exchange.finish(Status(ErrorCode::kInvalidArgument, "no partitions to move"));
    return;
  }
  if (count > messages::kMaxReassignPartitions) {
    exchange.finish(Status(ErrorCode::kInvalidArgument,
                           std::to_string(count) + " partitions in one request; at most " +
                               std::to_string(messages::kMaxReassignPartitions)));
    return;
  }

  auto work = std::make_shared<AlterWork>();
  std::map<std::string, size_t, std::less<>> group_of;
  for (const messages::ReassignTopicRequest& t : request->topics) {
    auto [it, added] = group_of.try_emplace(std::string(t.name), work->groups.size());
    if (added) work->groups.push_back({.topic = std::string(t.name), .orders = {}, .results = {}});
    AlterWork::Group& group = work->groups[it->second];
    work->request_topics.emplace_back(t.name);
    std::vector<AlterWork::Slot>& slots = work->slots.emplace_back();
    for (const messages::ReassignPartitionRequest& p : t.partitions) {
      cluster::ReassignOrder order{.partition = p.partition,
                                   .replicas = {},
                                   .throttle_bytes_per_sec = request->throttle_bytes_per_sec};
      order.replicas.reserve(static_cast<size_t>(p.replicas.size()));
      for (int32_t id : p.replicas) order.replicas.push_back(id);
      slots.push_back({.group = it->second, .order = group.orders.size()});
      work->partitions.push_back(p.partition);
      group.orders.push_back(std::move(order));
    }
  }
  work->pending = work->groups.size();
  for (size_t g = 0; g < work->groups.size(); ++g) {
    AlterWork::Group& group = work->groups[g];
    context_.cluster_admin->reassign_partitions(
        group.topic, group.orders, exchange.executor(),
        [work, g, ex = &exchange, keep = exchange.keep_alive()](std::vector<Status> results) {
          work->groups[g].results = std::move(results);
          if (--work->pending > 0) return;
          ex->finish(encode_alter_response(*work, ex->out()));
        });
  }
}

void ListPartitionReassignmentsHandler::handle(Exchange& exchange) {
  Result<messages::ListPartitionReassignmentsRequest> request =
      messages::decode_list_partition_reassignments_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (!may_cluster(context_, exchange, security::AclOperation::kDescribe)) {
    exchange.finish(
        Status(ErrorCode::kClusterAuthorizationFailed,
               "not authorized to list partition moves (needs Describe on the cluster)"));
    return;
  }
  const cluster::SnapshotPtr snapshot =
      context_.cluster_admin != nullptr ? context_.cluster_admin->snapshot() : nullptr;
  if (snapshot == nullptr) {
    exchange.finish(Status(ErrorCode::kInvalidArgument, kNotACluster));
    return;
  }
  for (const messages::ListReassignmentsTopicRequest& t : request->topics) {
    if (!snapshot->topics.contains(t.name)) {
      exchange.finish(Status(ErrorCode::kUnknownTopic, "no topic " + std::string(t.name)));
      return;
    }
  }
  // Whether the request asks for this move (no topics: every one).
  auto wanted = [&](const cluster::ReassignmentView& v) {
    if (request->topics.empty()) return true;
    for (const messages::ListReassignmentsTopicRequest& t : request->topics) {
      if (t.name != v.topic) continue;
      if (t.partitions.empty()) return true;
      for (int32_t p : t.partitions) {
        if (p == v.partition) return true;
      }
    }
    return false;
  };
  std::vector<cluster::ReassignmentView> views;
  for (cluster::ReassignmentView& v : cluster::ongoing_reassignments(*snapshot)) {
    if (wanted(v)) views.push_back(std::move(v));
  }
  // Views are by topic, then partition: one response topic per run.
  std::vector<messages::OngoingReassignmentBody> partitions;
  partitions.reserve(views.size());
  for (const cluster::ReassignmentView& v : views) {
    partitions.push_back({.partition = v.partition,
                          .replicas = v.replicas,
                          .target = v.target,
                          .adding = v.adding,
                          .removing = v.removing,
                          .isr = v.isr,
                          .leader = v.leader,
                          .throttle_bytes_per_sec = v.throttle_bytes_per_sec});
  }
  std::vector<messages::OngoingReassignmentsTopic> topics;
  for (size_t i = 0; i < views.size();) {
    size_t end = i;
    while (end < views.size() && views[end].topic == views[i].topic) ++end;
    topics.push_back(
        {.name = views[i].topic,
         .partitions =
             std::span<const messages::OngoingReassignmentBody>(partitions).subspan(i, end - i)});
    i = end;
  }
  exchange.finish(messages::encode_list_partition_reassignments_response({topics}, exchange.out()));
}

}  // namespace spillway::broker
