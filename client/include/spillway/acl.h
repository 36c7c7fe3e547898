// Access control rules as the client sees them (Admin::describe_acls,
// create_acls, delete_acls; `spillway acl`). The enums carry the broker's
// numbers (Kafka's, docs/protocol.md "DescribeAcls"), so they pass through
// unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"

namespace spillway {

enum class AclResourceType : int8_t {
  kUnknown = 0,
  kAny = 1,
  kTopic = 2,
  kGroup = 3,
  kCluster = 4,  // named kAclClusterName
  kTransactionalId = 5,
};
// kAny and kMatch select rules (filters) only; a rule is literal or prefixed.
enum class AclPatternType : int8_t {
  kUnknown = 0,
  kAny = 1,
  kMatch = 2,
  kLiteral = 3,
  kPrefixed = 4
};
enum class AclOperation : int8_t {
  kUnknown = 0,
  kAny = 1,
  kAll = 2,
  kRead = 3,
  kWrite = 4,
  kCreate = 5,
  kDelete = 6,
  kAlter = 7,
  kDescribe = 8,
  kClusterAction = 9,
  kDescribeConfigs = 10,
  kAlterConfigs = 11,
  kIdempotentWrite = 12,
};
enum class AclPermission : int8_t { kUnknown = 0, kAny = 1, kDeny = 2, kAllow = 3 };

// The cluster's resource name.
inline constexpr std::string_view kAclClusterName = "kafka-cluster";

// One rule: `principal` ("User:alice", "User:*") connecting from `host`
// ("*": anywhere) is allowed or denied `operation` on the resources
// `pattern_type` + `resource_name` name.
struct AclRule {
  AclResourceType resource_type = AclResourceType::kTopic;
  std::string resource_name;
  AclPatternType pattern_type = AclPatternType::kLiteral;
  std::string principal;
  std::string host = "*";
  AclOperation operation = AclOperation::kAll;
  AclPermission permission = AclPermission::kAllow;

  friend bool operator==(const AclRule&, const AclRule&) = default;
};

// Selects rules: kAny and an unset string match anything.
struct AclRuleFilter {
  AclResourceType resource_type = AclResourceType::kAny;
  std::optional<std::string> resource_name;
  AclPatternType pattern_type = AclPatternType::kAny;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  AclOperation operation = AclOperation::kAny;
  AclPermission permission = AclPermission::kAny;
};

// What one filter of Admin::delete_acls did.
struct AclDeletion {
  Status status;  // why nothing was removed, or Ok
  std::vector<AclRule> removed;
};

// Names as Kafka's tools spell them ("Topic", "Prefixed", "IdempotentWrite",
// "Allow"); parsing ignores case, '-' and '_' and gives kUnknown for
// anything else.
std::string_view acl_name(AclResourceType type);
std::string_view acl_name(AclPatternType type);
std::string_view acl_name(AclOperation operation);
std::string_view acl_name(AclPermission permission);
AclResourceType parse_acl_resource_type(std::string_view text);
AclPatternType parse_acl_pattern_type(std::string_view text);
AclOperation parse_acl_operation(std::string_view text);

}  // namespace spillway
