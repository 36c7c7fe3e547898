// The security state of one connection: the listener it came in on, how it
// is protected, and who is on the other end (the principal ACLs are checked
// against).
//
// Lifetime and threads: owned by the connection (net/session), created at
// accept and written only on the connection's thread. `principal` and
// `authenticated` are set once: at accept on a listener without SASL (from
// the TLS client certificate, else User:ANONYMOUS), or when SASL
// authentication succeeds. A connection authenticates at most once, and
// before authentication no request other than ApiVersions and the SASL ones
// is served, so handlers that run on another core (the owner core of a
// partition or group) read both without a lock while the exchange holds the
// connection (Exchange::keep_alive()).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "security_protocol.h"

namespace spillway::broker::security {

class SaslSession;  // sasl/: a SASL exchange in progress on a connection

inline constexpr std::string_view kAnonymousPrincipal = "User:ANONYMOUS";

struct ConnectionSecurity {
  ConnectionSecurity();
  ~ConnectionSecurity();
  ConnectionSecurity(const ConnectionSecurity&) = delete;
  ConnectionSecurity& operator=(const ConnectionSecurity&) = delete;

  SecurityProtocol protocol = SecurityProtocol::kPlaintext;
  size_t listener = 0;  // index into ServerOptions::listeners
  // The client's IP address as text ("127.0.0.1", "::1"), matched against
  // ACL hosts.
  std::string host;
  // False only on a SASL listener until authentication succeeds.
  bool authenticated = true;
  // Kafka's principal form "Type:name": "User:alice", "User:CN=client,O=x"
  // (after the TLS principal mapping), "User:ANONYMOUS".
  std::string principal{kAnonymousPrincipal};
  // The SASL exchange in progress (mechanism chosen, challenge sent); null
  // before the handshake and after it ends.
  std::unique_ptr<SaslSession> sasl;
};

}  // namespace spillway::broker::security
