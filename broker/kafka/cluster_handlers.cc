// FindCoordinator and DescribeCluster.
#include "cluster_handlers.h"

#include <vector>

#include "codec.h"
#include "error_map.h"
#include "handlers/access.h"
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
  // A group's coordinator is told only to who may describe the group.
  constexpr std::string_view kRefused = "not allowed to describe the group";
  auto may_describe = [&](std::string_view key) {
    return !group || may_group(context_.broker, exchange, security::AclOperation::kDescribe, key);
  };
  if (exchange.header().api_version < 4 && !may_describe(request->key)) {
    response.error_code = kafka_error(ErrorCode::kGroupAuthorizationFailed);
    response.error_message = kRefused;
    response.node_id = -1;
    response.host = "";
    response.port = -1;
  }
  // v4 batches its keys; each answered as above.
  std::vector<FindCoordinatorResponse::Coordinator> coordinators;
  for (std::string_view key : request->coordinator_keys) {
    const bool allowed = may_describe(key);
    coordinators.push_back(
        {.key = key,
         .node_id = allowed ? response.node_id : -1,
         .host = allowed ? response.host : std::string_view(),
         .port = allowed ? response.port : -1,
         .error_code = allowed ? error : kafka_error(ErrorCode::kGroupAuthorizationFailed),
         .error_message = allowed ? message : std::optional<std::string_view>(kRefused)});
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
