// Kafka's Produce.
#include "produce_handler.h"

#include <vector>

#include "codec.h"
#include "error_map.h"
#include "handlers/produce_core.h"
#include "security/authorizer.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/produce.h"

namespace spillway::broker::kafka_listener {

namespace {

using Response = kafka::ProduceResponse;
using messages::Acks;

// The shared core and the Kafka response's views over its entries, kept in
// the exchange and reused.
struct KafkaProduceState final : ProduceCore {
  std::vector<Response::Partition> partitions;
  std::vector<Response::Topic> topics;
  bool no_response = false;  // acks 0
};

// Whether a failure's text may go to the client: storage errors can name
// the broker's files, so they go without one (the code says enough).
bool shareable(ErrorCode code) {
  return code != ErrorCode::kIoError && code != ErrorCode::kNotEnoughSpace &&
         code != ErrorCode::kReadOnly;
}

void respond_produce(ProduceCore& core) {
  auto& st = static_cast<KafkaProduceState&>(core);
  Exchange& exchange = st.exchange();
  const std::vector<ProduceCore::Entry>& entries = st.entries();
  if (st.no_response) {
    for (const ProduceCore::Entry& entry : entries) {
      if (entry.code != ErrorCode::kOk) {
        // Kafka closes an acks=0 producer's connection on a failed
        // partition: the client then refreshes its metadata and reconnects.
        exchange.finish(Status(entry.code, entry.message));
        return;
      }
    }
    exchange.finish_without_response();
    return;
  }
  st.partitions.clear();
  st.topics.clear();
  for (const ProduceCore::Entry& entry : entries) {
    Response::Partition p;
    p.index = entry.partition;
    p.error_code = kafka_error(entry.code);
    p.base_offset = entry.base_offset;
    p.log_append_time_ms = -1;  // CreateTime: the producer's timestamps are kept
    p.log_start_offset = entry.log_start_offset;
    if (entry.code != ErrorCode::kOk && shareable(entry.code) && !entry.message.empty()) {
      p.error_message = entry.message;
    }
    st.partitions.push_back(p);
  }
  size_t e = 0;
  for (uint32_t t = 0; t < st.topic_count(); ++t) {
    size_t end = e;
    while (end < entries.size() && entries[end].topic == t) ++end;
    Response::Topic topic;
    topic.name = st.topic_name(t);
    topic.partition_responses =
        std::span<const Response::Partition>(st.partitions).subspan(e, end - e);
    st.topics.push_back(topic);
    e = end;
  }
  Response response;
  response.responses = st.topics;
  respond(exchange, response);
}

}  // namespace

void ProduceHandler::handle(Exchange& exchange) {
  Result<kafka::ProduceRequest> request = decode_request<kafka::ProduceRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  KafkaProduceState& st = exchange.state<KafkaProduceState>(Exchange::kKafkaProduceState);
  st.begin(exchange, context_.broker, &respond_produce);
  st.no_response = request->acks == 0;
  const bool valid_acks = request->acks == 0 || request->acks == 1 || request->acks == -1;
  // acks=-1 is kAll: the ISR in a cluster; a standalone partition makes
  // it durable, as it always was.
  const Acks acks = request->acks == 0   ? Acks::kNone
                    : request->acks == 1 ? Acks::kLeader
                                         : Acks::kAll;
  st.set_timeout_ms(request->timeout_ms);
  // A request of one batch gives its body's buffer to the owner core
  // (ProduceCore::BatchBuffer).
  bool one_batch = request->topic_data.size() == 1;
  for (const kafka::ProduceRequest::Topic& t : request->topic_data)
    one_batch = one_batch && t.partition_data.size() == 1;
  const auto buffer =
      one_batch ? ProduceCore::BatchBuffer::kAdoptBody : ProduceCore::BatchBuffer::kCopy;
  for (const kafka::ProduceRequest::Topic& t : request->topic_data) {
    const uint32_t topic_index = st.add_topic(t.name);
    Topic* topic = context_.broker.topics.find(t.name);
    const bool may_write = security::authorized(context_.broker.authorizer, exchange.security(),
                                                security::AclOperation::kWrite,
                                                security::ResourceType::kTopic, t.name);
    for (const kafka::ProduceRequest::Partition& part : t.partition_data) {
      if (!may_write) {
        st.add_error(
            topic_index, part.index,
            Status(ErrorCode::kTopicAuthorizationFailed, "not allowed to write the topic"));
      } else if (!valid_acks) {
        st.add_error(topic_index, part.index,
                     Status(ErrorCode::kInvalidArgument, "acks must be -1, 0 or 1"));
      } else if (part.records.null) {
        st.add_error(topic_index, part.index,
                     Status(ErrorCode::kCorruptMessage, "null records: no record batch"));
      } else {
        // Kafka's producers send exactly one RecordBatch v2 per partition;
        // validation refuses anything else (trailing bytes, old magic).
        st.produce(topic_index, topic, part.index, part.records.bytes, acks, buffer);
      }
    }
  }
  st.end();
}

}  // namespace spillway::broker::kafka_listener
