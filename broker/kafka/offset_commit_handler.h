// Kafka's OffsetCommit (key 8, v2-8): a group's offsets, stored in the
// broker's OffsetStore, so the native FetchOffsets sees them and the other
// way round. Consumer groups are not coordinated yet, so only commits made
// outside a group generation are taken (generation -1: a consumer that uses
// assign()); a commit naming a generation gets ILLEGAL_GENERATION, as Kafka
// answers for a group it does not have. Committed metadata strings are not
// stored (OffsetFetch returns ""). The commit is made durable on the core's
// sync thread before the answer, as the native commit is.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class OffsetCommitHandler final : public Handler {
 public:
  explicit OffsetCommitHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
