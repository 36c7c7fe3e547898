// Kafka's Produce (key 0, v3-9; v9 flexible): each partition's record batch
// goes through the produce core the native protocol uses
// (handlers/produce_core.h: checks, validation, append on the owner core,
// the acknowledgement acks asks for), and the answer lists the partitions
// in the request's order and shape, each with its base offset or its error
// (error_map.h). acks 0 gets no response at all, as in Kafka; if one of its
// partitions failed the connection is closed instead, Kafka's only way of
// telling such a producer. acks 1 answers after the append, acks -1 after an
// fdatasync covers it (the single replica is the whole in-sync set).
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class ProduceHandler final : public Handler {
 public:
  explicit ProduceHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
