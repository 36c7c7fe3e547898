// FindCoordinator and DescribeCluster.
#include "cluster_handlers.h"

#include <vector>

#include "cluster/cluster_admin.h"
#include "codec.h"
#include "config/listen_address.h"
#include "error_map.h"
#include "group_ownership.h"
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
  // Consumer groups are coordinated here (in a cluster: by the broker
  // group_ownership.h picks); transactions are not served.
  const bool group = request->key_type == kafka::kCoordinatorKeyGroup;
  const AdvertisedAddress& self = context_.advertised_for(exchange);
  struct Coordinator {
    int16_t error = kafka::errors::kNone;
    std::optional<std::string_view> message;
    int32_t node_id = -1;
    std::string host;
    int32_t port = -1;
  };
  cluster::SnapshotPtr snapshot =
      context_.broker.cluster_admin ? context_.broker.cluster_admin->snapshot() : nullptr;
  auto coordinator_of = [&](std::string_view key) {
    Coordinator c;
    if (!group) {
      c.error = kafka::errors::kCoordinatorNotAvailable;
      c.message = "Spillway does not support transactions";
      return c;
    }
    const int32_t id = group_coordinator_id(context_, key);
    if (id == context_.node_id) {
      c.node_id = id;
      c.host = self.host;
      c.port = self.port;
      return c;
    }
    const cluster::BrokerInfo* info = nullptr;
    if (snapshot) {
      auto it = snapshot->brokers.find(id);
      if (it != snapshot->brokers.end()) info = &it->second;
    }
    Result<HostPort> address =
        info != nullptr
            ? parse_advertised_address(info->kafka_address)
            : Result<HostPort>(Status(ErrorCode::kCoordinationUnavailable, "no broker"));
    if (!address.ok()) {
      // No live broker in this broker's view (or none with a Kafka
      // listener): retriable, the client asks again.
      c.error = kafka::errors::kCoordinatorNotAvailable;
      c.message = "no live broker to coordinate the group";
      return c;
    }
    c.node_id = id;
    c.host = std::move(address->host);
    c.port = address->port;
    return c;
  };
  const Coordinator first = coordinator_of(request->key);
  FindCoordinatorResponse response;
  response.error_code = first.error;
  response.error_message = first.message;
  response.node_id = first.node_id;
  response.host = first.host;
  response.port = first.port;
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
  std::vector<Coordinator> found;
  found.reserve(request->coordinator_keys.size());  // `coordinators` views their hosts
  std::vector<FindCoordinatorResponse::Coordinator> coordinators;
  for (std::string_view key : request->coordinator_keys) {
    const bool allowed = may_describe(key);
    found.push_back(allowed ? coordinator_of(key) : Coordinator{});
    const Coordinator& c = found.back();
    coordinators.push_back(
        {.key = key,
         .node_id = allowed ? c.node_id : -1,
         .host = allowed ? std::string_view(c.host) : std::string_view(),
         .port = allowed ? c.port : -1,
         .error_code = allowed ? c.error : kafka_error(ErrorCode::kGroupAuthorizationFailed),
         .error_message = allowed ? c.message : std::optional<std::string_view>(kRefused)});
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
