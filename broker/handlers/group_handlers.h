// The native consumer group membership requests (docs/protocol.md,
// "Consumer groups"): JoinGroup, SyncGroup, Heartbeat and LeaveGroup,
// decoded into the coordinator's protocol-neutral structs
// (groups/group_coordinator.h) and answered when it calls back. The
// coordinator's errors go in the native response frame as they are.
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

class JoinGroupHandler final : public Handler {
 public:
  explicit JoinGroupHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class SyncGroupHandler final : public Handler {
 public:
  explicit SyncGroupHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class HeartbeatHandler final : public Handler {
 public:
  explicit HeartbeatHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class LeaveGroupHandler final : public Handler {
 public:
  explicit LeaveGroupHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
