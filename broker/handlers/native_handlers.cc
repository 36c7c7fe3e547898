// Registration of the native handlers, with the versions their codecs name.
#include "native_handlers.h"

#include "spillway/common/messages/acls.h"
#include "spillway/common/messages/fetch.h"
#include "spillway/common/messages/group_admin.h"
#include "spillway/common/messages/groups.h"
#include "spillway/common/messages/metadata.h"
#include "spillway/common/messages/offsets.h"
#include "spillway/common/messages/produce.h"
#include "spillway/common/messages/producer_id.h"
#include "spillway/common/messages/reassignments.h"
#include "spillway/common/messages/replication.h"
#include "spillway/common/messages/sasl.h"
#include "spillway/common/messages/topics.h"
#include "spillway/common/messages/users.h"

namespace spillway::broker {

NativeHandlers::NativeHandlers(Dispatcher& dispatcher, BrokerContext& context,
                               std::string broker_version)
    : api_versions_(dispatcher, std::move(broker_version)),
      produce_(context),
      fetch_(context),
      metadata_(context),
      create_topics_(context),
      delete_topics_(context),
      commit_offsets_(context),
      commit_member_offsets_(context),
      fetch_offsets_(context),
      init_producer_id_(context),
      join_group_(context),
      sync_group_(context),
      heartbeat_(context),
      leave_group_(context),
      list_groups_(context),
      describe_groups_(context),
      delete_groups_(context),
      sasl_handshake_(context),
      sasl_authenticate_(context),
      list_users_(context),
      upsert_user_(context),
      delete_user_(context),
      describe_acls_(context),
      create_acls_(context),
      delete_acls_(context),
      describe_cluster_(context),
      alter_reassignments_(context),
      list_reassignments_(context) {
  using namespace messages;
  using frame::ApiKey;
  dispatcher.add(ApiKey::kApiVersions, kApiVersionsVersion, kApiVersionsVersion, &api_versions_);
  dispatcher.add(ApiKey::kProduce, kProduceVersion, kProduceVersion, &produce_);
  dispatcher.add(ApiKey::kFetch, kFetchVersion, kFetchVersion, &fetch_);
  dispatcher.add(ApiKey::kMetadata, kMetadataVersion, kMetadataMaxVersion, &metadata_);
  dispatcher.add(ApiKey::kCreateTopics, kCreateTopicsVersion, kCreateTopicsMaxVersion,
                 &create_topics_);
  dispatcher.add(ApiKey::kDeleteTopics, kDeleteTopicsVersion, kDeleteTopicsVersion,
                 &delete_topics_);
  dispatcher.add(ApiKey::kCommitOffsets, kCommitOffsetsVersion, kCommitOffsetsVersion,
                 &commit_offsets_);
  dispatcher.add(ApiKey::kFetchOffsets, kFetchOffsetsVersion, kFetchOffsetsVersion,
                 &fetch_offsets_);
  dispatcher.add(ApiKey::kInitProducerId, kInitProducerIdVersion, kInitProducerIdVersion,
                 &init_producer_id_);
  // The group requests exist only with a coordinator (main() always gives
  // one); without it they are unknown keys, kUnsupportedVersion.
  if (context.groups != nullptr) {
    dispatcher.add(ApiKey::kJoinGroup, kJoinGroupVersion, kJoinGroupVersion, &join_group_);
    dispatcher.add(ApiKey::kSyncGroup, kSyncGroupVersion, kSyncGroupVersion, &sync_group_);
    dispatcher.add(ApiKey::kHeartbeat, kHeartbeatVersion, kHeartbeatVersion, &heartbeat_);
    dispatcher.add(ApiKey::kLeaveGroup, kLeaveGroupVersion, kLeaveGroupVersion, &leave_group_);
    dispatcher.add(ApiKey::kListGroups, kListGroupsVersion, kListGroupsVersion, &list_groups_);
    dispatcher.add(ApiKey::kDescribeGroups, kDescribeGroupsVersion, kDescribeGroupsVersion,
                   &describe_groups_);
    dispatcher.add(ApiKey::kDeleteGroups, kDeleteGroupsVersion, kDeleteGroupsVersion,
                   &delete_groups_);
  }
  dispatcher.add(ApiKey::kCommitMemberOffsets, kCommitMemberOffsetsVersion,
                 kCommitMemberOffsetsVersion, &commit_member_offsets_);
  dispatcher.add(ApiKey::kSaslHandshake, kSaslHandshakeVersion, kSaslHandshakeVersion,
                 &sasl_handshake_);
  dispatcher.add(ApiKey::kSaslAuthenticate, kSaslAuthenticateVersion, kSaslAuthenticateVersion,
                 &sasl_authenticate_);
  dispatcher.add(ApiKey::kListUsers, kListUsersVersion, kListUsersVersion, &list_users_);
  dispatcher.add(ApiKey::kUpsertUser, kUpsertUserVersion, kUpsertUserVersion, &upsert_user_);
  dispatcher.add(ApiKey::kDeleteUser, kDeleteUserVersion, kDeleteUserVersion, &delete_user_);
  dispatcher.add(ApiKey::kDescribeAcls, kDescribeAclsVersion, kDescribeAclsVersion,
                 &describe_acls_);
  dispatcher.add(ApiKey::kCreateAcls, kCreateAclsVersion, kCreateAclsVersion, &create_acls_);
  dispatcher.add(ApiKey::kDeleteAcls, kDeleteAclsVersion, kDeleteAclsVersion, &delete_acls_);
  dispatcher.add(ApiKey::kDescribeCluster, kDescribeClusterVersion, kDescribeClusterVersion,
                 &describe_cluster_);
  dispatcher.add(ApiKey::kAlterPartitionReassignments, kAlterPartitionReassignmentsVersion,
                 kAlterPartitionReassignmentsVersion, &alter_reassignments_);
  dispatcher.add(ApiKey::kListPartitionReassignments, kListPartitionReassignmentsVersion,
                 kListPartitionReassignmentsVersion, &list_reassignments_);
}

}  // namespace spillway::broker
