// Body codec of ApiVersions (api key 0), the first request on every native
// connection: the client learns the broker's version and which api keys and
// versions it serves. Layout in docs/protocol.md ("ApiVersions").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"

namespace spillway {

inline constexpr int16_t kApiVersionsVersion = 0;  // the only version so far

struct ApiVersionRange {
  int16_t api_key = 0;
  int16_t min_version = 0;
  int16_t max_version = 0;
};

struct ApiVersionsResponse {
  std::string broker_version;  // e.g. "spillway-broker 0.1.0"
  std::vector<ApiVersionRange> apis;
};

// Request body: the client's software name and version, for the broker's log.
void encode_api_versions_request(std::string_view client_version, std::vector<std::byte>& out);
// Returns the client version string, a view into `body`.
Result<std::string_view> decode_api_versions_request(std::span<const std::byte> body);

// Response body. The api count is checked against the bytes present before
// anything is reserved, so a lying count costs nothing.
void encode_api_versions_response(const ApiVersionsResponse& response, std::vector<std::byte>& out);
Result<ApiVersionsResponse> decode_api_versions_response(std::span<const std::byte> body);

}  // namespace spillway
