// The ACL checks request handlers of both listeners make, named by
// resource: may this exchange's principal do `operation` on the topic, the
// group, the cluster? Always yes with authorization off (no authorizer).
// Never allocates (security/authorizer.h).
#pragma once

#include <string_view>

#include "handlers/broker_context.h"
#include "protocol/exchange.h"
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

}  // namespace spillway::broker
