// Every Kafka request body Spillway describes, as one list: for code that
// must treat them all alike (the decoder fuzzer, the bad-frames test).
#pragma once

#include "spillway/common/kafka/api_versions.h"
#include "spillway/common/kafka/create_partitions.h"
#include "spillway/common/kafka/create_topics.h"
#include "spillway/common/kafka/delete_groups.h"
#include "spillway/common/kafka/delete_topics.h"
#include "spillway/common/kafka/describe_cluster.h"
#include "spillway/common/kafka/describe_configs.h"
#include "spillway/common/kafka/describe_groups.h"
#include "spillway/common/kafka/fetch.h"
#include "spillway/common/kafka/find_coordinator.h"
#include "spillway/common/kafka/heartbeat.h"
#include "spillway/common/kafka/init_producer_id.h"
#include "spillway/common/kafka/join_group.h"
#include "spillway/common/kafka/leave_group.h"
#include "spillway/common/kafka/list_groups.h"
#include "spillway/common/kafka/list_offsets.h"
#include "spillway/common/kafka/metadata.h"
#include "spillway/common/kafka/offset_commit.h"
#include "spillway/common/kafka/offset_fetch.h"
#include "spillway/common/kafka/offset_for_leader_epoch.h"
#include "spillway/common/kafka/produce.h"
#include "spillway/common/kafka/sasl_authenticate.h"
#include "spillway/common/kafka/sasl_handshake.h"
#include "spillway/common/kafka/sync_group.h"

namespace spillway::kafka {

// Calls `f.template operator()<Request>()` for every described request type.
template <typename F>
constexpr void for_each_request_type(F&& f) {
  f.template operator()<ProduceRequest>();
  f.template operator()<FetchRequest>();
  f.template operator()<ListOffsetsRequest>();
  f.template operator()<MetadataRequest>();
  f.template operator()<OffsetCommitRequest>();
  f.template operator()<OffsetFetchRequest>();
  f.template operator()<FindCoordinatorRequest>();
  f.template operator()<JoinGroupRequest>();
  f.template operator()<HeartbeatRequest>();
  f.template operator()<LeaveGroupRequest>();
  f.template operator()<SyncGroupRequest>();
  f.template operator()<DescribeGroupsRequest>();
  f.template operator()<ListGroupsRequest>();
  f.template operator()<SaslHandshakeRequest>();
  f.template operator()<ApiVersionsRequest>();
  f.template operator()<CreateTopicsRequest>();
  f.template operator()<DeleteTopicsRequest>();
  f.template operator()<InitProducerIdRequest>();
  f.template operator()<OffsetForLeaderEpochRequest>();
  f.template operator()<DescribeConfigsRequest>();
  f.template operator()<SaslAuthenticateRequest>();
  f.template operator()<CreatePartitionsRequest>();
  f.template operator()<DeleteGroupsRequest>();
  f.template operator()<DescribeClusterRequest>();
}

}  // namespace spillway::kafka
