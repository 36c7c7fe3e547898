// Kafka's OffsetFetch (key 9, v1-8): a group's committed offsets from the
// broker's OffsetStore (shared with the native protocol). A null topic list
// (v2+) asks for every partition the group has committed; v8 asks for
// several groups at once. As in Kafka, a partition without a commit, of a
// topic known or not, answers offset -1 with no error. Metadata is always
// "" (commits do not store it) and the leader epoch -1.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class OffsetFetchHandler final : public Handler {
 public:
  explicit OffsetFetchHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
