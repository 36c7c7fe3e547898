// OffsetForLeaderEpoch.
#include "offset_for_leader_epoch_handler.h"

#include <memory>
#include <string>
#include <vector>

#include "codec.h"
#include "core/task_pool.h"
#include "error_map.h"
#include "handlers/access.h"
#include "spillway/common/kafka/offset_for_leader_epoch.h"

namespace spillway::broker::kafka_listener {

namespace {

using Request = kafka::OffsetForLeaderEpochRequest;
using Response = kafka::OffsetForLeaderEpochResponse;

// The only leader epoch a partition of a standalone broker ever has.
constexpr int32_t kEpoch = 0;

Response::Partition standalone_answer(const Partition& log, const Request::Partition& p) {
  Response::Partition out{
      .error_code = 0, .partition = p.partition, .leader_epoch = -1, .end_offset = -1};
  if (p.current_leader_epoch > kEpoch) {
    // -1 means "not checked"; a newer epoch than ours is one we never had.
    out.error_code = kafka_error(KafkaRefusal::kUnknownLeaderEpoch);
  } else if (p.leader_epoch == kEpoch) {
    out.leader_epoch = kEpoch;
    out.end_offset = log.high_watermark().value();
  }
  return out;
}

// The request's answers while the partitions' owners (in a cluster) look
// up their leader-epoch files; owns the topic names the response views.
struct EpochWork {
  Exchange* exchange = nullptr;
  std::vector<std::string> names;
  std::vector<size_t> first;  // per topic, into `partitions`; one past the end last
  std::vector<Response::Partition> partitions;
  size_t pending = 0;
  bool dispatching = true;
};

void send(EpochWork& work) {
  std::vector<Response::Topic> topics;
  for (size_t t = 0; t < work.names.size(); ++t) {
    topics.push_back(
        {.topic = work.names[t],
         .partitions = std::span<const Response::Partition>(work.partitions)
                           .subspan(work.first[t], work.first[t + 1] - work.first[t])});
  }
  Response response;
  response.topics = topics;
  respond(*work.exchange, response);
}

void on_epoch_end(void* ctx, uint32_t index, PartitionReply& reply) {
  auto& work = *static_cast<EpochWork*>(ctx);
  Response::Partition& out = work.partitions[index];
  if (!reply.status.ok()) {
    out.error_code = kafka_error(reply.status);
  } else {
    out.leader_epoch = reply.leader_epoch.value();
    out.end_offset = reply.last_offset.value();
  }
  if (--work.pending == 0 && !work.dispatching) send(work);
}

}  // namespace

void OffsetForLeaderEpochHandler::handle(Exchange& exchange) {
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  // Shared with the owners' replies; kept alive by them.
  auto work = std::make_shared<EpochWork>();
  work->exchange = &exchange;
  for (const Request::Topic& t : request->topics) {
    work->first.push_back(work->partitions.size());
    work->names.emplace_back(t.topic);
    for (const Request::Partition& p : t.partitions) {
      work->partitions.push_back(
          {.error_code = 0, .partition = p.partition, .leader_epoch = -1, .end_offset = -1});
    }
  }
  work->first.push_back(work->partitions.size());
  size_t index = 0;
  for (const Request::Topic& t : request->topics) {
    const Topic* topic = context_.broker.topics.find(t.topic);
    const bool may_describe =
        may_topic(context_.broker, exchange, security::AclOperation::kDescribe, t.topic);
    for (const Request::Partition& p : t.partitions) {
      Response::Partition& out = work->partitions[index];
      const auto at = static_cast<uint32_t>(index++);
      if (!may_describe) {
        out.error_code = kafka_error(ErrorCode::kTopicAuthorizationFailed);
        continue;
      }
      const Status usable = topic == nullptr ? Status(ErrorCode::kUnknownTopic, "")
                                             : topic->check_partition(p.partition);
      if (!usable.ok()) {
        out.error_code = kafka_error(usable);
        continue;
      }
      std::shared_ptr<Partition> log = topic->partitions[static_cast<size_t>(p.partition)];
      const replication::Role role = log->role();
      if (role == replication::Role::kStandalone) {
        out = standalone_answer(*log, p);
        continue;
      }
      if (role != replication::Role::kLeader) {
        // Clients ask the leader (a follower's own question goes through
        // the native LeaderEpochEnd).
        out.error_code = kafka_error(ErrorCode::kNotLeaderOrFollower);
        continue;
      }
      // In a cluster the partition's leader-epoch file answers (KIP-101,
      // KIP-320: a consumer validating its position after a leader change).
      Reply reply;
      reply.executor = tracked_executor(exchange.context());
      reply.keep_alive = work;
      reply.fn = &on_epoch_end;
      reply.ctx = work.get();
      reply.index = at;
      ++work->pending;
      post_task(log->owner(), [log, requested = LeaderEpoch(p.leader_epoch),
                               current = LeaderEpoch(p.current_leader_epoch),
                               reply = std::move(reply)]() mutable {
        log->epoch_end(requested, current, std::move(reply));
      });
    }
  }
  work->dispatching = false;
  if (work->pending == 0) send(*work);
}

}  // namespace spillway::broker::kafka_listener
