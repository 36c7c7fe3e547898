// A SASL exchange in progress on one connection (the mechanism's server
// side: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512). Held by the connection's
// ConnectionSecurity between the handshake and the end of authentication.
#pragma once

namespace spillway::broker::security {

class SaslSession {
 public:
  virtual ~SaslSession() = default;
};

}  // namespace spillway::broker::security
