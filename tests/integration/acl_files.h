// Writes an ACL file into a data directory before the broker starts, for
// tests that run a broker with authorization on and rules already in place
// (security/acl/acl_store.h is the format).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "security/acl/acl_store.h"

namespace spillway::testing {

inline void write_acls(const std::filesystem::path& data_dir,
                       const std::vector<broker::security::AclBinding>& rules) {
  broker::security::AclStore store(storage::posix_file_system(), data_dir.string());
  const Status st = store.save(rules);
  ASSERT_TRUE(st.ok()) << st.message();
}

// What the steady-state allocation tests grant User:ANONYMOUS with
// authorization on: Create on the cluster, Read and Write on the topics
// named "alloc..." (a prefixed rule), among rules for other principals
// (literal, prefixed and wildcard) that the checks must look past.
inline std::vector<broker::security::AclBinding> allocation_test_acls() {
  using namespace broker::security;
  std::vector<AclBinding> rules = {
      {ResourceType::kCluster, "kafka-cluster", PatternType::kLiteral, "User:ANONYMOUS", "*",
       AclOperation::kCreate, AclPermission::kAllow},
      {ResourceType::kTopic, "alloc", PatternType::kPrefixed, "User:ANONYMOUS", "*",
       AclOperation::kWrite, AclPermission::kAllow},
      {ResourceType::kTopic, "alloc", PatternType::kPrefixed, "User:ANONYMOUS", "*",
       AclOperation::kRead, AclPermission::kAllow},
      {ResourceType::kTopic, "*", PatternType::kLiteral, "User:mallory", "*", AclOperation::kAll,
       AclPermission::kDeny},
  };
  for (int i = 0; i < 50; ++i) {
    rules.push_back({ResourceType::kTopic, "other-" + std::to_string(i), PatternType::kLiteral,
                     "User:u" + std::to_string(i), "*", AclOperation::kWrite,
                     AclPermission::kAllow});
    rules.push_back({ResourceType::kTopic, "al" + std::to_string(i), PatternType::kPrefixed,
                     "User:u" + std::to_string(i), "*", AclOperation::kRead,
                     AclPermission::kAllow});
  }
  return rules;
}

}  // namespace spillway::testing
