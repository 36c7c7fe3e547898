// SaslHandshake (api key 17), v0-1, never flexible: the SASL mechanism a
// client wants; the response lists the ones the broker enables. v1 is
// followed by SaslAuthenticate requests; v0 by raw SASL tokens.
#pragma once

#include <cstdint>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct SaslHandshakeRequest {
  static constexpr ApiKey kApiKey = ApiKey::kSaslHandshake;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  std::string_view mechanism;

  static constexpr auto fields() {
    return std::tuple{Field<&SaslHandshakeRequest::mechanism>{"mechanism"}};
  }
};

struct SaslHandshakeResponse {
  static constexpr ApiKey kApiKey = ApiKey::kSaslHandshake;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  int16_t error_code = 0;
  Array<std::string_view> mechanisms;

  static constexpr auto fields() {
    return std::tuple{
        Field<&SaslHandshakeResponse::error_code>{"error_code"},
        Field<&SaslHandshakeResponse::mechanisms>{"mechanisms"},
    };
  }
};

}  // namespace spillway::kafka
