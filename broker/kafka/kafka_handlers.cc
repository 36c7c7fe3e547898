// Registration of the Kafka handlers. The versions are those the message
// descriptions cover (kafka::api_info), unless a handler serves fewer.
#include "kafka_handlers.h"

#include <algorithm>

namespace spillway::broker::kafka_listener {

namespace {

template <typename H>
void add(Dispatcher& dispatcher, kafka::ApiKey key, H* handler, bool any_version = false) {
  const wire::Versions versions = kafka::api_info(key).versions;
  dispatcher.add(key, versions.first, versions.last, handler, any_version);
}

// An api served up to `last` only, below what its description covers.
template <typename H>
void add_up_to(Dispatcher& dispatcher, kafka::ApiKey key, int16_t last, H* handler) {
  const wire::Versions versions = kafka::api_info(key).versions;
  dispatcher.add(key, versions.first, std::min(last, versions.last), handler, false);
}

}  // namespace

KafkaHandlers::KafkaHandlers(Dispatcher& dispatcher, KafkaContext& context)
    : api_versions_(dispatcher),
      metadata_(context),
      find_coordinator_(context),
      describe_cluster_(context),
      produce_(context),
      fetch_(context),
      list_offsets_(context),
      create_topics_(context),
      delete_topics_(context),
      offset_commit_(context),
      offset_fetch_(context),
      describe_configs_(context),
      offset_for_leader_epoch_(context),
      create_partitions_(context),
      list_groups_(context),
      describe_groups_(context),
      delete_groups_(context),
      join_group_(context),
      sync_group_(context),
      heartbeat_(context),
      leave_group_(context),
      init_producer_id_(context),
      sasl_handshake_(context),
      sasl_authenticate_(context),
      describe_acls_(context),
      create_acls_(context),
      delete_acls_(context) {
  using kafka::ApiKey;
  add(dispatcher, ApiKey::kApiVersions, &api_versions_, /*any_version=*/true);
  add(dispatcher, ApiKey::kMetadata, &metadata_);
  add(dispatcher, ApiKey::kFindCoordinator, &find_coordinator_);
  add(dispatcher, ApiKey::kDescribeCluster, &describe_cluster_);
  add(dispatcher, ApiKey::kProduce, &produce_);
  add(dispatcher, ApiKey::kFetch, &fetch_);
  // v7 asks for the offset of the largest timestamp (-3), not served.
  add_up_to(dispatcher, ApiKey::kListOffsets, 6, &list_offsets_);
  add(dispatcher, ApiKey::kCreateTopics, &create_topics_);
  add(dispatcher, ApiKey::kDeleteTopics, &delete_topics_);
  add(dispatcher, ApiKey::kOffsetCommit, &offset_commit_);
  add(dispatcher, ApiKey::kOffsetFetch, &offset_fetch_);
  add(dispatcher, ApiKey::kDescribeConfigs, &describe_configs_);
  add(dispatcher, ApiKey::kOffsetForLeaderEpoch, &offset_for_leader_epoch_);
  add(dispatcher, ApiKey::kCreatePartitions, &create_partitions_);
  if (context.broker.groups != nullptr) {
    add(dispatcher, ApiKey::kListGroups, &list_groups_);
    add(dispatcher, ApiKey::kDescribeGroups, &describe_groups_);
    add(dispatcher, ApiKey::kDeleteGroups, &delete_groups_);
    // v8 adds a reason (ignored); v9 skip_assignment, which is not set.
    add_up_to(dispatcher, ApiKey::kJoinGroup, 7, &join_group_);
    add(dispatcher, ApiKey::kSyncGroup, &sync_group_);
    add(dispatcher, ApiKey::kHeartbeat, &heartbeat_);
    add(dispatcher, ApiKey::kLeaveGroup, &leave_group_);
  }
  add(dispatcher, ApiKey::kInitProducerId, &init_producer_id_);
  // v0 is listed (librdkafka requires it in the range before it uses SASL
  // at all) but refused when asked for (sasl_handlers.h).
  add(dispatcher, ApiKey::kSaslHandshake, &sasl_handshake_);
  add(dispatcher, ApiKey::kSaslAuthenticate, &sasl_authenticate_);
  add(dispatcher, ApiKey::kDescribeAcls, &describe_acls_);
  add(dispatcher, ApiKey::kCreateAcls, &create_acls_);
  add(dispatcher, ApiKey::kDeleteAcls, &delete_acls_);
}

}  // namespace spillway::broker::kafka_listener
