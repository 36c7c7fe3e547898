// The ACL checks request handlers of both listeners make, named by
// resource: may this exchange's principal do `operation` on the topic, the
// group, the cluster? Always yes with authorization off (no authorizer).
// Never allocates (security/authorizer.h).
#pragma once

#include <string_view>

#include "handlers/broker_context.h"
#include "protocol/exchange.h"
#include "security/acl/acl_manager.h"
#include "security/acl_types.h"
#include "security/authorizer.h"

namespace spillway::broker {

inline bool may_topic(const BrokerContext& broker, const Exchange& exchange,
                      security::AclOperation operation, std::string_view topic) noexcept {
  return security::authorized(broker.authorizer, exchange.security(), operation,
                              security::ResourceType::kTopic, topic);
}

inline bool may_group(const BrokerContext& broker, const Exchange& exchange,
                      security::AclOperation operation, std::string_view group) noexcept {
  return security::authorized(broker.authorizer, exchange.security(), operation,
                              security::ResourceType::kGroup, group);
}

inline bool may_cluster(const BrokerContext& broker, const Exchange& exchange,
                        security::AclOperation operation) noexcept {
  return security::authorized(broker.authorizer, exchange.security(), operation,
                              security::ResourceType::kCluster, security::kClusterResourceName);
}

// Creating `topic` needs Create on the cluster or on the topic (Kafka's rule).
inline bool may_create_topic(const BrokerContext& broker, const Exchange& exchange,
                             std::string_view topic) noexcept {
  return may_cluster(broker, exchange, security::AclOperation::kCreate) ||
         may_topic(broker, exchange, security::AclOperation::kCreate, topic);
}

// An idempotent producer's InitProducerId: IdempotentWrite on the cluster,
// or Write on at least one topic (Kafka 2.8's rule, KIP-679), so a
// principal allowed to write somewhere needs no extra rule.
inline bool may_write_idempotently(const BrokerContext& broker, const Exchange& exchange) noexcept {
  if (may_cluster(broker, exchange, security::AclOperation::kIdempotentWrite)) return true;
  return broker.acls != nullptr && exchange.security() != nullptr &&
         broker.acls->authorizer().allowed_on_some(
             *exchange.security(), security::AclOperation::kWrite, security::ResourceType::kTopic);
}

}  // namespace spillway::broker
