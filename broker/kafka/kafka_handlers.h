// The Kafka listener's handlers (docs/kafka.md), made and registered on its
// dispatcher in one place, with the versions each serves.
#pragma once

#include "acl_handlers.h"
#include "api_versions_handler.h"
#include "cluster_handlers.h"
#include "create_partitions_handler.h"
#include "create_topics_handler.h"
#include "delete_topics_handler.h"
#include "describe_configs_handler.h"
#include "fetch_handler.h"
#include "group_handlers.h"
#include "heartbeat_handler.h"
#include "init_producer_id_handler.h"
#include "join_group_handler.h"
#include "kafka_context.h"
#include "leave_group_handler.h"
#include "list_offsets_handler.h"
#include "metadata_handler.h"
#include "offset_commit_handler.h"
#include "offset_fetch_handler.h"
#include "offset_for_leader_epoch_handler.h"
#include "produce_handler.h"
#include "protocol/dispatcher.h"
#include "sasl_handlers.h"
#include "sync_group_handler.h"

namespace spillway::broker::kafka_listener {

class KafkaHandlers {
 public:
  // Registers every served Kafka api on `dispatcher` (a Kafka one);
  // `context` and `dispatcher` must outlive this. The group apis are
  // registered only with a coordinator (context.broker.groups).
  KafkaHandlers(Dispatcher& dispatcher, KafkaContext& context);
  KafkaHandlers(const KafkaHandlers&) = delete;
  KafkaHandlers& operator=(const KafkaHandlers&) = delete;

 private:
  ApiVersionsHandler api_versions_;
  MetadataHandler metadata_;
  FindCoordinatorHandler find_coordinator_;
  DescribeClusterHandler describe_cluster_;
  ProduceHandler produce_;
  FetchHandler fetch_;
  ListOffsetsHandler list_offsets_;
  CreateTopicsHandler create_topics_;
  DeleteTopicsHandler delete_topics_;
  OffsetCommitHandler offset_commit_;
  OffsetFetchHandler offset_fetch_;
  DescribeConfigsHandler describe_configs_;
  OffsetForLeaderEpochHandler offset_for_leader_epoch_;
  CreatePartitionsHandler create_partitions_;
  ListGroupsHandler list_groups_;
  DescribeGroupsHandler describe_groups_;
  DeleteGroupsHandler delete_groups_;
  JoinGroupHandler join_group_;
  SyncGroupHandler sync_group_;
  HeartbeatHandler heartbeat_;
  LeaveGroupHandler leave_group_;
  InitProducerIdHandler init_producer_id_;
  SaslHandshakeHandler sasl_handshake_;
  SaslAuthenticateHandler sasl_authenticate_;
  DescribeAclsHandler describe_acls_;
  CreateAclsHandler create_acls_;
  DeleteAclsHandler delete_acls_;
};

}  // namespace spillway::broker::kafka_listener
