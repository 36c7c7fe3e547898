// Kafka's Metadata (key 3, v0-12): this broker (the only one, so leader,
// replica, in-sync replica and controller of everything), the cluster id,
// and the topics asked for (null, or in v0 an empty list: all of them) with
// their partitions. Unknown topics are created when `[topics] auto_create`
// is on and the client allows it (v4+), answered LEADER_NOT_AVAILABLE as
// Kafka does until the client asks again. In a replicated cluster
// (BrokerContext::cluster_admin) every broker, controller, leader, leader
// epoch, replica and ISR comes from the cluster's snapshot instead.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"
#include "security/acl_types.h"
#include "spillway/common/kafka/metadata.h"

namespace spillway::broker::kafka_listener {

class MetadataHandler final : public Handler {
 public:
  explicit MetadataHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  // Whether the exchange's principal may do `operation` on `topic`.
  bool may(const Exchange& exchange, security::AclOperation operation,
           std::string_view topic) const;

  // The cluster's answer: topics, brokers and leaders from the snapshot.
  void respond_cluster(Exchange& exchange, const kafka::MetadataRequest& request, bool all);

  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
