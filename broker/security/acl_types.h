// The vocabulary of access control lists, numbered as in Kafka's protocol
// (DescribeAcls/CreateAcls/DeleteAcls carry these codes), so the Kafka
// listener passes them through unchanged.
#pragma once

#include <cstdint>

namespace spillway::broker::security {

enum class ResourceType : int8_t {
  kUnknown = 0,
  kAny = 1,  // filters only
  kTopic = 2,
  kGroup = 3,
  kCluster = 4,  // the one resource named "kafka-cluster"
  kTransactionalId = 5,
};

enum class PatternType : int8_t {
  kUnknown = 0,
  kAny = 1,    // filters only
  kMatch = 2,  // filters only: every rule that would apply to the name
  kLiteral = 3,
  kPrefixed = 4,
};

enum class AclOperation : int8_t {
  kUnknown = 0,
  kAny = 1,  // filters only
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

enum class AclPermission : int8_t {
  kUnknown = 0,
  kAny = 1,  // filters only
  kDeny = 2,
  kAllow = 3,
};

// The name of the cluster resource, as Kafka's.
inline constexpr const char* kClusterResourceName = "kafka-cluster";

}  // namespace spillway::broker::security
