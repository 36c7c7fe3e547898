// The ApiVersions handler: answers with the broker's version string and the
// api keys and versions the dispatcher serves.
#pragma once

#include <string>

#include "dispatcher.h"

namespace spillway::broker {

class ApiVersionsHandler final : public Handler {
 public:
  // `dispatcher` must outlive the handler; `broker_version` is sent
  // verbatim (e.g. "spillway-broker 0.1.0").
  ApiVersionsHandler(const Dispatcher& dispatcher, std::string broker_version)
      : dispatcher_(dispatcher), broker_version_(std::move(broker_version)) {}

  void handle(Exchange& exchange) override;

 private:
  const Dispatcher& dispatcher_;
  const std::string broker_version_;
};

}  // namespace spillway::broker
