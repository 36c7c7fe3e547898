// The native protocol's SaslHandshake (key 18) and SaslAuthenticate (19)
// (docs/protocol.md): the same exchange as Kafka's, errors as error frames
// after which the connection closes.
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

class NativeSaslHandshakeHandler final : public Handler {
 public:
  explicit NativeSaslHandshakeHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class NativeSaslAuthenticateHandler final : public Handler {
 public:
  explicit NativeSaslAuthenticateHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
