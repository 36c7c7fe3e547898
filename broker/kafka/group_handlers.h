// What the Kafka listener says about consumer groups before it coordinates
// them (a later issue). The groups it knows are the "simple" ones Kafka
// also has: a group id under which offsets were committed (by a consumer
// that uses assign(), through either protocol), with no members.
//
// ListGroups (key 16, v0-4) lists them in state "Empty"; DescribeGroups
// (key 15, v0-5) describes one as "Empty" with no members, and a group
// without commits as "Dead", as Kafka does for a group it does not have.
// DeleteGroups (key 42, v0-2) forgets a group's committed offsets
// (GROUP_ID_NOT_FOUND for a group without any).
// JoinGroup, SyncGroup, Heartbeat and LeaveGroup are not announced, so a
// consumer that subscribes is told by its own client that the broker does
// not support group membership (librdkafka: "JoinGroup failed: Local:
// Required feature not supported by broker", on every attempt).
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
