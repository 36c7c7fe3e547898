// DescribeAcls, CreateAcls and DeleteAcls through the AclManager.
#include "acl_handlers.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "codec.h"
#include "error_map.h"
#include "security/acl/acl_manager.h"
#include "security/authorizer.h"
#include "spillway/common/kafka/create_acls.h"
#include "spillway/common/kafka/delete_acls.h"
#include "spillway/common/kafka/describe_acls.h"

namespace spillway::broker::kafka_listener {

namespace {

using security::AclBinding;
using security::AclFilter;
using security::AclOperation;
using security::AclPermission;
using security::PatternType;
using security::ResourceType;

constexpr std::string_view kDisabled = "authorization is off ([authorization] enabled = false)";

// Whether the exchange may manage ACLs (`operation` on the cluster).
bool may(const KafkaContext& context, const Exchange& exchange, AclOperation operation) {
  return security::authorized(context.broker.authorizer, exchange.security(), operation,
                              ResourceType::kCluster, security::kClusterResourceName);
}

template <typename E>
int8_t code_of(E value) {
  return static_cast<int8_t>(value);
}

}  // namespace

void DescribeAclsHandler::handle(Exchange& exchange) {
  using Response = kafka::DescribeAclsResponse;
  Result<kafka::DescribeAclsRequest> request = decode_request<kafka::DescribeAclsRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  Response response;
  if (context_.broker.acls == nullptr) {
    response.error_code = kafka_error(ErrorCode::kSecurityDisabled);
    response.error_message = kDisabled;
    respond(exchange, response);
    return;
  }
  if (!may(context_, exchange, AclOperation::kDescribe)) {
    response.error_code = kafka_error(ErrorCode::kClusterAuthorizationFailed);
    respond(exchange, response);
    return;
  }
  const AclFilter filter = security::filter_from_codes(
      request->resource_type_filter, request->resource_name_filter, request->pattern_type_filter,
      request->principal_filter, request->host_filter, request->operation,
      request->permission_type);
  if (Status st = security::validate_filter(filter); !st.ok()) {
    response.error_code = kafka_error(st);
    const std::string message(st.message());
    response.error_message = message;
    respond(exchange, response);
    return;
  }
  const std::vector<AclBinding> found = context_.broker.acls->matching(filter);
  // Grouped by resource pattern, as Kafka answers.
  std::map<std::tuple<int8_t, std::string_view, int8_t>, std::vector<Response::Acl>> by_resource;
  for (const AclBinding& b : found) {
    by_resource[{code_of(b.resource_type), b.resource_name, code_of(b.pattern_type)}].push_back(
        {.principal = b.principal,
         .host = b.host,
         .operation = code_of(b.operation),
         .permission_type = code_of(b.permission)});
  }
  std::vector<Response::Resource> resources;
  resources.reserve(by_resource.size());
  for (const auto& [key, acls] : by_resource) {
    resources.push_back({.resource_type = std::get<0>(key),
                         .resource_name = std::get<1>(key),
                         .pattern_type = std::get<2>(key),
                         .acls = acls});
  }
  response.resources = resources;
  respond(exchange, response);
}

void CreateAclsHandler::handle(Exchange& exchange) {
  using Response = kafka::CreateAclsResponse;
  Result<kafka::CreateAclsRequest> request = decode_request<kafka::CreateAclsRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  const size_t count = static_cast<size_t>(request->creations.size());
  auto refuse_all = [&](int16_t code, std::string_view message) {
    std::vector<Response::Result> results(count, {.error_code = code, .error_message = message});
    Response response;
    response.results = results;
    respond(exchange, response);
  };
  if (context_.broker.acls == nullptr) {
    refuse_all(kafka_error(ErrorCode::kSecurityDisabled), kDisabled);
    return;
  }
  if (!may(context_, exchange, AclOperation::kAlter)) {
    refuse_all(kafka_error(ErrorCode::kClusterAuthorizationFailed),
               "CreateAcls needs Alter on the cluster");
    return;
  }
  std::vector<AclBinding> bindings;
  bindings.reserve(count);
  for (const kafka::CreateAclsRequest::Creation& c : request->creations) {
    bindings.push_back(security::binding_from_codes(c.resource_type, c.resource_name,
                                                    c.resource_pattern_type, c.principal, c.host,
                                                    c.operation, c.permission_type));
  }
  context_.broker.acls->create(
      std::move(bindings), exchange.executor(),
      [ex = &exchange, keep = exchange.keep_alive()](std::vector<Status> statuses) {
        std::vector<std::string> messages(statuses.size());
        std::vector<Response::Result> results(statuses.size());
        for (size_t i = 0; i < statuses.size(); ++i) {
          if (statuses[i].ok()) continue;
          results[i].error_code = kafka_error(statuses[i]);
          messages[i] = statuses[i].message();
          results[i].error_message = messages[i];
        }
        Response response;
        response.results = results;
        respond(*ex, response);
      });
}

void DeleteAclsHandler::handle(Exchange& exchange) {
  using Response = kafka::DeleteAclsResponse;
  Result<kafka::DeleteAclsRequest> request = decode_request<kafka::DeleteAclsRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  const size_t count = static_cast<size_t>(request->filters.size());
  auto refuse_all = [&](int16_t code, std::string_view message) {
    std::vector<Response::FilterResult> results(count,
                                                {.error_code = code, .error_message = message});
    Response response;
    response.filter_results = results;
    respond(exchange, response);
  };
  if (context_.broker.acls == nullptr) {
    refuse_all(kafka_error(ErrorCode::kSecurityDisabled), kDisabled);
    return;
  }
  if (!may(context_, exchange, AclOperation::kAlter)) {
    refuse_all(kafka_error(ErrorCode::kClusterAuthorizationFailed),
               "DeleteAcls needs Alter on the cluster");
    return;
  }
  std::vector<AclFilter> filters;
  filters.reserve(count);
  for (const kafka::DeleteAclsRequest::Filter& f : request->filters) {
    filters.push_back(security::filter_from_codes(f.resource_type_filter, f.resource_name_filter,
                                                  f.pattern_type_filter, f.principal_filter,
                                                  f.host_filter, f.operation, f.permission_type));
  }
  context_.broker.acls->remove(
      std::move(filters), exchange.executor(),
      [ex = &exchange,
       keep = exchange.keep_alive()](std::vector<Result<std::vector<AclBinding>>> removed) {
        std::vector<std::string> messages(removed.size());
        std::vector<std::vector<Response::MatchingAcl>> matching(removed.size());
        std::vector<Response::FilterResult> results(removed.size());
        for (size_t i = 0; i < removed.size(); ++i) {
          if (!removed[i].ok()) {
            results[i].error_code = kafka_error(removed[i].status());
            messages[i] = removed[i].status().message();
            results[i].error_message = messages[i];
            continue;
          }
          for (const AclBinding& b : *removed[i]) {
            matching[i].push_back({.resource_type = code_of(b.resource_type),
                                   .resource_name = b.resource_name,
                                   .pattern_type = code_of(b.pattern_type),
                                   .principal = b.principal,
                                   .host = b.host,
                                   .operation = code_of(b.operation),
                                   .permission_type = code_of(b.permission)});
          }
          results[i].matching_acls = matching[i];
        }
        Response response;
        response.filter_results = results;
        respond(*ex, response);
      });
}

}  // namespace spillway::broker::kafka_listener
