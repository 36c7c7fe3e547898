// The ApiVersions handler.
#include "api_versions_handler.h"

#include <spdlog/spdlog.h>

namespace spillway::broker {

void add_api_versions_handler(Dispatcher& dispatcher, std::string broker_version) {
  dispatcher.add(
      frame::ApiKey::kApiVersions, kApiVersionsVersion, kApiVersionsVersion,
      [&dispatcher, version = std::move(broker_version)](const Request& request,
                                                         std::vector<std::byte>& out) -> Status {
        Result<std::string_view> client = decode_api_versions_request(request.body);
        if (!client.ok()) return client.status();
        spdlog::debug("ApiVersions from client '{}'", *client);
        // The table is fixed after start; computing the list per request is
        // cheap and keeps this handler free of state to keep in sync.
        encode_api_versions_response(ApiVersionsResponse{version, dispatcher.served()}, out);
        return Status::Ok();
      });
}

}  // namespace spillway::broker
