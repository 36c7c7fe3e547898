// A SASL exchange in progress on one connection (the mechanism's server
// side: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512). Held by the connection's
// ConnectionSecurity between the handshake and the end of authentication.
//
// Driven by the SASL handlers (security/sasl/sasl_authenticator.h) on the
// connection's thread: one step() per client token.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "spillway/common/scram.h"
#include "spillway/common/status.h"

namespace spillway::broker::security {

class CredentialStore;

enum class SaslMechanism : uint8_t { kPlain, kScramSha256, kScramSha512 };

// "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512".
std::string_view sasl_mechanism_name(SaslMechanism mechanism) noexcept;
std::optional<SaslMechanism> parse_sasl_mechanism(std::string_view name) noexcept;

class SaslSession {
 public:
  explicit SaslSession(SaslMechanism mechanism) : mechanism_(mechanism) {}
  virtual ~SaslSession() = default;

  struct Step {
    // kAuthenticationFailed for wrong credentials or a malformed token; the
    // message is what the client sees (it never says which part was wrong).
    Status status;
    std::string response;  // the token to send back (may be empty)
    bool done = false;     // authenticated: `user` is who
    // For the log only: why it failed ("unknown user", "wrong password").
    std::string_view reason;
  };
  // Handles the client's next token.
  Step step(std::string_view token, const CredentialStore& store);

  SaslMechanism mechanism() const noexcept { return mechanism_; }
  // The user the client claimed (known after its first token), for the log.
  const std::string& user() const noexcept { return user_; }

 private:
  enum class State : uint8_t { kStart, kScramFinal, kEnded };
  Step plain(std::string_view token, const CredentialStore& store);
  Step scram_first(std::string_view token, const CredentialStore& store);
  Step scram_final(std::string_view token);

  SaslMechanism mechanism_;
  State state_ = State::kStart;
  std::string user_;
  // SCRAM between its two client messages.
  scram::Credential credential_;
  bool known_user_ = false;
  std::string gs2_header_;
  std::string client_nonce_;
  std::string nonce_;  // client + server
  std::string client_first_bare_;
  std::string server_first_;
};

}  // namespace spillway::broker::security
