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

#include "spillway/common/messages/native.h"
#include "spillway/common/status.h"

namespace spillway {

inline constexpr int16_t kApiVersionsVersion = 0;  // the only version so far

struct ApiVersionRange {
  int16_t api_key = 0;
  int16_t min_version = 0;
  int16_t max_version = 0;

  static constexpr auto fields() {
    return std::tuple{
        wire::Field<&ApiVersionRange::api_key>{"api_key"},
        wire::Field<&ApiVersionRange::min_version>{"min_version"},
        wire::Field<&ApiVersionRange::max_version>{"max_version"},
    };
  }
};

// On the wire.
struct ApiVersionsRequestBody {
  std::string_view client_version;  // e.g. "spillway-cli 0.1.0"

  static constexpr auto fields() {
    return std::tuple{wire::Field<&ApiVersionsRequestBody::client_version>{"client_version"}};
  }
};

struct ApiVersionsResponseBody {
  std::string_view broker_version;
  wire::Array<ApiVersionRange> apis;

  static constexpr auto fields() {
    return std::tuple{
        wire::Field<&ApiVersionsResponseBody::broker_version>{"broker_version"},
        wire::Field<&ApiVersionsResponseBody::apis>{"apis"},
    };
  }
};

// The decoded response, owning its data (what Admin::api_versions() gives
// an application).
struct ApiVersionsResponse {
  std::string broker_version;  // e.g. "spillway-broker 0.1.0"
  std::vector<ApiVersionRange> apis;
};

// Appends the encoded body to `out`.
void encode_api_versions_request(std::string_view client_version, std::vector<std::byte>& out);
// The client's version string, a view into `body`. kCorruptMessage if
// malformed.
Result<std::string_view> decode_api_versions_request(std::span<const std::byte> body);

void encode_api_versions_response(const ApiVersionsResponse& response, std::vector<std::byte>& out);
Result<ApiVersionsResponse> decode_api_versions_response(std::span<const std::byte> body);

}  // namespace spillway
