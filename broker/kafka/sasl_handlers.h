// SaslHandshake (key 17, v0-1) and SaslAuthenticate (key 36, v0-2): SASL
// on a Kafka listener. Handshake v0 (raw SASL tokens after it, outside
// Kafka's framing) is listed in ApiVersions, because librdkafka requires the
// range to start at 0, but refused with ILLEGAL_SASL_STATE when asked for:
// clients that know v1 (librdkafka, the Java client since 1.0) use it. A failed step is answered
// with its error (SASL_AUTHENTICATION_FAILED, UNSUPPORTED_SASL_MECHANISM, ILLEGAL_SASL_STATE) and
// the connection then closes.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class SaslHandshakeHandler final : public Handler {
 public:
  explicit SaslHandshakeHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

class SaslAuthenticateHandler final : public Handler {
 public:
  explicit SaslAuthenticateHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
