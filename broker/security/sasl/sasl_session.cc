// The server side of PLAIN (RFC 4616) and SCRAM (RFC 5802/7677).
#include "security/sasl/sasl_session.h"

#include "security/sasl/credential_store.h"

namespace spillway::broker::security {

namespace {

// What the client is told for any wrong credential: the same text for an
// unknown user and a wrong password, so that it cannot probe for names.
Status invalid_credentials() {
  return Status(ErrorCode::kAuthenticationFailed, "Authentication failed: invalid credentials");
}

SaslSession::Step failed(std::string_view reason) {
  return {.status = invalid_credentials(), .reason = reason};
}

SaslSession::Step malformed(const Status& st) {
  return {.status = Status(ErrorCode::kAuthenticationFailed,
                           "Authentication failed: " + std::string(st.message())),
          .reason = "malformed token"};
}

scram::Mechanism scram_of(SaslMechanism m) {
  return m == SaslMechanism::kScramSha512 ? scram::Mechanism::kSha512 : scram::Mechanism::kSha256;
}

// A per-process key for the fake salts of unknown users: the same user
// gets the same salt within a run, as a real one would.
const std::string& fake_salt_key() {
  static const std::string key = scram::random_bytes(32);
  return key;
}

}  // namespace

std::string_view sasl_mechanism_name(SaslMechanism mechanism) noexcept {
  switch (mechanism) {
    case SaslMechanism::kPlain:
      return "PLAIN";
    case SaslMechanism::kScramSha256:
      return "SCRAM-SHA-256";
    case SaslMechanism::kScramSha512:
      return "SCRAM-SHA-512";
  }
  return "PLAIN";
}

std::optional<SaslMechanism> parse_sasl_mechanism(std::string_view name) noexcept {
  if (name == "PLAIN") return SaslMechanism::kPlain;
  if (name == "SCRAM-SHA-256") return SaslMechanism::kScramSha256;
  if (name == "SCRAM-SHA-512") return SaslMechanism::kScramSha512;
  return std::nullopt;
}

SaslSession::Step SaslSession::step(std::string_view token, const CredentialStore& store) {
  const State state = std::exchange(state_, State::kEnded);
  switch (state) {
    case State::kStart:
      return mechanism_ == SaslMechanism::kPlain ? plain(token, store) : scram_first(token, store);
    case State::kScramFinal:
      return scram_final(token);
    case State::kEnded:
      break;
  }
  return {.status = Status(ErrorCode::kIllegalSaslState, "the SASL exchange has ended"),
          .reason = "token after the end"};
}

SaslSession::Step SaslSession::plain(std::string_view token, const CredentialStore& store) {
  // authzid NUL authcid NUL passwd
  const size_t first = token.find('\0');
  const size_t second = first == std::string_view::npos ? first : token.find('\0', first + 1);
  if (second == std::string_view::npos) {
    return malformed(Status(ErrorCode::kAuthenticationFailed, "malformed PLAIN token"));
  }
  const std::string_view authzid = token.substr(0, first);
  const std::string_view user = token.substr(first + 1, second - first - 1);
  const std::string_view password = token.substr(second + 1);
  user_ = std::string(user);
  if (user.empty() || password.empty()) return failed("empty user or password");
  if (!authzid.empty() && authzid != user) {
    return {.status = Status(ErrorCode::kAuthenticationFailed,
                             "Authentication failed: an authorization identity other than the "
                             "user is not supported"),
            .reason = "authorization identity differs"};
  }
  // PLAIN is checked against the SCRAM credential: derive with its salt and
  // iterations and compare StoredKey.
  std::optional<scram::Credential> credential = store.find(user, scram::Mechanism::kSha256);
  if (!credential) credential = store.find(user, scram::Mechanism::kSha512);
  if (!credential) {
    // Spend the same work as for a known user.
    (void)scram::make_credential(scram::Mechanism::kSha256, password, "spillway",
                                 scram::kDefaultIterations);
    return failed("unknown user");
  }
  const scram::Credential derived = scram::make_credential(
      credential->mechanism, password, credential->salt, credential->iterations);
  if (!scram::constant_time_equal(derived.stored_key, credential->stored_key)) {
    return failed("wrong password");
  }
  return {.done = true};
}

SaslSession::Step SaslSession::scram_first(std::string_view token, const CredentialStore& store) {
  Result<scram::ClientFirst> first = scram::parse_client_first(token);
  if (!first.ok()) return malformed(first.status());
  user_ = first->user;
  const scram::Mechanism mechanism = scram_of(mechanism_);
  std::optional<scram::Credential> credential = store.find(user_, mechanism);
  known_user_ = credential.has_value();
  if (known_user_) {
    credential_ = std::move(*credential);
  } else {
    // An unknown user gets a plausible challenge and fails at the proof,
    // like a wrong password (RFC 5802 section 5.1's advice).
    credential_.mechanism = mechanism;
    credential_.salt =
        scram::hmac(scram::Mechanism::kSha256, fake_salt_key(), user_).substr(0, scram::kSaltBytes);
    credential_.iterations = scram::kDefaultIterations;
  }
  gs2_header_ = std::move(first->gs2_header);
  client_first_bare_ = std::move(first->bare);
  client_nonce_ = first->nonce;
  nonce_ = first->nonce + scram::make_nonce();
  server_first_ = scram::server_first_message(nonce_, credential_.salt, credential_.iterations);
  state_ = State::kScramFinal;
  return {.response = server_first_};
}

SaslSession::Step SaslSession::scram_final(std::string_view token) {
  Result<scram::ClientFinal> final = scram::parse_client_final(token);
  if (!final.ok()) return malformed(final.status());
  // librdkafka (2.0 at least) sends the client nonce again in front of the
  // combined one; Kafka accepts that (its check is endsWith), so this does,
  // in that exact form only.
  if (final->nonce != nonce_ && final->nonce != client_nonce_ + nonce_) {
    return malformed(Status(ErrorCode::kAuthenticationFailed, "the nonce does not match"));
  }
  if (final->channel_binding != scram::base64_encode(gs2_header_)) {
    return malformed(Status(ErrorCode::kAuthenticationFailed, "the channel binding differs"));
  }
  if (!known_user_) return failed("unknown user");
  const std::string auth =
      scram::auth_message(client_first_bare_, server_first_, final->without_proof);
  if (!scram::verify_client_proof(credential_, auth, final->proof)) {
    return failed("wrong password");
  }
  return {.response = scram::server_final_message(
              scram::server_signature(credential_.mechanism, credential_.server_key, auth)),
          .done = true};
}

}  // namespace spillway::broker::security
