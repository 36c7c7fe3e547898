// Kafka's Fetch (key 1, v4-12; v12 flexible): whole stored batches,
// verbatim, through the fetch core the native protocol uses
// (handlers/fetch_core.h: reads on owner cores, long poll, memory budget,
// KIP-74's whole first batch), with max_wait_ms, min_bytes, max_bytes and
// partition_max_bytes honoured. No transactions: the last stable offset is
// the high watermark, aborted_transactions is empty, isolation_level is
// accepted either way. No fetch sessions (KIP-227): session_id 0 answers
// every request as a full fetch, which clients accept. One replica:
// preferred_read_replica -1. Offsets outside [log start, high watermark]
// get OFFSET_OUT_OF_RANGE, a damaged partition KAFKA_STORAGE_ERROR.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class FetchHandler final : public Handler {
 public:
  explicit FetchHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
