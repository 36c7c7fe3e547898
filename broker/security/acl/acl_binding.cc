#include "security/acl/acl_binding.h"

#include <array>
#include <cctype>
#include <utility>

namespace spillway::broker::security {

namespace {

bool name_matches(const AclFilter& filter, const AclBinding& b) {
  if (!filter.resource_name) return true;
  const std::string& name = *filter.resource_name;
  if (filter.pattern_type != PatternType::kMatch) return name == b.resource_name;
  // kMatch: every rule that would apply to a resource called `name`.
  switch (b.pattern_type) {
    case PatternType::kLiteral:
      return name == b.resource_name || b.resource_name == kWildcardResource;
    case PatternType::kPrefixed:
      return name.starts_with(b.resource_name);
    default:
      return false;
  }
}

Status invalid(std::string what) {
  return Status(ErrorCode::kInvalidArgument, std::move(what));
}

// Lower case without '_' and '-', so "DESCRIBE_CONFIGS", "describe-configs"
// and "DescribeConfigs" compare equal.
std::string fold(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '_' || c == '-') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

template <typename E, size_t N>
E parse_named(std::string_view text, const std::array<std::pair<E, std::string_view>, N>& names) {
  const std::string folded = fold(text);
  for (const auto& [value, name] : names) {
    if (fold(name) == folded) return value;
  }
  return E{};  // kUnknown is 0 in every enum
}

template <typename E, size_t N>
std::string_view name_of(E value, const std::array<std::pair<E, std::string_view>, N>& names) {
  for (const auto& [v, name] : names) {
    if (v == value) return name;
  }
  return "Unknown";
}

constexpr std::array<std::pair<ResourceType, std::string_view>, 5> kResourceNames = {{
    {ResourceType::kAny, "Any"},
    {ResourceType::kTopic, "Topic"},
    {ResourceType::kGroup, "Group"},
    {ResourceType::kCluster, "Cluster"},
    {ResourceType::kTransactionalId, "TransactionalId"},
}};
constexpr std::array<std::pair<PatternType, std::string_view>, 4> kPatternNames = {{
    {PatternType::kAny, "Any"},
    {PatternType::kMatch, "Match"},
    {PatternType::kLiteral, "Literal"},
    {PatternType::kPrefixed, "Prefixed"},
}};
constexpr std::array<std::pair<AclOperation, std::string_view>, 12> kOperationNames = {{
    {AclOperation::kAny, "Any"},
    {AclOperation::kAll, "All"},
    {AclOperation::kRead, "Read"},
    {AclOperation::kWrite, "Write"},
    {AclOperation::kCreate, "Create"},
    {AclOperation::kDelete, "Delete"},
    {AclOperation::kAlter, "Alter"},
    {AclOperation::kDescribe, "Describe"},
    {AclOperation::kClusterAction, "ClusterAction"},
    {AclOperation::kDescribeConfigs, "DescribeConfigs"},
    {AclOperation::kAlterConfigs, "AlterConfigs"},
    {AclOperation::kIdempotentWrite, "IdempotentWrite"},
}};
constexpr std::array<std::pair<AclPermission, std::string_view>, 3> kPermissionNames = {{
    {AclPermission::kAny, "Any"},
    {AclPermission::kDeny, "Deny"},
    {AclPermission::kAllow, "Allow"},
}};

bool concrete_resource(ResourceType t) {
  return t == ResourceType::kTopic || t == ResourceType::kGroup || t == ResourceType::kCluster ||
         t == ResourceType::kTransactionalId;
}

}  // namespace

bool matches(const AclFilter& filter, const AclBinding& b) {
  if (filter.resource_type != ResourceType::kAny && filter.resource_type != b.resource_type) {
    return false;
  }
  if (filter.pattern_type != PatternType::kAny && filter.pattern_type != PatternType::kMatch &&
      filter.pattern_type != b.pattern_type) {
    return false;
  }
  if (!name_matches(filter, b)) return false;
  if (filter.principal && *filter.principal != b.principal) return false;
  if (filter.host && *filter.host != b.host) return false;
  if (filter.operation != AclOperation::kAny && filter.operation != b.operation) return false;
  if (filter.permission != AclPermission::kAny && filter.permission != b.permission) return false;
  return true;
}

Status validate_binding(const AclBinding& b) {
  if (!concrete_resource(b.resource_type)) return invalid("the resource type must be concrete");
  if (b.pattern_type != PatternType::kLiteral && b.pattern_type != PatternType::kPrefixed) {
    return invalid("the pattern type must be LITERAL or PREFIXED");
  }
  if (b.resource_name.empty()) return invalid("the resource name is empty");
  if (b.resource_type == ResourceType::kCluster &&
      (b.resource_name != kClusterResourceName || b.pattern_type != PatternType::kLiteral)) {
    return invalid("the cluster resource is the literal \"kafka-cluster\"");
  }
  const size_t colon = b.principal.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == b.principal.size()) {
    return invalid("the principal must be \"Type:name\", e.g. \"User:alice\"");
  }
  if (b.host.empty()) return invalid("the host is empty (\"*\" is every host)");
  if (b.operation == AclOperation::kUnknown || b.operation == AclOperation::kAny) {
    return invalid("the operation must be concrete");
  }
  if (b.permission != AclPermission::kAllow && b.permission != AclPermission::kDeny) {
    return invalid("the permission must be ALLOW or DENY");
  }
  return Status::Ok();
}

Status validate_filter(const AclFilter& f) {
  if (f.resource_type == ResourceType::kUnknown) return invalid("unknown resource type");
  if (f.pattern_type == PatternType::kUnknown) return invalid("unknown pattern type");
  if (f.operation == AclOperation::kUnknown) return invalid("unknown operation");
  if (f.permission == AclPermission::kUnknown) return invalid("unknown permission");
  return Status::Ok();
}

std::string_view resource_type_name(ResourceType type) {
  return name_of(type, kResourceNames);
}
std::string_view pattern_type_name(PatternType type) {
  return name_of(type, kPatternNames);
}
std::string_view operation_name(AclOperation op) {
  return name_of(op, kOperationNames);
}
std::string_view permission_name(AclPermission p) {
  return name_of(p, kPermissionNames);
}
ResourceType parse_resource_type(std::string_view text) {
  return parse_named(text, kResourceNames);
}
PatternType parse_pattern_type(std::string_view text) {
  return parse_named(text, kPatternNames);
}
AclOperation parse_operation(std::string_view text) {
  return parse_named(text, kOperationNames);
}
AclPermission parse_permission(std::string_view text) {
  return parse_named(text, kPermissionNames);
}

std::string describe(const AclBinding& b) {
  std::string out;
  out.append(permission_name(b.permission))
      .append(" ")
      .append(b.principal)
      .append(" from ")
      .append(b.host)
      .append(" ")
      .append(operation_name(b.operation))
      .append(" on ")
      .append(resource_type_name(b.resource_type))
      .append(":")
      .append(b.pattern_type == PatternType::kPrefixed ? "PREFIXED:" : "LITERAL:")
      .append(b.resource_name);
  return out;
}

namespace {
template <typename E>
E code_to(int8_t code, E last) {
  return code >= 0 && code <= static_cast<int8_t>(last) ? static_cast<E>(code) : E{};
}
}  // namespace

AclBinding binding_from_codes(int8_t type, std::string_view name, int8_t pattern,
                              std::string_view principal, std::string_view host, int8_t operation,
                              int8_t permission) {
  AclBinding b;
  b.resource_type = code_to(type, ResourceType::kTransactionalId);
  b.resource_name = name;
  b.pattern_type = code_to(pattern, PatternType::kPrefixed);
  b.principal = principal;
  b.host = host;
  b.operation = code_to(operation, AclOperation::kIdempotentWrite);
  b.permission = code_to(permission, AclPermission::kAllow);
  return b;
}

AclFilter filter_from_codes(int8_t type, std::optional<std::string_view> name, int8_t pattern,
                            std::optional<std::string_view> principal,
                            std::optional<std::string_view> host, int8_t operation,
                            int8_t permission) {
  AclFilter f;
  f.resource_type = code_to(type, ResourceType::kTransactionalId);
  if (name) f.resource_name = std::string(*name);
  f.pattern_type = code_to(pattern, PatternType::kPrefixed);
  if (principal) f.principal = std::string(*principal);
  if (host) f.host = std::string(*host);
  f.operation = code_to(operation, AclOperation::kIdempotentWrite);
  f.permission = code_to(permission, AclPermission::kAllow);
  return f;
}

}  // namespace spillway::broker::security
