// The ApiVersions handler.
#include "api_versions_handler.h"

#include <spdlog/spdlog.h>

namespace spillway::broker {

void ApiVersionsHandler::handle(Exchange& exchange) {
  Result<std::string_view> client = decode_api_versions_request(exchange.body());
  if (!client.ok()) {
    exchange.finish(client.status());
    return;
  }
  spdlog::debug("ApiVersions from client '{}'", *client);
  // The table is fixed after start; listing it per request is cheap and
  // keeps this handler free of state to keep in sync.
  std::array<ApiVersionRange, Dispatcher::kMaxApiKeys> served;
  const size_t count = dispatcher_.served(served);
  const ApiVersionsResponseBody body{broker_version_, std::span(served).first(count)};
  exchange.finish(wire::encode(body, messages::kNative, exchange.out()));
}

}  // namespace spillway::broker
