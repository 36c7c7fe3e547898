// The native ACL handlers: authorize, then ask or change the AclManager.
// Refusals of the whole request (authorization off, not authorized, a
// malformed filter for DescribeAcls) are the frame's error; what the
// manager says about one binding or filter is that entry's error. The
// manager logs every change.
#include "acl_handlers.h"

#include <string>
#include <vector>

#include "access.h"
#include "security/acl/acl_binding.h"
#include "security/acl/acl_manager.h"
#include "spillway/common/messages/acls.h"

namespace spillway::broker {

namespace {

using security::AclBinding;
using security::AclFilter;
using security::AclOperation;
using security::AclPermission;
using security::PatternType;
using security::ResourceType;

template <typename E>
int8_t code_of(E value) {
  return static_cast<int8_t>(value);
}

AclFilter to_filter(const messages::AclFilterBody& f) {
  return security::filter_from_codes(f.resource_type, f.resource_name, f.pattern_type, f.principal,
                                     f.host, f.operation, f.permission);
}

AclBinding to_binding(const messages::AclBindingBody& b) {
  return security::binding_from_codes(b.resource_type, b.resource_name, b.pattern_type, b.principal,
                                      b.host, b.operation, b.permission);
}

// A view of `b`, valid while `b` lives.
messages::AclBindingBody body_of(const AclBinding& b) {
  return {.resource_type = code_of(b.resource_type),
          .resource_name = b.resource_name,
          .pattern_type = code_of(b.pattern_type),
          .principal = b.principal,
          .host = b.host,
          .operation = code_of(b.operation),
          .permission = code_of(b.permission)};
}

// Ok when the broker has ACLs and the principal may do `operation` on the
// cluster (Describe to list, Alter to change, as Kafka's ACL APIs).
Status check(const BrokerContext& context, const Exchange& exchange, AclOperation operation,
             std::string_view api, std::string_view what) {
  if (context.acls == nullptr) {
    return Status(ErrorCode::kSecurityDisabled,
                  "authorization is off ([authorization] enabled = false)");
  }
  if (!may_cluster(context, exchange, operation)) {
    return Status(ErrorCode::kClusterAuthorizationFailed,
                  std::string("not authorized to ") + std::string(what) + " ACLs (" +
                      std::string(api) + " needs " +
                      (operation == AclOperation::kAlter ? "Alter" : "Describe") +
                      " on the cluster)");
  }
  return Status::Ok();
}

}  // namespace

void DescribeAclsHandler::handle(Exchange& exchange) {
  Result<messages::DescribeAclsRequest> request =
      messages::decode_describe_acls_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (Status st = check(context_, exchange, AclOperation::kDescribe, "DescribeAcls", "list");
      !st.ok()) {
    exchange.finish(st);
    return;
  }
  const AclFilter filter = to_filter(request->filter);
  if (Status st = security::validate_filter(filter); !st.ok()) {
    exchange.finish(st);
    return;
  }
  const std::vector<AclBinding> found = context_.acls->matching(filter);
  std::vector<messages::AclBindingBody> bindings;
  bindings.reserve(found.size());
  for (const AclBinding& b : found) bindings.push_back(body_of(b));
  exchange.finish(messages::encode_describe_acls_response({bindings}, exchange.out()));
}

void CreateAclsHandler::handle(Exchange& exchange) {
  Result<messages::CreateAclsRequest> request =
      messages::decode_create_acls_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (Status st = check(context_, exchange, AclOperation::kAlter, "CreateAcls", "add"); !st.ok()) {
    exchange.finish(st);
    return;
  }
  std::vector<AclBinding> bindings;
  bindings.reserve(static_cast<size_t>(request->bindings.size()));
  for (const messages::AclBindingBody& b : request->bindings) bindings.push_back(to_binding(b));
  context_.acls->create(
      std::move(bindings), exchange.executor(),
      [ex = &exchange, keep = exchange.keep_alive()](std::vector<Status> statuses) {
        std::vector<std::string> texts(statuses.size());
        std::vector<messages::AclCreationResult> results(statuses.size());
        for (size_t i = 0; i < statuses.size(); ++i) {
          if (statuses[i].ok()) continue;
          results[i].error_code = statuses[i].code();
          texts[i] = statuses[i].message();
          results[i].error_message = texts[i];
        }
        ex->finish(messages::encode_create_acls_response({results}, ex->out()));
      });
}

void DeleteAclsHandler::handle(Exchange& exchange) {
  Result<messages::DeleteAclsRequest> request =
      messages::decode_delete_acls_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (Status st = check(context_, exchange, AclOperation::kAlter, "DeleteAcls", "remove");
      !st.ok()) {
    exchange.finish(st);
    return;
  }
  std::vector<AclFilter> filters;
  filters.reserve(static_cast<size_t>(request->filters.size()));
  for (const messages::AclFilterBody& f : request->filters) filters.push_back(to_filter(f));
  context_.acls->remove(std::move(filters), exchange.executor(),
                        [ex = &exchange, keep = exchange.keep_alive()](
                            std::vector<Result<std::vector<AclBinding>>> removed) {
                          std::vector<std::string> texts(removed.size());
                          std::vector<std::vector<messages::AclBindingBody>> bodies(removed.size());
                          std::vector<messages::AclDeletionResult> results(removed.size());
                          for (size_t i = 0; i < removed.size(); ++i) {
                            if (!removed[i].ok()) {
                              results[i].error_code = removed[i].status().code();
                              texts[i] = removed[i].status().message();
                              results[i].error_message = texts[i];
                              continue;
                            }
                            bodies[i].reserve(removed[i]->size());
                            for (const AclBinding& b : *removed[i]) bodies[i].push_back(body_of(b));
                            results[i].removed = bodies[i];
                          }
                          ex->finish(messages::encode_delete_acls_response({results}, ex->out()));
                        });
}

}  // namespace spillway::broker
