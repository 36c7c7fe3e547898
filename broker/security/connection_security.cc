#include "connection_security.h"

#include "sasl/sasl_session.h"

namespace spillway::broker::security {

ConnectionSecurity::ConnectionSecurity() = default;
ConnectionSecurity::~ConnectionSecurity() = default;

}  // namespace spillway::broker::security
