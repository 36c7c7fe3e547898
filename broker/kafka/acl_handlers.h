// The Kafka listener's ACL administration (docs/security-acls.md), so that
// Kafka's admin tools (kafka-acls, librdkafka's rd_kafka_*Acls) manage
// Spillway's rules: DescribeAcls (key 29) needs Describe on the cluster,
// CreateAcls (30) and DeleteAcls (31) Alter on the cluster; all v0-3. With
// authorization off every answer is SECURITY_DISABLED, as Kafka without an
// authorizer.
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class DescribeAclsHandler final : public Handler {
 public:
  explicit DescribeAclsHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

class CreateAclsHandler final : public Handler {
 public:
  explicit CreateAclsHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

class DeleteAclsHandler final : public Handler {
 public:
  explicit DeleteAclsHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
