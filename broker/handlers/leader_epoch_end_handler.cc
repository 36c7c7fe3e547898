// LeaderEpochEnd: epoch_end on each partition's owner core, answered when
// the last one replies. A rare request (once per leader change and
// partition), so its state is allocated per request.
#include "leader_epoch_end_handler.h"

#include <memory>
#include <string>
#include <vector>

#include "core/task_pool.h"
#include "handlers/access.h"
#include "spillway/common/messages/replication.h"

namespace spillway::broker {

namespace {

struct EpochEndState {
  Exchange* exchange = nullptr;
  std::shared_ptr<void> connection;  // the exchange's keep_alive
  std::vector<std::string> names;    // the request's, which outlive its body
  std::vector<size_t> first;         // each topic's first result; one past the last
  std::vector<messages::LeaderEpochEndPartitionResult> results;
  std::vector<std::string> messages;  // error texts, by result
  size_t pending = 0;
};

void finish(EpochEndState& st) {
  for (size_t i = 0; i < st.results.size(); ++i) st.results[i].error_message = st.messages[i];
  std::vector<messages::LeaderEpochEndTopicResult> topics;
  topics.reserve(st.names.size());
  for (size_t t = 0; t < st.names.size(); ++t) {
    topics.push_back(
        {.name = st.names[t],
         .results = std::span<const messages::LeaderEpochEndPartitionResult>(st.results).subspan(
             st.first[t], st.first[t + 1] - st.first[t])});
  }
  Exchange& exchange = *st.exchange;
  exchange.finish(messages::encode_leader_epoch_end_response({topics}, exchange.out()));
}

void on_epoch_end(void* ctx, uint32_t index, PartitionReply& reply) {
  auto& st = *static_cast<EpochEndState*>(ctx);
  messages::LeaderEpochEndPartitionResult& r = st.results[index];
  if (reply.status.ok()) {
    r.leader_epoch = reply.leader_epoch.value();
    r.end_offset = reply.last_offset.value();
  } else {
    r.error_code = reply.status.code();
    st.messages[index] = std::string(reply.status.message());
  }
  if (--st.pending == 0) finish(st);
}

}  // namespace

void LeaderEpochEndHandler::handle(Exchange& exchange) {
  Result<messages::LeaderEpochEndRequest> request =
      messages::decode_leader_epoch_end_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (!may_cluster(context_, exchange, security::AclOperation::kClusterAction)) {
    exchange.finish(Status(ErrorCode::kClusterAuthorizationFailed,
                           "not authorized to replicate (needs ClusterAction on the cluster)"));
    return;
  }
  auto st = std::make_shared<EpochEndState>();
  st->exchange = &exchange;
  st->connection = exchange.keep_alive();
  struct Ask {
    std::shared_ptr<Partition> partition;
    LeaderEpoch requested;
    LeaderEpoch current;
  };
  std::vector<Ask> asks;  // by result; null partition: answered here
  for (const messages::LeaderEpochEndTopicRequest& t : request->topics) {
    st->names.emplace_back(t.name);
    st->first.push_back(st->results.size());
    const Topic* topic = context_.topics.find(t.name);
    for (const messages::LeaderEpochEndPartitionRequest& p : t.partitions) {
      messages::LeaderEpochEndPartitionResult r{.partition = p.partition};
      std::string message;
      Ask ask{nullptr, LeaderEpoch(p.leader_epoch), LeaderEpoch(p.current_leader_epoch)};
      if (topic == nullptr) {
        r.error_code = ErrorCode::kUnknownTopic;
        message = "unknown topic " + std::string(t.name);
      } else if (Status usable = topic->check_partition(p.partition); !usable.ok()) {
        r.error_code = usable.code();
        message = std::string(usable.message());
      } else {
        ask.partition = topic->partitions[static_cast<size_t>(p.partition)];
      }
      st->results.push_back(r);
      st->messages.push_back(std::move(message));
      asks.push_back(std::move(ask));
    }
  }
  st->first.push_back(st->results.size());
  for (const Ask& a : asks) {
    if (a.partition != nullptr) ++st->pending;
  }
  if (st->pending == 0) {
    finish(*st);
    return;
  }
  for (uint32_t i = 0; i < asks.size(); ++i) {
    if (asks[i].partition == nullptr) continue;
    Reply reply;
    reply.executor = tracked_executor(exchange.context());
    reply.keep_alive = st;
    reply.fn = &on_epoch_end;
    reply.ctx = st.get();
    reply.index = i;
    Partition& partition = *asks[i].partition;
    post_task(partition.owner(), [owner = asks[i].partition, requested = asks[i].requested,
                                  current = asks[i].current, reply = std::move(reply)]() mutable {
      owner->epoch_end(requested, current, std::move(reply));
    });
  }
}

}  // namespace spillway::broker
