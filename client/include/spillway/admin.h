// Administrative calls on one broker. Today: ApiVersions and ping; topic
// management joins them with the topic requests.
#pragma once

#include <chrono>
#include <string_view>

#include "spillway/common/api_versions.h"
#include "spillway/common/status.h"
#include "spillway/connection.h"

namespace spillway {

struct PingReply {
  ApiVersionsResponse versions;            // the broker's version and apis
  std::chrono::nanoseconds round_trip{0};  // request sent to response read
};

class Admin {
 public:
  // Connects to `address` (see Connection::connect).
  static Result<Admin> connect(std::string_view address, ConnectionOptions options = {});
  explicit Admin(Connection connection) : connection_(std::move(connection)) {}

  // The broker's version string and the api keys and versions it serves.
  Result<ApiVersionsResponse> api_versions();

  // One ApiVersions round trip, timed.
  Result<PingReply> ping();

  Connection& connection() noexcept { return connection_; }

 private:
  Connection connection_;
};

}  // namespace spillway
