// OffsetForLeaderEpoch.
#include "offset_for_leader_epoch_handler.h"

#include <vector>

#include "codec.h"
#include "error_map.h"
#include "handlers/access.h"
#include "spillway/common/kafka/offset_for_leader_epoch.h"

namespace spillway::broker::kafka_listener {

namespace {

using Request = kafka::OffsetForLeaderEpochRequest;
using Response = kafka::OffsetForLeaderEpochResponse;

// The only leader epoch a partition here ever has.
constexpr int32_t kEpoch = 0;

Response::Partition answer(const Topic* topic, const Request::Partition& p) {
  Response::Partition out{
      .error_code = 0, .partition = p.partition, .leader_epoch = -1, .end_offset = -1};
  if (topic == nullptr) {
    out.error_code = kafka_error(ErrorCode::kUnknownTopic);
  } else if (Status usable = topic->check_partition(p.partition); !usable.ok()) {
    out.error_code = kafka_error(usable);
  } else if (p.current_leader_epoch > kEpoch) {
    // -1 means "not checked"; a newer epoch than ours is one we never had.
    out.error_code = kafka_error(KafkaRefusal::kUnknownLeaderEpoch);
  } else if (p.leader_epoch == kEpoch) {
    out.leader_epoch = kEpoch;
    out.end_offset = topic->partitions[static_cast<size_t>(p.partition)]->high_watermark().value();
  }
  return out;
}

}  // namespace

void OffsetForLeaderEpochHandler::handle(Exchange& exchange) {
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  std::vector<Response::Partition> partitions;
  std::vector<size_t> first;
  for (const Request::Topic& t : request->topics) {
    first.push_back(partitions.size());
    const Topic* topic = context_.broker.topics.find(t.topic);
    const bool may_describe =
        may_topic(context_.broker, exchange, security::AclOperation::kDescribe, t.topic);
    for (const Request::Partition& p : t.partitions) {
      if (!may_describe) {
        partitions.push_back({.error_code = kafka_error(ErrorCode::kTopicAuthorizationFailed),
                              .partition = p.partition,
                              .leader_epoch = -1,
                              .end_offset = -1});
        continue;
      }
      partitions.push_back(answer(topic, p));
    }
  }
  first.push_back(partitions.size());
  std::vector<Response::Topic> topics;
  size_t index = 0;
  for (const Request::Topic& t : request->topics) {
    topics.push_back({.topic = t.topic,
                      .partitions = std::span<const Response::Partition>(partitions)
                                        .subspan(first[index], first[index + 1] - first[index])});
    ++index;
  }
  Response response;
  response.topics = topics;
  respond(exchange, response);
}

}  // namespace spillway::broker::kafka_listener
