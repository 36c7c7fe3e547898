// CreatePartitions.
#include "create_partitions_handler.h"

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "codec.h"
#include "error_map.h"
#include "handlers/access.h"
#include "spillway/common/kafka/create_partitions.h"

namespace spillway::broker::kafka_listener {

namespace {

using Request = kafka::CreatePartitionsRequest;
using Response = kafka::CreatePartitionsResponse;

struct TopicOutcome {
  std::string name;
  int16_t error = 0;
  std::optional<std::string> message;

  void fail(int16_t code, std::string text) {
    error = code;
    message = std::move(text);
  }
  // A registry refusal: an invalid argument is the count.
  void refused(const Status& st) {
    fail(st.code() == ErrorCode::kInvalidArgument
             ? kafka_error(KafkaRefusal::kInvalidPartitionCount)
             : kafka_error(st),
         std::string(st.message()));
  }
};

struct GrowWork {
  std::vector<TopicOutcome> topics;
  size_t pending = 0;
  bool all_started = false;
};

void send(Exchange& exchange, const GrowWork& work) {
  std::vector<Response::TopicResult> results;
  results.reserve(work.topics.size());
  for (const TopicOutcome& t : work.topics) {
    Response::TopicResult r;
    r.name = t.name;
    r.error_code = t.error;
    if (t.message) r.error_message = *t.message;
    results.push_back(r);
  }
  Response response;
  response.results = results;
  respond(exchange, response);
}

// Ok iff every assignment (one per new partition) is this broker alone.
bool assignments_fit(const Request::Topic& t, const Topic* topic, int32_t node_id) {
  if (t.assignments.is_null()) return true;
  const auto current = topic == nullptr ? 0 : static_cast<int32_t>(topic->partitions.size());
  if (t.assignments.size() != t.count - current) return false;
  for (const Request::Assignment& a : t.assignments) {
    if (a.broker_ids.size() != 1 || *a.broker_ids.begin() != node_id) return false;
  }
  return true;
}

}  // namespace

void CreatePartitionsHandler::handle(Exchange& exchange) {
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  auto work = std::make_shared<GrowWork>();
  std::unordered_map<std::string_view, int> uses;
  for (const Request::Topic& t : request->topics) ++uses[t.name];
  TopicRegistry& registry = context_.broker.topics;
  work->topics.reserve(static_cast<size_t>(request->topics.size()));
  for (const Request::Topic& t : request->topics) {
    const size_t index = work->topics.size();
    TopicOutcome& outcome = work->topics.emplace_back();
    outcome.name = std::string(t.name);
    if (uses[t.name] > 1) {
      outcome.fail(kafka_error(KafkaRefusal::kDuplicateInRequest),
                   "topic " + outcome.name + " is named more than once in the request");
      continue;
    }
    if (!may_topic(context_.broker, exchange, security::AclOperation::kAlter, t.name)) {
      outcome.fail(kafka_error(ErrorCode::kTopicAuthorizationFailed),
                   "not allowed to alter the topic");
      continue;
    }
    const Topic* topic = registry.find(t.name);
    if (topic != nullptr && !assignments_fit(t, topic, context_.node_id)) {
      outcome.fail(kafka_error(KafkaRefusal::kInvalidReplicaAssignment),
                   "assignments must place each new partition on broker " +
                       std::to_string(context_.node_id) + " alone");
      continue;
    }
    if (request->validate_only) {
      if (Status st = registry.check_add_partitions(t.name, t.count); !st.ok()) outcome.refused(st);
      continue;
    }
    ++work->pending;
    Status st = registry.add_partitions(
        t.name, t.count, exchange.executor(),
        [work, index, ex = &exchange, keep = exchange.keep_alive()](Status done) {
          if (!done.ok()) work->topics[index].refused(done);
          if (--work->pending == 0 && work->all_started) send(*ex, *work);
        });
    if (!st.ok()) {
      --work->pending;
      outcome.refused(st);
    }
  }
  work->all_started = true;
  if (work->pending == 0) send(exchange, *work);
}

}  // namespace spillway::broker::kafka_listener
