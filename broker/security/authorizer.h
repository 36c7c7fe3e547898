// The question every request handler asks before it acts: may this
// connection's principal do `operation` on this resource?
//
// Implemented by the ACL authorizer (acl/); main() gives one to the handlers
// (BrokerContext::authorizer) when [authorization] is enabled. Null means
// authorization is off and everything is allowed, as with Kafka without an
// authorizer.
#pragma once

#include <string_view>

#include "acl_types.h"
#include "connection_security.h"

namespace spillway::broker::security {

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  // Callable on any core, concurrently: takes no lock and allocates nothing.
  // Deny rules win over allow rules; without a matching allow rule the
  // answer is no (super-users excepted).
  virtual bool allowed(const ConnectionSecurity& who, AclOperation operation, ResourceType type,
                       std::string_view name) const noexcept = 0;
};

// The check handlers make. `who` is null only for requests that did not
// come through a connection (in-process tests).
inline bool authorized(const Authorizer* authorizer, const ConnectionSecurity* who,
                       AclOperation operation, ResourceType type, std::string_view name) noexcept {
  return authorizer == nullptr || who == nullptr ||
         authorizer->allowed(*who, operation, type, name);
}

}  // namespace spillway::broker::security
