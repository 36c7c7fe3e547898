// DescribeAcls (key 20), CreateAcls (21), DeleteAcls (22) of the native
// protocol: the rules of the AclManager (security/acl/acl_manager.h), as
// the Kafka listener's handlers of the same names serve them. Describing
// needs Describe on the cluster, changes need Alter; with authorization
// off the answer is kSecurityDisabled.
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

class DescribeAclsHandler final : public Handler {
 public:
  explicit DescribeAclsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class CreateAclsHandler final : public Handler {
 public:
  explicit CreateAclsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class DeleteAclsHandler final : public Handler {
 public:
  explicit DeleteAclsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
