// Kafka's ListOffsets (key 2, v1-6; v6 flexible): a partition's earliest
// offset (timestamp -2: the log start), its latest (-1: the high
// watermark; with no transactions also the last stable offset that
// read_committed asks for), or the first offset whose record's timestamp is
// at or after a given time, with that timestamp (offset and timestamp -1
// when there is none). v7's -3 (the offset of the largest timestamp) is not
// served. Leader epoch 0: one replica, never re-elected.
//
// There is no time index, so a lookup by timestamp scans the batch headers
// of the partition from the log start (their max timestamps) and decodes
// only the batch that holds the answer. The work is bounded per step, not
// per lookup: each step reads at most kScanSliceBytes of whole batches on
// the partition's owner core, walks their headers here, and posts the next
// step, so neither core is held for long however long the log is.
#pragma once

#include <cstdint>

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class ListOffsetsHandler final : public Handler {
 public:
  static constexpr uint64_t kScanSliceBytes = 1 << 20;

  explicit ListOffsetsHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
