// ListUsers (key 23), UpsertUser (24), DeleteUser (25): the SCRAM
// credentials (security/sasl/credential_store.h). Listing needs Describe on
// the cluster, changes need Alter (when authorization is on).
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

class ListUsersHandler final : public Handler {
 public:
  explicit ListUsersHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class UpsertUserHandler final : public Handler {
 public:
  explicit UpsertUserHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class DeleteUserHandler final : public Handler {
 public:
  explicit DeleteUserHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
