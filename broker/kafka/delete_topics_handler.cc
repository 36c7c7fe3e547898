// DeleteTopics.
#include "delete_topics_handler.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_admin.h"
#include "codec.h"
#include "error_map.h"
#include "handlers/access.h"
#include "spillway/common/kafka/delete_topics.h"

namespace spillway::broker::kafka_listener {

namespace {

using Request = kafka::DeleteTopicsRequest;
using Response = kafka::DeleteTopicsResponse;

struct TopicOutcome {
  std::optional<std::string> name;  // null: named by id
  wire::Uuid id;
  int16_t error = 0;
  std::optional<std::string> message;
};

struct DeleteWork {
  std::vector<TopicOutcome> topics;
  size_t pending = 0;
  bool all_started = false;
};

void send(Exchange& exchange, const DeleteWork& work) {
  std::vector<Response::TopicResult> results;
  results.reserve(work.topics.size());
  for (const TopicOutcome& t : work.topics) {
    Response::TopicResult r;
    if (t.name) r.name = *t.name;
    r.topic_id = t.id;
    r.error_code = t.error;
    if (t.message) r.error_message = *t.message;
    results.push_back(r);
  }
  Response response;
  response.responses = results;
  respond(exchange, response);
}

}  // namespace

void DeleteTopicsHandler::handle(Exchange& exchange) {
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  auto work = std::make_shared<DeleteWork>();
  // Before v6 the topics are names only; from v6 entries with a name or id.
  if (exchange.header().api_version < 6) {
    for (std::string_view name : request->topic_names) {
      work->topics.push_back({.name = std::string(name), .id = {}, .error = 0, .message = {}});
    }
  } else {
    for (const Request::Topic& t : request->topics) {
      TopicOutcome outcome{.name = {}, .id = t.topic_id, .error = 0, .message = {}};
      if (t.name) outcome.name = std::string(*t.name);
      work->topics.push_back(std::move(outcome));
    }
  }
  for (size_t i = 0; i < work->topics.size(); ++i) {
    TopicOutcome& outcome = work->topics[i];
    if (!outcome.name) {
      outcome.error = kafka_error(KafkaRefusal::kUnknownTopicId);
      outcome.message = "Spillway has no topic ids: name the topic";
      continue;
    }
    if (!may_topic(context_.broker, exchange, security::AclOperation::kDelete, *outcome.name)) {
      outcome.error = kafka_error(ErrorCode::kTopicAuthorizationFailed);
      outcome.message = "not allowed to delete the topic";
      continue;
    }
    ++work->pending;
    if (context_.broker.cluster_admin != nullptr) {
      // The cluster deletes it everywhere (each broker drops its log when
      // its snapshot no longer has the topic).
      context_.broker.cluster_admin->delete_topic(
          *outcome.name, exchange.executor(),
          [work, i, ex = &exchange, keep = exchange.keep_alive(),
           offsets = &context_.broker.offsets](Status st) {
            TopicOutcome& done = work->topics[i];
            if (st.ok()) offsets->forget_topic(*done.name);
            if (!st.ok()) {
              done.error = kafka_error(st);
              done.message = std::string(st.message());
            }
            if (--work->pending == 0 && work->all_started) send(*ex, *work);
          });
      continue;
    }
    Status st =
        context_.broker.topics.remove(*outcome.name, exchange.executor(),
                                      [work, i, ex = &exchange, keep = exchange.keep_alive(),
                                       offsets = &context_.broker.offsets](Status st) {
                                        TopicOutcome& done = work->topics[i];
                                        offsets->forget_topic(*done.name);
                                        if (!st.ok()) {
                                          done.error = kafka_error(st);
                                          done.message = std::string(st.message());
                                        }
                                        if (--work->pending == 0 && work->all_started)
                                          send(*ex, *work);
                                      });
    if (!st.ok()) {
      --work->pending;
      outcome.error = kafka_error(st);
      outcome.message = std::string(st.message());
    }
  }
  work->all_started = true;
  if (work->pending == 0) send(exchange, *work);
}

}  // namespace spillway::broker::kafka_listener
