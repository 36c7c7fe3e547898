// SaslAuthenticate (api key 36), v0-2, flexible from v2: one SASL token
// each way, after SaslHandshake v1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"

namespace spillway::kafka {

struct SaslAuthenticateRequest {
  static constexpr ApiKey kApiKey = ApiKey::kSaslAuthenticate;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  std::span<const std::byte> auth_bytes;

  static constexpr auto fields() {
    return std::tuple{Field<&SaslAuthenticateRequest::auth_bytes>{"auth_bytes"}};
  }
};

struct SaslAuthenticateResponse {
  static constexpr ApiKey kApiKey = ApiKey::kSaslAuthenticate;
  static constexpr Versions kVersions = api_info(kApiKey).versions;
  static constexpr int16_t kFlexibleFrom = api_info(kApiKey).flexible_from;

  int16_t error_code = 0;
  std::optional<std::string_view> error_message;  // nullable
  std::span<const std::byte> auth_bytes;
  int64_t session_lifetime_ms = 0;  // v1+: 0 = no re-authentication needed

  static constexpr auto fields() {
    return std::tuple{
        Field<&SaslAuthenticateResponse::error_code>{"error_code"},
        Field<&SaslAuthenticateResponse::error_message>{"error_message", kAllVersions,
                                                        kAllVersions},
        Field<&SaslAuthenticateResponse::auth_bytes>{"auth_bytes"},
        Field<&SaslAuthenticateResponse::session_lifetime_ms>{"session_lifetime_ms", since(1)},
    };
  }
};

}  // namespace spillway::kafka
