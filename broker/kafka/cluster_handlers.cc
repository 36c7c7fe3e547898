// FindCoordinator and DescribeCluster.
#include "cluster_handlers.h"

#include <vector>

#include "codec.h"
#include "spillway/common/kafka/describe_cluster.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/find_coordinator.h"

namespace spillway::broker::kafka_listener {

void FindCoordinatorHandler::handle(Exchange& exchange) {
  using kafka::FindCoordinatorResponse;
  Result<kafka::FindCoordinatorRequest> request =
      decode_request<kafka::FindCoordinatorRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  // Consumer groups are coordinated here; transactions are not served.
  const bool group = request->key_type == kafka::kCoordinatorKeyGroup;
  const int16_t error = group ? kafka::errors::kNone : kafka::errors::kCoordinatorNotAvailable;
  const std::optional<std::string_view> message =
      group ? std::nullopt
            : std::optional<std::string_view>("Spillway does not support transactions");
  FindCoordinatorResponse response;
  response.error_code = error;
  response.error_message = message;
  response.node_id = group ? context_.node_id : -1;
  const AdvertisedAddress& self = context_.advertised_for(exchange);
  response.host = group ? std::string_view(self.host) : std::string_view();
  response.port = group ? self.port : -1;
  // v4 batches its keys; every one has the same answer.
  std::vector<FindCoordinatorResponse::Coordinator> coordinators;
  for (std::string_view key : request->coordinator_keys) {
    coordinators.push_back({.key = key,
                            .node_id = response.node_id,
                            .host = response.host,
                            .port = response.port,
                            .error_code = error,
                            .error_message = message});
  }
  response.coordinators = coordinators;
  respond(exchange, response);
}

void DescribeClusterHandler::handle(Exchange& exchange) {
  using kafka::DescribeClusterResponse;
  Result<kafka::DescribeClusterRequest> request =
      decode_request<kafka::DescribeClusterRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  const AdvertisedAddress& address = context_.advertised_for(exchange);
  const DescribeClusterResponse::Broker self{.broker_id = context_.node_id,
                                             .host = address.host,
                                             .port = address.port,
                                             .rack = std::nullopt};
  DescribeClusterResponse response;
  response.endpoint_type = request->endpoint_type;
  response.cluster_id = context_.cluster_id;
  response.controller_id = context_.node_id;
  response.brokers = std::span(&self, 1);
  respond(exchange, response);
}

}  // namespace spillway::broker::kafka_listener
