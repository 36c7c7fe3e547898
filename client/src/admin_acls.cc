// Admin's ACL calls: DescribeAcls, CreateAcls and DeleteAcls
// (docs/protocol.md), and the names of the ACL enums.
#include <array>
#include <cctype>
#include <string>
#include <utility>

#include "channel.h"
#include "spillway/acl.h"
#include "spillway/admin.h"
#include "spillway/common/messages/acls.h"

namespace spillway {

namespace {

template <typename E>
int8_t code_of(E value) {
  return static_cast<int8_t>(value);
}

// The broker's code as the enum; past the enum's last: kUnknown.
template <typename E>
E code_to(int8_t code, E last) {
  return code >= 0 && code <= static_cast<int8_t>(last) ? static_cast<E>(code) : E{};
}

messages::AclBindingBody body_of(const AclRule& r) {
  return {.resource_type = code_of(r.resource_type),
          .resource_name = r.resource_name,
          .pattern_type = code_of(r.pattern_type),
          .principal = r.principal,
          .host = r.host,
          .operation = code_of(r.operation),
          .permission = code_of(r.permission)};
}

messages::AclFilterBody body_of(const AclRuleFilter& f) {
  messages::AclFilterBody body;
  body.resource_type = code_of(f.resource_type);
  if (f.resource_name) body.resource_name = *f.resource_name;
  body.pattern_type = code_of(f.pattern_type);
  if (f.principal) body.principal = *f.principal;
  if (f.host) body.host = *f.host;
  body.operation = code_of(f.operation);
  body.permission = code_of(f.permission);
  return body;
}

AclRule rule_of(const messages::AclBindingBody& b) {
  return {.resource_type = code_to(b.resource_type, AclResourceType::kTransactionalId),
          .resource_name = std::string(b.resource_name),
          .pattern_type = code_to(b.pattern_type, AclPatternType::kPrefixed),
          .principal = std::string(b.principal),
          .host = std::string(b.host),
          .operation = code_to(b.operation, AclOperation::kIdempotentWrite),
          .permission = code_to(b.permission, AclPermission::kAllow)};
}

Status status_of(ErrorCode code, const wire::ErrorText& message) {
  if (code == ErrorCode::kOk) return Status::Ok();
  return Status(code, std::string(message.text));
}

// Lower case without '-' and '_', so "idempotent-write" is "IdempotentWrite".
std::string folded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '-' || c == '_') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

template <typename E, size_t N>
E parse_of(std::string_view text, const std::array<E, N>& values) {
  const std::string wanted = folded(text);
  for (E v : values) {
    if (folded(acl_name(v)) == wanted) return v;
  }
  return E{};
}

}  // namespace

std::string_view acl_name(AclResourceType type) {
  switch (type) {
    case AclResourceType::kAny:
      return "Any";
    case AclResourceType::kTopic:
      return "Topic";
    case AclResourceType::kGroup:
      return "Group";
    case AclResourceType::kCluster:
      return "Cluster";
    case AclResourceType::kTransactionalId:
      return "TransactionalId";
    case AclResourceType::kUnknown:
      break;
  }
  return "Unknown";
}

std::string_view acl_name(AclPatternType type) {
  switch (type) {
    case AclPatternType::kAny:
      return "Any";
    case AclPatternType::kMatch:
      return "Match";
    case AclPatternType::kLiteral:
      return "Literal";
    case AclPatternType::kPrefixed:
      return "Prefixed";
    case AclPatternType::kUnknown:
      break;
  }
  return "Unknown";
}

std::string_view acl_name(AclOperation operation) {
  switch (operation) {
    case AclOperation::kAny:
      return "Any";
    case AclOperation::kAll:
      return "All";
    case AclOperation::kRead:
      return "Read";
    case AclOperation::kWrite:
      return "Write";
    case AclOperation::kCreate:
      return "Create";
    case AclOperation::kDelete:
      return "Delete";
    case AclOperation::kAlter:
      return "Alter";
    case AclOperation::kDescribe:
      return "Describe";
    case AclOperation::kClusterAction:
      return "ClusterAction";
    case AclOperation::kDescribeConfigs:
      return "DescribeConfigs";
    case AclOperation::kAlterConfigs:
      return "AlterConfigs";
    case AclOperation::kIdempotentWrite:
      return "IdempotentWrite";
    case AclOperation::kUnknown:
      break;
  }
  return "Unknown";
}

std::string_view acl_name(AclPermission permission) {
  switch (permission) {
    case AclPermission::kAny:
      return "Any";
    case AclPermission::kDeny:
      return "Deny";
    case AclPermission::kAllow:
      return "Allow";
    case AclPermission::kUnknown:
      break;
  }
  return "Unknown";
}

AclResourceType parse_acl_resource_type(std::string_view text) {
  return parse_of(
      text, std::array{AclResourceType::kAny, AclResourceType::kTopic, AclResourceType::kGroup,
                       AclResourceType::kCluster, AclResourceType::kTransactionalId});
}

AclPatternType parse_acl_pattern_type(std::string_view text) {
  return parse_of(text, std::array{AclPatternType::kAny, AclPatternType::kMatch,
                                   AclPatternType::kLiteral, AclPatternType::kPrefixed});
}

AclOperation parse_acl_operation(std::string_view text) {
  return parse_of(
      text, std::array{AclOperation::kAny, AclOperation::kAll, AclOperation::kRead,
                       AclOperation::kWrite, AclOperation::kCreate, AclOperation::kDelete,
                       AclOperation::kAlter, AclOperation::kDescribe, AclOperation::kClusterAction,
                       AclOperation::kDescribeConfigs, AclOperation::kAlterConfigs,
                       AclOperation::kIdempotentWrite});
}

Result<std::vector<AclRule>> Admin::describe_acls(const AclRuleFilter& filter) {
  const messages::DescribeAclsRequest request{body_of(filter)};
  Result<std::vector<std::byte>> body =
      wire::channel_of(connection_)
          .call(frame::ApiKey::kDescribeAcls, messages::kDescribeAclsVersion,
                [&](WriteBuffer& out) {
                  return messages::encode_describe_acls_request(request, out);
                });
  if (!body.ok()) return body.status();
  Result<messages::DescribeAclsResponse> decoded = messages::decode_describe_acls_response(*body);
  if (!decoded.ok()) return decoded.status();
  std::vector<AclRule> rules;
  rules.reserve(static_cast<size_t>(decoded->bindings.size()));
  for (const messages::AclBindingBody& b : decoded->bindings) rules.push_back(rule_of(b));
  return rules;
}

Result<std::vector<Status>> Admin::create_acls(const std::vector<AclRule>& rules) {
  std::vector<messages::AclBindingBody> bodies;
  bodies.reserve(rules.size());
  for (const AclRule& r : rules) bodies.push_back(body_of(r));
  const messages::CreateAclsRequest request{bodies};
  Result<std::vector<std::byte>> body =
      wire::channel_of(connection_)
          .call(frame::ApiKey::kCreateAcls, messages::kCreateAclsVersion, [&](WriteBuffer& out) {
            return messages::encode_create_acls_request(request, out);
          });
  if (!body.ok()) return body.status();
  Result<messages::CreateAclsResponse> decoded = messages::decode_create_acls_response(*body);
  if (!decoded.ok()) return decoded.status();
  if (static_cast<size_t>(decoded->results.size()) != rules.size()) {
    return Status(ErrorCode::kCorruptMessage, "CreateAcls response: wrong number of results");
  }
  std::vector<Status> statuses;
  statuses.reserve(rules.size());
  for (const messages::AclCreationResult& r : decoded->results) {
    statuses.push_back(status_of(r.error_code, r.error_message));
  }
  return statuses;
}

Result<std::vector<AclDeletion>> Admin::delete_acls(const std::vector<AclRuleFilter>& filters) {
  std::vector<messages::AclFilterBody> bodies;
  bodies.reserve(filters.size());
  for (const AclRuleFilter& f : filters) bodies.push_back(body_of(f));
  const messages::DeleteAclsRequest request{bodies};
  Result<std::vector<std::byte>> body =
      wire::channel_of(connection_)
          .call(frame::ApiKey::kDeleteAcls, messages::kDeleteAclsVersion, [&](WriteBuffer& out) {
            return messages::encode_delete_acls_request(request, out);
          });
  if (!body.ok()) return body.status();
  Result<messages::DeleteAclsResponse> decoded = messages::decode_delete_acls_response(*body);
  if (!decoded.ok()) return decoded.status();
  if (static_cast<size_t>(decoded->results.size()) != filters.size()) {
    return Status(ErrorCode::kCorruptMessage, "DeleteAcls response: wrong number of results");
  }
  std::vector<AclDeletion> deletions;
  deletions.reserve(filters.size());
  for (const messages::AclDeletionResult& r : decoded->results) {
    AclDeletion d{.status = status_of(r.error_code, r.error_message), .removed = {}};
    d.removed.reserve(static_cast<size_t>(r.removed.size()));
    for (const messages::AclBindingBody& b : r.removed) d.removed.push_back(rule_of(b));
    deletions.push_back(std::move(d));
  }
  return deletions;
}

}  // namespace spillway
