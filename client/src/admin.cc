// Admin: administrative calls over one Connection.
#include "spillway/admin.h"

namespace spillway {

Result<Admin> Admin::connect(std::string_view address, ConnectionOptions options) {
  Result<Connection> connection = Connection::connect(address, std::move(options));
  if (!connection.ok()) return connection.status();
  return Admin(std::move(connection).value());
}

Result<ApiVersionsResponse> Admin::api_versions() {
  std::vector<std::byte> body;
  encode_api_versions_request(connection_.options().client_id, body);
  Result<std::vector<std::byte>> response =
      connection_.request(frame::ApiKey::kApiVersions, kApiVersionsVersion, body);
  if (!response.ok()) return response.status();
  return decode_api_versions_response(*response);
}

Result<PingReply> Admin::ping() {
  const auto start = std::chrono::steady_clock::now();
  Result<ApiVersionsResponse> versions = api_versions();
  if (!versions.ok()) return versions.status();
  return PingReply{std::move(versions).value(), std::chrono::steady_clock::now() - start};
}

}  // namespace spillway
