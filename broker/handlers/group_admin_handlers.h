// ListGroups (14), DescribeGroups (15) and DeleteGroups (16) on the native
// listener: the administration of consumer groups, answered by the group
// coordinator (groups/group_coordinator.h). docs/protocol.md. Not on any
// hot path: each builds its answer in fresh vectors.
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

class ListGroupsHandler final : public Handler {
 public:
  explicit ListGroupsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

// One coordinator describe per named group (each on its group's owner
// core); answered once all have come back, in request order.
class DescribeGroupsHandler final : public Handler {
 public:
  explicit DescribeGroupsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

// One coordinator remove per named group; kGroupNotEmpty for a group with
// members, kUnknownGroup for one with nothing to delete.
class DeleteGroupsHandler final : public Handler {
 public:
  explicit DeleteGroupsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
