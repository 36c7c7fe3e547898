// Fetch: the native request and response around the shared core
// (fetch_core.h).
#include "fetch_handler.h"

#include <vector>

#include "fetch_core.h"
#include "handlers/access.h"
#include "spillway/common/messages/fetch.h"

namespace spillway::broker {

namespace {

// The shared core and the native response's views over its parts, reused
// request after request.
struct FetchState final : FetchCore {
  std::vector<messages::FetchPartitionResult> results;
  std::vector<messages::FetchTopicResult> topic_results;
};

Status encode_fetch(FetchCore& core) {
  auto& st = static_cast<FetchState&>(core);
  const std::vector<FetchCore::Part>& parts = st.parts();
  st.results.clear();
  st.topic_results.clear();
  for (const FetchCore::Part& part : parts) {
    st.results.push_back(
        {.partition = part.partition,
         .error_code = part.code,
         .error_message = part.message,
         .high_watermark = part.high_watermark,
         .log_start_offset = part.log_start_offset,
         .records = part.include ? FetchCore::records(part) : messages::Records{}});
  }
  size_t p = 0;
  for (uint32_t t = 0; t < st.topic_count(); ++t) {
    size_t end = p;
    while (end < parts.size() && parts[end].topic == t) ++end;
    st.topic_results.push_back(
        {.name = st.topic_name(t),
         .results =
             std::span<const messages::FetchPartitionResult>(st.results).subspan(p, end - p)});
    p = end;
  }
  return messages::encode_fetch_response({st.topic_results}, st.exchange().out());
}

}  // namespace

void FetchHandler::handle(Exchange& exchange) {
  Result<messages::FetchRequest> request = messages::decode_fetch_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  FetchState& st = exchange.state<FetchState>(Exchange::kFetchState);
  // The native fetch answers as soon as any partition has data.
  st.begin(exchange, &encode_fetch, request->max_wait_ms, /*min_bytes=*/1, request->max_bytes);
  for (const messages::FetchTopicRequest& t : request->topics) {
    const uint32_t topic = st.add_topic(context_.topics, t.name);
    const bool may_read = may_topic(context_, exchange, security::AclOperation::kRead, t.name);
    for (const messages::FetchPartitionRequest& p : t.partitions) {
      if (!may_read) {
        st.add_refused_partition(topic, p.partition, ErrorCode::kTopicAuthorizationFailed,
                                 "not allowed to read the topic");
        continue;
      }
      st.add_partition(topic, p.partition, p.fetch_offset, p.partition_max_bytes);
    }
  }
  st.start();
}

}  // namespace spillway::broker
