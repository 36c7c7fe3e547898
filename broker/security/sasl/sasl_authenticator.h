// SASL authentication for every listener and protocol: the enabled
// mechanisms, the steps of an exchange on a connection's
// ConnectionSecurity, the limit on failed authentications per client
// address and their log. Shared by the Kafka and native SASL handlers;
// one per broker, used from every connection thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "security/connection_security.h"
#include "security/sasl/credential_store.h"
#include "security/sasl/sasl_session.h"
#include "spillway/common/log.h"
#include "spillway/common/status.h"

namespace spillway::broker::security {

struct SaslSettings {
  std::vector<SaslMechanism> mechanisms;  // enabled, in the order offered
  // Failed authentications one client address may make per minute; past
  // that its attempts are refused at once until the minute is over.
  uint32_t max_failures_per_minute = 10;
  // The largest SASL token accepted (checked before it is copied).
  size_t max_token_bytes = 8192;
};

class SaslAuthenticator {
 public:
  // `store` must outlive this.
  SaslAuthenticator(CredentialStore& store, SaslSettings settings);

  const std::vector<std::string>& mechanism_names() const noexcept { return names_; }
  CredentialStore& store() noexcept { return store_; }

  // SaslHandshake: starts an exchange with `mechanism`. Errors:
  // kIllegalSaslState (already authenticated, not a SASL listener, or a
  // handshake in progress), kUnsupportedSaslMechanism. On error the
  // connection closes.
  Status handshake(ConnectionSecurity& security, std::string_view mechanism);

  struct Outcome {
    Status status;         // error: answer it, then close the connection
    std::string response;  // the token for the client
  };
  // SaslAuthenticate: one client token. When the exchange completes, sets
  // the connection's principal ("User:<name>") and authenticated.
  Outcome authenticate(ConnectionSecurity& security, std::span<const std::byte> token);

 private:
  // Over the limit: the refusal; else Ok.
  Status check_rate(const std::string& host);
  void record_failure(const ConnectionSecurity& security, std::string_view mechanism,
                      std::string_view user, std::string_view reason);

  CredentialStore& store_;
  const SaslSettings settings_;
  std::vector<std::string> names_;

  struct Window {
    std::chrono::steady_clock::time_point start;
    uint32_t failures = 0;
  };
  // Addresses tracked at once: past this, windows that have ended are
  // dropped, and if none has, new addresses share one window.
  static constexpr size_t kMaxTrackedAddresses = 10'000;
  std::mutex mutex_;  // guards failures_, overflow_ and log_
  std::unordered_map<std::string, Window> failures_;
  Window overflow_;
  log::RateLimit log_;
};

}  // namespace spillway::broker::security
