// Spillway's error codes as Kafka's (docs/kafka.md, "Errors"): the one
// table every Kafka handler answers through, so a condition is reported with
// the same Kafka code whichever request meets it.
#pragma once

#include <cstdint>

#include "spillway/common/status.h"

namespace spillway::broker::kafka_listener {

// The Kafka error code a client should see for `code`.
int16_t kafka_error(ErrorCode code) noexcept;
inline int16_t kafka_error(const Status& status) noexcept {
  return kafka_error(status.code());
}

// The Kafka error code for a failed read of a partition's log (Fetch,
// ListOffsets): kCorruptMessage there means the stored data is damaged,
// which Kafka reports as KAFKA_STORAGE_ERROR, not as a bad message.
int16_t kafka_read_error(ErrorCode code) noexcept;

}  // namespace spillway::broker::kafka_listener
