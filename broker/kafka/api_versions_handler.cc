// Kafka's ApiVersions.
#include "api_versions_handler.h"

#include "codec.h"
#include "spillway/common/kafka/api_versions.h"
#include "spillway/common/kafka/error_codes.h"

namespace spillway::broker::kafka_listener {

void ApiVersionsHandler::handle(Exchange& exchange) {
  using kafka::ApiVersionsResponse;
  std::array<ApiVersionRange, Dispatcher::kMaxApiKeys> served;
  const size_t count = dispatcher_.served(served);
  std::array<ApiVersionsResponse::ApiVersion, Dispatcher::kMaxApiKeys> keys;
  for (size_t i = 0; i < count; ++i) {
    keys[i] = {served[i].api_key, served[i].min_version, served[i].max_version};
  }
  ApiVersionsResponse response;
  response.api_keys = std::span(keys).first(count);
  const int16_t version = exchange.header().api_version;
  if (!ApiVersionsResponse::kVersions.has(version)) {
    // Its body cannot be read; the answer goes in the v0 layout, which
    // every client can read, with the versions it may retry at.
    response.error_code = kafka::errors::kUnsupportedVersion;
    exchange.finish(wire::encode(response, kafka::context<ApiVersionsResponse>(0), exchange.out()));
    return;
  }
  Result<kafka::ApiVersionsRequest> request = decode_request<kafka::ApiVersionsRequest>(exchange);
  if (!request.ok()) {
    // Kafka answers INVALID_REQUEST here rather than closing.
    response.error_code = kafka::errors::kInvalidRequest;
  }
  respond(exchange, response);
}

}  // namespace spillway::broker::kafka_listener
