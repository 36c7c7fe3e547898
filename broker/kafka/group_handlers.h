// The Kafka listener's group administration, through the group coordinator
// (groups/group_coordinator.h; docs/consumer-groups.md), which knows both
// the groups with members and the "simple" ones (a group id under which
// offsets were committed, by a consumer that uses assign(), through either
// protocol, with no members).
//
// ListGroups (key 16, v0-4) lists both, with their states (v4's filter
// applied); DescribeGroups (key 15, v0-5) gives the state, protocol and
// members (client id and host; subscription and assignment once Stable), a
// simple group as "Empty" with no members, and a group the broker does not
// have as "Dead", as Kafka does. DeleteGroups (key 42, v0-2) deletes a group
// without members and its committed offsets (NON_EMPTY_GROUP while it has
// members, GROUP_ID_NOT_FOUND when there is nothing to delete).
// JoinGroup, SyncGroup, Heartbeat and LeaveGroup have their own handlers.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class ListGroupsHandler final : public Handler {
 public:
  explicit ListGroupsHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

class DescribeGroupsHandler final : public Handler {
 public:
  explicit DescribeGroupsHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

class DeleteGroupsHandler final : public Handler {
 public:
  explicit DeleteGroupsHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
