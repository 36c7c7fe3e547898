// The ApiVersions handler: answers with the broker's version string and the
// api keys and versions the dispatcher serves.
#pragma once

#include <string>

#include "dispatcher.h"

namespace spillway::broker {

// Registers ApiVersions on `dispatcher`, which must outlive the handler.
// `broker_version` is sent verbatim (e.g. "spillway-broker 0.1.0").
void add_api_versions_handler(Dispatcher& dispatcher, std::string broker_version);

}  // namespace spillway::broker
