// What the request handlers share: the topics, the committed offsets, the
// metrics and the configuration. Owned by main(); outlives the server.
#pragma once

#include "config/broker_config.h"
#include "core/offset_store.h"
#include "core/topic_registry.h"

namespace spillway::broker {

class Metrics;
class ProducerIds;
namespace groups {
class GroupCoordinator;
}
namespace cluster {
class ClusterMember;
class ClusterAdmin;
class ClusterOffsets;
}  // namespace cluster
namespace replication {
class ReplicationThrottle;
}
namespace security {
class Authorizer;
class SaslAuthenticator;
class AclManager;
}  // namespace security

struct BrokerContext {
  TopicRegistry& topics;
  OffsetStore& offsets;
  const BrokerConfig& config;
  Metrics* metrics = nullptr;  // null in tests without metrics
  // Idempotent producers' ids; null: InitProducerId is refused.
  ProducerIds* producer_ids = nullptr;
  // Consumer groups with members; null: neither listener serves
  // JoinGroup, SyncGroup, Heartbeat and LeaveGroup.
  groups::GroupCoordinator* groups = nullptr;
  // ACLs (security/authorizer.h); null: authorization is off, everything is
  // allowed. Check with security::authorized(authorizer, exchange.security(), ...).
  const security::Authorizer* authorizer = nullptr;
  // SASL (security/sasl/sasl_authenticator.h) and the SCRAM credentials;
  // null: no listener uses SASL and the user apis answer kSecurityDisabled.
  security::SaslAuthenticator* sasl = nullptr;
  // The rules behind `authorizer`, for the ACL APIs (Describe/Create/
  // DeleteAcls, native keys 20-22); null when authorization is off.
  security::AclManager* acls = nullptr;
  // The replicated cluster (cluster/cluster_member.h; its snapshot() is
  // readable from any thread); null: one broker on its own, no etcd.
  cluster::ClusterMember* cluster = nullptr;
  // Topic creation and deletion in the cluster (cluster/cluster_admin.h);
  // set exactly when `cluster` is.
  cluster::ClusterAdmin* cluster_admin = nullptr;
  // Consumer groups' committed offsets kept in etcd (cluster/
  // cluster_offsets.h); set exactly when `cluster` is.
  cluster::ClusterOffsets* cluster_offsets = nullptr;
  // The limit on reassignment traffic this broker sends as a leader
  // (replication/replication_throttle.h); set exactly when `cluster` is.
  replication::ReplicationThrottle* replication_throttle = nullptr;
  // This broker's id in the cluster (kNoBroker without one).
  BrokerId broker_id = kNoBroker;
};

}  // namespace spillway::broker
