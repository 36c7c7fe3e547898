// Kafka's OffsetForLeaderEpoch (key 23, v0-4). Consumers use it after a
// leader change to detect truncation (KIP-320). In a replicated cluster the
// leader answers from the partition's leader-epoch file
// (Partition::epoch_end: the largest epoch <= the one asked and where it
// ends; FENCED_/UNKNOWN_LEADER_EPOCH for a current epoch older/newer than
// the partition's; NOT_LEADER_OR_FOLLOWER on a non-leader). A standalone
// broker's partitions have had one leader epoch, 0, since they were made:
// asked for epoch 0 the answer is the high watermark; asked for any other
// epoch, Kafka's "undefined" (-1, epoch -1); a current epoch above 0 gets
// UNKNOWN_LEADER_EPOCH.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class OffsetForLeaderEpochHandler final : public Handler {
 public:
  explicit OffsetForLeaderEpochHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
