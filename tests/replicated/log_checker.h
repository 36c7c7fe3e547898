// The fault runs' checker: reads every partition of a topic from its start
// to its high watermark through librdkafka (the leader serves only what
// the ISR has), then compares with the acknowledgements an AckedProducer
// recorded:
//   - every acknowledged record is read back at the same partition and
//     offset with the same key and value (nothing acknowledged is lost);
//   - no value is read twice (no duplicate, no offset reused);
//   - per key, values are in the order they were produced.
// One exception, counted apart as `resent`: a copy no acknowledgement
// points to, stored by a batch of another producer id or epoch than the
// acknowledged copy (stored_producers.h tells which). That is the client
// sending a batch again under a new producer epoch after it bumped its
// epoch, which no broker can deduplicate (librdkafka #4953); the same
// producer id and epoch twice would be the broker's idempotence failing,
// and counts as a duplicate.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "acked_producer.h"

namespace spillway::testing {

struct ReadRecord {
  std::string key;
  std::string value;
  // From the stored batch (annotate_producers); -1 when not known.
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

// partition -> offset -> record. Empty map and `error` set when the cluster
// did not serve everything within the guard.
struct TopicContents {
  std::map<int32_t, std::map<int64_t, ReadRecord>> partitions;
  std::string error;
  int64_t records = 0;
};

TopicContents read_topic(const std::string& bootstrap, const std::string& topic,
                         int32_t partitions);

struct CheckResult {
  int64_t acked = 0;
  int64_t lost = 0;        // acknowledged, not read back as acknowledged
  int64_t duplicates = 0;  // a value read at two offsets
  int64_t out_of_order = 0;
  int64_t resent = 0;  // unacknowledged copies the client sent again (above)
  std::string first_problem;  // "" when everything holds
  bool ok() const { return lost == 0 && duplicates == 0 && out_of_order == 0; }
};

CheckResult check_acked(const std::vector<AckedRecord>& acked, const TopicContents& contents);

}  // namespace spillway::testing
