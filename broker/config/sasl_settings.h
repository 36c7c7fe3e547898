// The [sasl] settings as the SaslAuthenticator's (security/sasl/), with the
// mechanism list parsed.
#pragma once

#include "config/broker_config.h"
#include "security/sasl/sasl_authenticator.h"
#include "spillway/common/status.h"

namespace spillway::broker {

// kConfig naming an unknown, repeated or missing mechanism.
Result<security::SaslSettings> sasl_settings(const BrokerConfig& config);

}  // namespace spillway::broker
