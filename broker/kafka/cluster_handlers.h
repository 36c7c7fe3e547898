// The requests that ask who the cluster is: FindCoordinator (key 10, v0-4;
// this broker coordinates every consumer group) and DescribeCluster (key 60,
// v0-1; this broker is the whole cluster and its controller).
#pragma once

#include "kafka_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker::kafka_listener {

class FindCoordinatorHandler final : public Handler {
 public:
  explicit FindCoordinatorHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

class DescribeClusterHandler final : public Handler {
 public:
  explicit DescribeClusterHandler(KafkaContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  KafkaContext& context_;
};

}  // namespace spillway::broker::kafka_listener
