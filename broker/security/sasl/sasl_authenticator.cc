// SaslAuthenticator: the steps, the failure limit and the log.
#include "security/sasl/sasl_authenticator.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace spillway::broker::security {

namespace {

constexpr auto kWindow = std::chrono::minutes(1);

// A client-chosen user name, safe for one log line: at most 64 bytes,
// control and non-ASCII bytes as \xNN.
std::string printable(std::string_view user) {
  std::string out;
  for (unsigned char c : user.substr(0, 64)) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (user.size() > 64) out += "...";
  return out;
}

}  // namespace

SaslAuthenticator::SaslAuthenticator(CredentialStore& store, SaslSettings settings)
    : store_(store), settings_(std::move(settings)), log_(std::chrono::seconds(1)) {
  for (SaslMechanism m : settings_.mechanisms) names_.emplace_back(sasl_mechanism_name(m));
}

Status SaslAuthenticator::check_rate(const std::string& host) {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  auto it = failures_.find(host);
  const Window* window = it != failures_.end()                      ? &it->second
                         : failures_.size() >= kMaxTrackedAddresses ? &overflow_
                                                                    : nullptr;
  if (window == nullptr || now - window->start >= kWindow ||
      window->failures < settings_.max_failures_per_minute) {
    return Status::Ok();
  }
  const auto wait =
      std::chrono::duration_cast<std::chrono::seconds>(kWindow - (now - window->start));
  return Status(ErrorCode::kAuthenticationFailed,
                "Authentication refused: too many failed authentications from " + host +
                    "; try again in " + std::to_string(std::max<int64_t>(1, wait.count())) + " s");
}

void SaslAuthenticator::record_failure(const ConnectionSecurity& security,
                                       std::string_view mechanism, std::string_view user,
                                       std::string_view reason) {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  auto it = failures_.find(security.host);
  if (it == failures_.end() && failures_.size() >= kMaxTrackedAddresses) {
    std::erase_if(failures_,
                  [&](const auto& entry) { return now - entry.second.start >= kWindow; });
  }
  Window* window = nullptr;
  if (it != failures_.end()) {
    window = &it->second;
  } else if (failures_.size() < kMaxTrackedAddresses) {
    window = &failures_.try_emplace(security.host, Window{now, 0}).first->second;
  } else {
    window = &overflow_;
  }
  if (now - window->start >= kWindow) *window = Window{now, 0};
  ++window->failures;
  // The user name and address, never the token: it may hold the password.
  if (uint64_t held_back = 0; log_.allow(&held_back)) {
    spdlog::warn(
        "SASL {} authentication of user \"{}\" from {} on listener {} failed: {} ({} more "
        "failure(s) "
        "not logged)",
        mechanism, printable(user), security.host, security.listener, reason, held_back);
  }
}

Status SaslAuthenticator::handshake(ConnectionSecurity& security, std::string_view mechanism) {
  if (!uses_sasl(security.protocol)) {
    return Status(ErrorCode::kIllegalSaslState,
                  "this listener (" + std::string(security_protocol_name(security.protocol)) +
                      ") does not use SASL");
  }
  if (security.authenticated) {
    return Status(ErrorCode::kIllegalSaslState, "the connection is already authenticated");
  }
  if (security.sasl != nullptr) {
    return Status(ErrorCode::kIllegalSaslState, "a SASL exchange is already in progress");
  }
  // The failure limit is checked by authenticate(): Kafka's handshake
  // response has no room for a message saying why.
  const std::optional<SaslMechanism> parsed = parse_sasl_mechanism(mechanism);
  if (!parsed || std::find(settings_.mechanisms.begin(), settings_.mechanisms.end(), *parsed) ==
                     settings_.mechanisms.end()) {
    std::string enabled;
    for (const std::string& n : names_) enabled += (enabled.empty() ? "" : ", ") + n;
    return Status(ErrorCode::kUnsupportedSaslMechanism,
                  "SASL mechanism \"" + std::string(mechanism).substr(0, 64) +
                      "\" is not enabled; enabled: " + enabled);
  }
  security.sasl = std::make_unique<SaslSession>(*parsed);
  return Status::Ok();
}

SaslAuthenticator::Outcome SaslAuthenticator::authenticate(ConnectionSecurity& security,
                                                           std::span<const std::byte> token) {
  if (security.authenticated && uses_sasl(security.protocol)) {
    return {Status(ErrorCode::kIllegalSaslState, "the connection is already authenticated"), {}};
  }
  if (security.sasl == nullptr) {
    return {Status(ErrorCode::kIllegalSaslState, "SaslAuthenticate before SaslHandshake"), {}};
  }
  if (token.size() > settings_.max_token_bytes) {
    SaslSession& session = *security.sasl;
    record_failure(security, sasl_mechanism_name(session.mechanism()), session.user(),
                   "oversized token");
    security.sasl.reset();
    return {Status(ErrorCode::kAuthenticationFailed,
                   "Authentication failed: the SASL token of " + std::to_string(token.size()) +
                       " bytes is larger than the " + std::to_string(settings_.max_token_bytes) +
                       " allowed"),
            {}};
  }
  if (Status st = check_rate(security.host); !st.ok()) {
    security.sasl.reset();
    return {std::move(st), {}};
  }
  SaslSession& session = *security.sasl;
  SaslSession::Step step = session.step(
      std::string_view(reinterpret_cast<const char*>(token.data()), token.size()), store_);
  if (!step.status.ok()) {
    record_failure(security, sasl_mechanism_name(session.mechanism()), session.user(), step.reason);
    security.sasl.reset();
    return {std::move(step.status), {}};
  }
  if (step.done) {
    security.principal = "User:" + session.user();
    security.authenticated = true;
    spdlog::debug("SASL {}: {} authenticated from {}", sasl_mechanism_name(session.mechanism()),
                  security.principal, security.host);
    security.sasl.reset();
  }
  return {Status::Ok(), std::move(step.response)};
}

}  // namespace spillway::broker::security
