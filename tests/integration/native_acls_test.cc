// ACLs through the native protocol (DescribeAcls, CreateAcls, DeleteAcls:
// spillway::Admin) and the `spillway acl` CLI, against the real broker. On
// the plaintext native listener the principal is User:ANONYMOUS: the rules
// are made while ANONYMOUS is a super-user, then the broker restarts on the
// same data directory without that, so ANONYMOUS is held to them.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "broker_process.h"
#include "spillway/acl.h"
#include "spillway/admin.h"

namespace spillway::testing {
namespace {

std::unique_ptr<BrokerProcess> start(const TempDir& dir, bool anonymous_is_super_user) {
  BrokerProcess::Options options;
  options.default_data_dir = false;
  options.args = {"--data-dir",
                  dir.path().string(),
                  "--authorization-enabled",
                  "true",
                  "--authorization-super-users",
                  anonymous_is_super_user ? "User:ANONYMOUS" : "User:admin"};
  auto started = BrokerProcess::start(options);
  EXPECT_TRUE(started.ok()) << started.status().to_string();
  return started.ok() ? std::move(*started) : nullptr;
}

Admin connect(const BrokerProcess& broker) {
  Result<Admin> admin = Admin::connect(broker.address());
  EXPECT_TRUE(admin.ok()) << admin.status().to_string();
  return std::move(admin).value();
}

AclRule topic_rule(const std::string& topic, AclOperation operation,
                   const std::string& principal = "User:ANONYMOUS") {
  return {.resource_type = AclResourceType::kTopic,
          .resource_name = topic,
          .pattern_type = AclPatternType::kLiteral,
          .principal = principal,
          .host = "*",
          .operation = operation,
          .permission = AclPermission::kAllow};
}

std::vector<AclRule> sorted(std::vector<AclRule> rules) {
  auto key = [](const AclRule& r) {
    return std::tuple(r.resource_type, r.resource_name, r.pattern_type, r.principal, r.host,
                      r.operation, r.permission);
  };
  std::sort(rules.begin(), rules.end(),
            [&](const AclRule& a, const AclRule& b) { return key(a) < key(b); });
  return rules;
}

TEST(NativeAcls, SecurityDisabledWithoutAuthorization) {
  auto started = BrokerProcess::start();
  ASSERT_TRUE(started.ok()) << started.status().to_string();
  Admin admin = connect(**started);
  Result<std::vector<AclRule>> listed = admin.describe_acls();
  ASSERT_FALSE(listed.ok());
  EXPECT_EQ(listed.status().code(), ErrorCode::kSecurityDisabled);
  EXPECT_NE(listed.status().message().find("authorization is off"), std::string::npos);
  EXPECT_EQ(admin.create_acls({topic_rule("t", AclOperation::kRead)}).status().code(),
            ErrorCode::kSecurityDisabled);
  EXPECT_EQ(admin.delete_acls({AclRuleFilter{}}).status().code(), ErrorCode::kSecurityDisabled);
}

TEST(NativeAcls, AddListEnforceRemove) {
  TempDir dir;
  const AclRule alice_write = topic_rule("orders", AclOperation::kWrite, "User:alice");
  const AclRule describe_orders = topic_rule("orders", AclOperation::kDescribe);
  AclRule describe_prefixed = topic_rule("pub", AclOperation::kDescribe);
  describe_prefixed.pattern_type = AclPatternType::kPrefixed;
  {
    auto broker = start(dir, true);
    ASSERT_NE(broker, nullptr);
    Admin admin = connect(*broker);
    ASSERT_TRUE(admin.create_topic("orders").ok());
    ASSERT_TRUE(admin.create_topic("secret").ok());
    ASSERT_TRUE(admin.create_topic("public-1").ok());

    AclRule bad = alice_write;
    bad.principal = "alice";  // no "User:"
    Result<std::vector<Status>> created =
        admin.create_acls({alice_write, describe_orders, bad, describe_prefixed});
    ASSERT_TRUE(created.ok()) << created.status().to_string();
    ASSERT_EQ(created->size(), 4u);
    EXPECT_TRUE((*created)[0].ok()) << (*created)[0].to_string();
    EXPECT_TRUE((*created)[1].ok()) << (*created)[1].to_string();
    EXPECT_EQ((*created)[2].code(), ErrorCode::kInvalidArgument);
    EXPECT_TRUE((*created)[3].ok()) << (*created)[3].to_string();
    // A rule already present is Ok and not added twice.
    created = admin.create_acls({alice_write});
    ASSERT_TRUE(created.ok());
    EXPECT_TRUE((*created)[0].ok());

    Result<std::vector<AclRule>> all = admin.describe_acls();
    ASSERT_TRUE(all.ok()) << all.status().to_string();
    EXPECT_EQ(sorted(*all), sorted({alice_write, describe_orders, describe_prefixed}));

    AclRuleFilter alice;
    alice.principal = "User:alice";
    Result<std::vector<AclRule>> of_alice = admin.describe_acls(alice);
    ASSERT_TRUE(of_alice.ok());
    EXPECT_EQ(*of_alice, std::vector<AclRule>{alice_write});

    // Match: every rule that applies to topic "public-1".
    AclRuleFilter match;
    match.resource_type = AclResourceType::kTopic;
    match.resource_name = "public-1";
    match.pattern_type = AclPatternType::kMatch;
    Result<std::vector<AclRule>> matched = admin.describe_acls(match);
    ASSERT_TRUE(matched.ok());
    EXPECT_EQ(*matched, std::vector<AclRule>{describe_prefixed});
  }
  {
    // ANONYMOUS is no longer a super-user: held to the rules.
    auto broker = start(dir, false);
    ASSERT_NE(broker, nullptr);
    Admin admin = connect(*broker);
    EXPECT_TRUE(admin.describe_topic("orders").ok());
    EXPECT_TRUE(admin.describe_topic("public-1").ok());
    Result<TopicDescription> secret = admin.describe_topic("secret");
    ASSERT_FALSE(secret.ok());
    EXPECT_EQ(secret.status().code(), ErrorCode::kTopicAuthorizationFailed);

    // Managing ACLs needs Describe/Alter on the cluster.
    Result<std::vector<AclRule>> listed = admin.describe_acls();
    ASSERT_FALSE(listed.ok());
    EXPECT_EQ(listed.status().code(), ErrorCode::kClusterAuthorizationFailed);
    EXPECT_EQ(admin.create_acls({topic_rule("secret", AclOperation::kAll)}).status().code(),
              ErrorCode::kClusterAuthorizationFailed);
    EXPECT_EQ(admin.delete_acls({AclRuleFilter{}}).status().code(),
              ErrorCode::kClusterAuthorizationFailed);
  }
  {
    auto broker = start(dir, true);
    ASSERT_NE(broker, nullptr);
    Admin admin = connect(*broker);
    AclRuleFilter orders;
    orders.resource_type = AclResourceType::kTopic;
    orders.resource_name = "orders";
    AclRuleFilter nothing;
    nothing.principal = "User:nobody";
    AclRuleFilter unknown;
    unknown.operation = AclOperation::kUnknown;
    Result<std::vector<AclDeletion>> deleted = admin.delete_acls({orders, nothing, unknown});
    ASSERT_TRUE(deleted.ok()) << deleted.status().to_string();
    ASSERT_EQ(deleted->size(), 3u);
    EXPECT_TRUE((*deleted)[0].status.ok());
    EXPECT_EQ(sorted((*deleted)[0].removed), sorted({alice_write, describe_orders}));
    EXPECT_TRUE((*deleted)[1].status.ok());
    EXPECT_TRUE((*deleted)[1].removed.empty());
    EXPECT_EQ((*deleted)[2].status.code(), ErrorCode::kInvalidArgument);

    Result<std::vector<AclRule>> all = admin.describe_acls();
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(*all, std::vector<AclRule>{describe_prefixed});
  }
  {
    auto broker = start(dir, false);
    ASSERT_NE(broker, nullptr);
    Admin admin = connect(*broker);
    EXPECT_EQ(admin.describe_topic("orders").status().code(), ErrorCode::kTopicAuthorizationFailed);
    EXPECT_TRUE(admin.describe_topic("public-1").ok());
  }
}

// `spillway acl` as docs/security.md's walk-through uses it.
class AclCli : public ::testing::Test {
 protected:
  ProcessExit cli(const BrokerProcess& broker, std::vector<std::string> args) {
    args.push_back("--broker");
    args.push_back(broker.address());
    Result<ProcessExit> r = run_process(cli_binary(), args);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? *r : ProcessExit{};
  }
};

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST_F(AclCli, AddListRemove) {
  TempDir dir;
  auto broker = start(dir, true);
  ASSERT_NE(broker, nullptr);
  ProcessExit r = cli(*broker, {"acl", "add", "--allow-principal", "User:alice", "--operation",
                                "Write", "--operation", "Describe", "--topic", "orders"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = cli(*broker, {"acl", "add", "--allow-principal", "User:alice", "--operation", "read",
                    "--group", "orders-audit"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = cli(*broker, {"acl", "add", "--deny-principal", "User:bob", "--operation", "ALL", "--topic",
                    "orders", "--resource-pattern-type", "prefixed", "--host", "10.0.0.1"});
  EXPECT_EQ(r.exit_code, 0) << r.output;

  r = cli(*broker, {"acl", "list"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "User:alice ALLOW Write on topic orders (literal) from *\n"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "User:alice ALLOW Describe on topic orders (literal) from *\n"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "User:alice ALLOW Read on group orders-audit (literal) from *\n"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "User:bob DENY All on topic orders (prefixed) from 10.0.0.1\n"))
      << r.output;

  r = cli(*broker, {"acl", "list", "--group", "orders-audit"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "User:alice ALLOW Read on group orders-audit (literal) from *\n");

  r = cli(*broker, {"acl", "list", "--topic", "orders-2024", "--resource-pattern-type", "match"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "User:bob DENY All on topic orders (prefixed) from 10.0.0.1\n");

  r = cli(*broker, {"acl", "remove", "--allow-principal", "User:alice", "--operation", "Write",
                    "--topic", "orders"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "removed: User:alice ALLOW Write on topic orders (literal)"))
      << r.output;
  r = cli(*broker, {"acl", "list", "--topic", "orders"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "User:alice ALLOW Describe on topic orders (literal) from *\n");

  // Usage errors exit 2 before connecting.
  EXPECT_EQ(cli(*broker, {"acl", "add", "--allow-principal", "User:a", "--operation", "Bogus",
                          "--topic", "x"})
                .exit_code,
            2);
  EXPECT_EQ(cli(*broker, {"acl", "add", "--allow-principal", "User:a", "--operation", "Read",
                          "--topic", "x", "--group", "y"})
                .exit_code,
            2);
  EXPECT_EQ(
      cli(*broker, {"acl", "add", "--allow-principal", "User:a", "--operation", "Read"}).exit_code,
      2);
  EXPECT_EQ(cli(*broker,
                {"acl", "add", "--allow-principal", "alice", "--operation", "Read", "--topic", "x"})
                .exit_code,
            2);
  EXPECT_EQ(cli(*broker, {"acl", "remove"}).exit_code, 2);
}

TEST_F(AclCli, FailuresExitOneWithTheBrokersMessage) {
  {
    auto started = BrokerProcess::start();
    ASSERT_TRUE(started.ok()) << started.status().to_string();
    ProcessExit r = cli(**started, {"acl", "list"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(contains(r.output, "spillway acl: ")) << r.output;
    EXPECT_TRUE(contains(r.output, "authorization is off")) << r.output;
  }
  TempDir dir;
  auto broker = start(dir, false);
  ASSERT_NE(broker, nullptr);
  ProcessExit r = cli(*broker, {"acl", "add", "--allow-principal", "User:alice", "--operation",
                                "Write", "--topic", "orders"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output,
                       "spillway acl: not authorized to add ACLs (CreateAcls needs Alter "
                       "on the cluster)"))
      << r.output;
  r = cli(*broker, {"acl", "list"});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "not authorized to list ACLs")) << r.output;
}

}  // namespace
}  // namespace spillway::testing
