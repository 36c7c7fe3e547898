// Kafka's Fetch.
#include "fetch_handler.h"

#include <vector>

#include "codec.h"
#include "error_map.h"
#include "handlers/fetch_core.h"
#include "security/authorizer.h"
#include "spillway/common/kafka/fetch.h"

namespace spillway::broker::kafka_listener {

namespace {

using Response = kafka::FetchResponse;

// The shared core and the Kafka response's views over its parts, kept in
// the exchange and reused.
struct KafkaFetchState final : FetchCore {
  std::vector<Response::Partition> partitions;
  std::vector<Response::Topic> topics;
};

Status encode_fetch(FetchCore& core) {
  auto& st = static_cast<KafkaFetchState&>(core);
  const std::vector<FetchCore::Part>& parts = st.parts();
  st.partitions.clear();
  st.topics.clear();
  for (const FetchCore::Part& part : parts) {
    Response::Partition p;
    p.partition_index = part.partition;
    p.error_code = kafka_read_error(part.code);
    p.high_watermark = part.high_watermark;
    p.last_stable_offset = part.high_watermark;  // no transactions
    p.log_start_offset = part.log_start_offset;
    p.aborted_transactions = {};  // empty, not null: clients expect an array
    p.preferred_read_replica = -1;
    if (part.include) p.records = FetchCore::records(part);
    st.partitions.push_back(p);
  }
  size_t p = 0;
  for (uint32_t t = 0; t < st.topic_count(); ++t) {
    size_t end = p;
    while (end < parts.size() && parts[end].topic == t) ++end;
    Response::Topic topic;
    topic.topic = st.topic_name(t);
    topic.partitions = std::span<const Response::Partition>(st.partitions).subspan(p, end - p);
    st.topics.push_back(topic);
    p = end;
  }
  Response response;
  response.session_id = 0;  // no fetch sessions: every fetch is a full one
  response.responses = st.topics;
  Exchange& exchange = st.exchange();
  const int16_t version = exchange.header().api_version;
  return wire::encode(response, kafka::context<Response>(version), exchange.out());
}

}  // namespace

void FetchHandler::handle(Exchange& exchange) {
  Result<kafka::FetchRequest> request = decode_request<kafka::FetchRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  KafkaFetchState& st = exchange.state<KafkaFetchState>(Exchange::kKafkaFetchState);
  st.begin(exchange, &encode_fetch, request->max_wait_ms, request->min_bytes, request->max_bytes);
  for (const kafka::FetchRequest::Topic& t : request->topics) {
    const uint32_t topic = st.add_topic(context_.broker.topics, t.topic);
    const bool may_read = security::authorized(context_.broker.authorizer, exchange.security(),
                                               security::AclOperation::kRead,
                                               security::ResourceType::kTopic, t.topic);
    for (const kafka::FetchRequest::Partition& p : t.partitions) {
      if (!may_read) {
        st.add_refused_partition(topic, p.partition, ErrorCode::kTopicAuthorizationFailed,
                                 "not allowed to read the topic");
        continue;
      }
      st.add_partition(topic, p.partition, p.fetch_offset, p.partition_max_bytes,
                       p.current_leader_epoch);
    }
  }
  st.start();
}

}  // namespace spillway::broker::kafka_listener
