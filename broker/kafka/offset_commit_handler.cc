// OffsetCommit.
#include "offset_commit_handler.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_offsets.h"
#include "codec.h"
#include "error_map.h"
#include "group_ownership.h"
#include "groups/group_coordinator.h"
#include "handlers/access.h"
#include "handlers/admin_handlers.h"
#include "spillway/common/kafka/offset_commit.h"

namespace spillway::broker::kafka_listener {

namespace {

using Request = kafka::OffsetCommitRequest;
using Response = kafka::OffsetCommitResponse;

// The request's shape and each partition's error, kept while the commit is
// made durable (the request body is gone by then).
struct CommitWork {
  std::string group;
  std::vector<OffsetStore::Entry> valid;
  std::vector<std::string> topics;
  std::vector<size_t> first_partition;  // per topic, into `partitions`
  std::vector<Response::Partition> partitions;
  std::vector<bool> stored;  // per partition: waits for the store's answer
};

void send(Exchange& exchange, CommitWork& work, const Status& stored) {
  std::vector<Response::Topic> topics;
  topics.reserve(work.topics.size());
  work.first_partition.push_back(work.partitions.size());
  for (size_t p = 0; p < work.partitions.size(); ++p) {
    if (work.stored[p]) work.partitions[p].error_code = kafka_group_error(stored);
  }
  for (size_t t = 0; t < work.topics.size(); ++t) {
    topics.push_back(
        {.name = work.topics[t],
         .partitions = std::span<const Response::Partition>(work.partitions)
                           .subspan(work.first_partition[t],
                                    work.first_partition[t + 1] - work.first_partition[t])});
  }
  Response response;
  response.topics = topics;
  respond(exchange, response);
}

}  // namespace

void OffsetCommitHandler::store(std::string group, std::vector<OffsetStore::Entry> entries,
                                asio::any_io_executor executor, std::function<void(Status)> done) {
  // In a cluster etcd holds the group's offsets first (they outlive this
  // coordinator), then the local store; alone, the local store.
  if (context_.broker.cluster_offsets != nullptr) {
    context_.broker.cluster_offsets->commit(std::move(group), std::move(entries),
                                            std::move(executor), std::move(done));
  } else {
    context_.broker.offsets.commit_async(std::move(group), std::move(entries), std::move(executor),
                                         std::move(done));
  }
}

void OffsetCommitHandler::handle(Exchange& exchange) {
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  auto work = std::make_shared<CommitWork>();
  work->group = std::string(request->group_id);
  // Refusals for the whole request, answered for every partition.
  int16_t refused = 0;
  if (!OffsetStore::validate_group(work->group).ok()) {
    refused = kafka_error(KafkaRefusal::kInvalidGroupName);
  } else if (!may_group(context_.broker, exchange, security::AclOperation::kRead, work->group)) {
    refused = kafka_error(ErrorCode::kGroupAuthorizationFailed);
  } else if (!coordinates_group(context_, work->group)) {
    refused = kafka::errors::kNotCoordinator;
  } else if (context_.broker.cluster_offsets != nullptr &&
             !context_.broker.cluster_offsets->ready(work->group, exchange.executor())) {
    refused = kafka::errors::kCoordinatorLoadInProgress;
  }
  for (const Request::Topic& t : request->topics) {
    const Topic* topic = context_.broker.topics.find(t.name);
    const bool may_read =
        may_topic(context_.broker, exchange, security::AclOperation::kRead, t.name);
    work->topics.emplace_back(t.name);
    work->first_partition.push_back(work->partitions.size());
    for (const Request::Partition& p : t.partitions) {
      Response::Partition out{.partition_index = p.partition_index, .error_code = refused};
      bool stored = false;
      if (refused == 0 && !may_read) {
        out.error_code = kafka_error(ErrorCode::kTopicAuthorizationFailed);
      } else if (refused == 0) {
        Status st = check_commit(topic, t.name, p.partition_index, p.committed_offset);
        if (st.ok()) {
          work->valid.push_back({std::string(t.name), p.partition_index, p.committed_offset});
          stored = true;
        } else {
          out.error_code = kafka_error(st);
        }
      }
      work->partitions.push_back(out);
      work->stored.push_back(stored);
    }
  }
  if (work->valid.empty()) {
    send(exchange, *work, Status::Ok());
    return;
  }
  // The coordinator says whether this member may commit for the group now
  // (generation, member id, static instance); only then is it stored.
  if (context_.broker.groups == nullptr) {
    // No coordinator (a broker without groups): only simple commits.
    if (request->generation_id_or_member_epoch >= 0) {
      send(exchange, *work, Status(ErrorCode::kIllegalGeneration, "no group coordinator"));
      return;
    }
    std::string group = work->group;
    std::vector<OffsetStore::Entry> entries = std::move(work->valid);
    store(
        std::move(group), std::move(entries), exchange.executor(),
        [work, ex = &exchange, keep = exchange.keep_alive()](Status st) { send(*ex, *work, st); });
    return;
  }
  std::optional<std::string> instance;
  if (request->group_instance_id) instance = std::string(*request->group_instance_id);
  context_.broker.groups->check_commit(
      work->group, std::string(request->member_id), request->generation_id_or_member_epoch,
      std::move(instance), exchange.executor(),
      [this, work, ex = &exchange, keep = exchange.keep_alive()](Status allowed) {
        if (!allowed.ok()) {
          send(*ex, *work, allowed);  // every partition that was to be stored
          return;
        }
        std::string group = work->group;
        std::vector<OffsetStore::Entry> entries = std::move(work->valid);
        store(std::move(group), std::move(entries), ex->executor(),
              [work, ex, keep](Status st) { send(*ex, *work, st); });
      });
}

}  // namespace spillway::broker::kafka_listener
