// AclAuthorizer::allowed() on a core allocates nothing: literal, wildcard
// and prefixed rules, allowed and denied answers. operator new is counted
// in this binary only (tests/support/alloc_counter).
#include <gtest/gtest.h>

#include <string>

#include "alloc_counter.h"
#include "runtime/core_set.h"
#include "security/acl/acl_authorizer.h"

namespace spillway::broker::security {
namespace {

TEST(AclAllocations, AllowedOnACoreAllocatesNothing) {
  std::vector<AclBinding> rules;
  for (int i = 0; i < 100; ++i) {
    rules.push_back({ResourceType::kTopic, "topic-" + std::to_string(i), PatternType::kLiteral,
                     "User:u" + std::to_string(i % 7), "*", AclOperation::kWrite,
                     AclPermission::kAllow});
  }
  rules.push_back({ResourceType::kTopic, "logs-", PatternType::kPrefixed, "User:*", "*",
                   AclOperation::kRead, AclPermission::kAllow});
  rules.push_back({ResourceType::kTopic, "*", PatternType::kLiteral, "User:evil", "*",
                   AclOperation::kAll, AclPermission::kDeny});
  rules.push_back({ResourceType::kGroup, "g", PatternType::kLiteral, "User:u1", "*",
                   AclOperation::kRead, AclPermission::kAllow});
  AclAuthorizer authorizer({"User:admin"}, 2,
                           std::make_shared<const AclSnapshot>(std::move(rules), 1));
  ConnectionSecurity who;
  who.principal = "User:u1";
  who.host = "127.0.0.1";
  const CoreSet::Binding on_core(1);

  int allowed = 0;
  testing::AllocationScope scope;
  for (int i = 0; i < 10000; ++i) {
    allowed += authorizer.allowed(who, AclOperation::kWrite, ResourceType::kTopic, "topic-8");
    allowed += authorizer.allowed(who, AclOperation::kDescribe, ResourceType::kTopic, "topic-1");
    allowed += authorizer.allowed(who, AclOperation::kRead, ResourceType::kTopic, "logs-app");
    allowed += authorizer.allowed(who, AclOperation::kRead, ResourceType::kGroup, "g");
    allowed += authorizer.allowed(who, AclOperation::kRead, ResourceType::kTopic, "nope");
    allowed +=
        authorizer.allowed("User:evil", "h", AclOperation::kRead, ResourceType::kTopic, "logs-app");
    allowed += authorizer.allowed("User:admin", "h", AclOperation::kAll, ResourceType::kCluster,
                                  "kafka-cluster");
  }
  EXPECT_EQ(scope.thread_allocations(), 0u);
  EXPECT_EQ(allowed, 10000 * 5);
}

}  // namespace
}  // namespace spillway::broker::security
