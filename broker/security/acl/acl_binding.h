// One access control rule (AclBinding) and the filters that select rules
// (AclFilter), with Kafka's meaning (DescribeAcls/CreateAcls/DeleteAcls carry
// both): a rule says that `principal` connecting from `host` is allowed or
// denied `operation` on the resources that `pattern_type` + `resource_name`
// name (literal: that name, or every name when it is "*"; prefixed: every
// name that starts with it).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "security/acl_types.h"
#include "spillway/common/status.h"

namespace spillway::broker::security {

inline constexpr std::string_view kWildcardResource = "*";
inline constexpr std::string_view kWildcardPrincipal = "User:*";
inline constexpr std::string_view kWildcardHost = "*";

struct AclBinding {
  ResourceType resource_type = ResourceType::kTopic;
  std::string resource_name;
  PatternType pattern_type = PatternType::kLiteral;
  std::string principal;  // "User:alice", or "User:*" for everyone
  std::string host = std::string(kWildcardHost);
  AclOperation operation = AclOperation::kAll;
  AclPermission permission = AclPermission::kAllow;

  friend bool operator==(const AclBinding&, const AclBinding&) = default;
};

// Selects rules (DescribeAcls, DeleteAcls). A missing name, principal or
// host matches any; the enums' kAny matches any value. pattern_type kMatch
// with a name selects every rule that would apply to a resource of that
// name: the literal rule, the literal "*" rule and the prefixed rules whose
// prefix the name starts with.
struct AclFilter {
  ResourceType resource_type = ResourceType::kAny;
  std::optional<std::string> resource_name;
  PatternType pattern_type = PatternType::kAny;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  AclOperation operation = AclOperation::kAny;
  AclPermission permission = AclPermission::kAny;
};

bool matches(const AclFilter& filter, const AclBinding& binding);

// A rule that can be stored: concrete resource type, pattern, operation and
// permission (no kAny/kMatch/kUnknown), a "Type:name" principal, a
// non-empty name ("kafka-cluster" for the cluster) and host. kInvalidArgument
// naming what is wrong.
Status validate_binding(const AclBinding& binding);

// A rule and a filter from the codes both protocols' ACL requests carry
// (Kafka's numbering, acl_types.h). A code past an enum's last becomes
// kUnknown, which validate_binding / validate_filter refuse; a filter's
// missing strings match anything.
AclBinding binding_from_codes(int8_t type, std::string_view name, int8_t pattern,
                              std::string_view principal, std::string_view host, int8_t operation,
                              int8_t permission);
AclFilter filter_from_codes(int8_t type, std::optional<std::string_view> name, int8_t pattern,
                            std::optional<std::string_view> principal,
                            std::optional<std::string_view> host, int8_t operation,
                            int8_t permission);
// A filter DescribeAcls/DeleteAcls can use: no kUnknown anywhere.
Status validate_filter(const AclFilter& filter);

// Names as Kafka's tools spell them ("Topic", "Prefixed", "Read", "Allow"),
// for messages, the CLI and docs; and back (case-insensitive, "_" and "-"
// ignored), kUnknown when not a name.
std::string_view resource_type_name(ResourceType type);
std::string_view pattern_type_name(PatternType type);
std::string_view operation_name(AclOperation operation);
std::string_view permission_name(AclPermission permission);
ResourceType parse_resource_type(std::string_view text);
PatternType parse_pattern_type(std::string_view text);
AclOperation parse_operation(std::string_view text);
AclPermission parse_permission(std::string_view text);

// "Allow User:alice from * Read on Topic:LITERAL:orders", for logs and the CLI.
std::string describe(const AclBinding& binding);

}  // namespace spillway::broker::security
