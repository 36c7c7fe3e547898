// The native protocol's handlers (docs/protocol.md), made and registered on
// the native listener's dispatcher in one place.
#pragma once

#include "acl_handlers.h"
#include "admin_handlers.h"
#include "broker_context.h"
#include "describe_cluster_handler.h"
#include "fetch_handler.h"
#include "group_admin_handlers.h"
#include "group_handlers.h"
#include "init_producer_id_handler.h"
#include "produce_handler.h"
#include "protocol/api_versions_handler.h"
#include "protocol/dispatcher.h"
#include "reassignment_handlers.h"
#include "sasl_handlers.h"
#include "user_handlers.h"

namespace spillway::broker {

class NativeHandlers {
 public:
  // Registers every native api on `dispatcher` (a native one); `context`
  // and `dispatcher` must outlive this. `broker_version` is what
  // ApiVersions tells clients.
  NativeHandlers(Dispatcher& dispatcher, BrokerContext& context, std::string broker_version);
  NativeHandlers(const NativeHandlers&) = delete;
  NativeHandlers& operator=(const NativeHandlers&) = delete;

 private:
  ApiVersionsHandler api_versions_;
  ProduceHandler produce_;
  FetchHandler fetch_;
  MetadataHandler metadata_;
  CreateTopicsHandler create_topics_;
  DeleteTopicsHandler delete_topics_;
  CommitOffsetsHandler commit_offsets_;
  CommitMemberOffsetsHandler commit_member_offsets_;
  FetchOffsetsHandler fetch_offsets_;
  InitProducerIdHandler init_producer_id_;
  JoinGroupHandler join_group_;
  SyncGroupHandler sync_group_;
  HeartbeatHandler heartbeat_;
  LeaveGroupHandler leave_group_;
  ListGroupsHandler list_groups_;
  DescribeGroupsHandler describe_groups_;
  DeleteGroupsHandler delete_groups_;
  NativeSaslHandshakeHandler sasl_handshake_;
  NativeSaslAuthenticateHandler sasl_authenticate_;
  ListUsersHandler list_users_;
  UpsertUserHandler upsert_user_;
  DeleteUserHandler delete_user_;
  DescribeAclsHandler describe_acls_;
  CreateAclsHandler create_acls_;
  DeleteAclsHandler delete_acls_;
  DescribeClusterHandler describe_cluster_;
  AlterPartitionReassignmentsHandler alter_reassignments_;
  ListPartitionReassignmentsHandler list_reassignments_;
};

}  // namespace spillway::broker
