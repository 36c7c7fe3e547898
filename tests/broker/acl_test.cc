// The ACL model and authorizer: Kafka's filter semantics, deny over allow,
// implied operations, wildcards, prefixes, super-users, and the file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <asio/io_context.hpp>
#include <filesystem>
#include <string>

#include "security/acl/acl_authorizer.h"
#include "security/acl/acl_binding.h"
#include "security/acl/acl_manager.h"
#include "security/acl/acl_snapshot.h"
#include "security/acl/acl_store.h"

namespace spillway::broker::security {
namespace {

using Op = AclOperation;
using RT = ResourceType;

AclBinding rule(RT type, std::string name, PatternType pattern, std::string principal, Op op,
                AclPermission permission = AclPermission::kAllow, std::string host = "*") {
  return AclBinding{type, std::move(name), pattern, std::move(principal), std::move(host),
                    op,   permission};
}

AclBinding allow_topic(std::string name, std::string principal, Op op) {
  return rule(RT::kTopic, std::move(name), PatternType::kLiteral, std::move(principal), op);
}

bool check(const AclSnapshot& s, std::string_view principal, Op op, RT type, std::string_view name,
           std::string_view host = "127.0.0.1") {
  return s.allowed(principal, host, op, type, name);
}

TEST(AclSnapshot, DefaultDeny) {
  const AclSnapshot s({}, 1);
  EXPECT_FALSE(check(s, "User:alice", Op::kRead, RT::kTopic, "a"));
}

TEST(AclSnapshot, WriteOnADoesNotGiveReadOrB) {
  const AclSnapshot s({allow_topic("a", "User:alice", Op::kWrite)}, 1);
  EXPECT_TRUE(check(s, "User:alice", Op::kWrite, RT::kTopic, "a"));
  EXPECT_FALSE(check(s, "User:alice", Op::kRead, RT::kTopic, "a"));
  EXPECT_FALSE(check(s, "User:alice", Op::kWrite, RT::kTopic, "b"));
  EXPECT_FALSE(check(s, "User:bob", Op::kWrite, RT::kTopic, "a"));
  EXPECT_FALSE(check(s, "User:alice", Op::kWrite, RT::kGroup, "a"));
  EXPECT_FALSE(check(s, "User:alice", Op::kCreate, RT::kTopic, "a"));
  EXPECT_FALSE(check(s, "User:alice", Op::kDelete, RT::kTopic, "a"));
}

TEST(AclSnapshot, ImpliedOperations) {
  for (Op granted : {Op::kRead, Op::kWrite, Op::kDelete, Op::kAlter}) {
    const AclSnapshot s({allow_topic("t", "User:u", granted)}, 1);
    EXPECT_TRUE(check(s, "User:u", Op::kDescribe, RT::kTopic, "t")) << static_cast<int>(granted);
  }
  const AclSnapshot create({allow_topic("t", "User:u", Op::kCreate)}, 1);
  EXPECT_FALSE(check(create, "User:u", Op::kDescribe, RT::kTopic, "t"));
  const AclSnapshot alter_configs({allow_topic("t", "User:u", Op::kAlterConfigs)}, 1);
  EXPECT_TRUE(check(alter_configs, "User:u", Op::kDescribeConfigs, RT::kTopic, "t"));
  EXPECT_FALSE(check(alter_configs, "User:u", Op::kDescribe, RT::kTopic, "t"));
  const AclSnapshot all({allow_topic("t", "User:u", Op::kAll)}, 1);
  for (Op op : {Op::kRead, Op::kWrite, Op::kCreate, Op::kDelete, Op::kAlter, Op::kDescribe,
                Op::kDescribeConfigs, Op::kAlterConfigs, Op::kIdempotentWrite}) {
    EXPECT_TRUE(check(all, "User:u", op, RT::kTopic, "t"));
  }
}

TEST(AclSnapshot, DenyWins) {
  const AclSnapshot s(
      {allow_topic("t", "User:u", Op::kAll),
       rule(RT::kTopic, "t", PatternType::kLiteral, "User:u", Op::kRead, AclPermission::kDeny)},
      1);
  EXPECT_FALSE(check(s, "User:u", Op::kRead, RT::kTopic, "t"));
  EXPECT_TRUE(check(s, "User:u", Op::kWrite, RT::kTopic, "t"));
  // Denying Read does not deny the Describe that other rules imply.
  EXPECT_TRUE(check(s, "User:u", Op::kDescribe, RT::kTopic, "t"));

  // A deny through a wildcard or a prefix beats a literal allow.
  const AclSnapshot p({allow_topic("secret-x", "User:u", Op::kRead),
                       rule(RT::kTopic, "secret-", PatternType::kPrefixed, "User:*", Op::kAll,
                            AclPermission::kDeny)},
                      1);
  EXPECT_FALSE(check(p, "User:u", Op::kRead, RT::kTopic, "secret-x"));
}

TEST(AclSnapshot, Wildcards) {
  const AclSnapshot s({rule(RT::kTopic, "*", PatternType::kLiteral, "User:*", Op::kRead)}, 1);
  EXPECT_TRUE(check(s, "User:anyone", Op::kRead, RT::kTopic, "whatever"));
  EXPECT_FALSE(check(s, "User:anyone", Op::kRead, RT::kGroup, "whatever"));
  const AclSnapshot h({rule(RT::kTopic, "t", PatternType::kLiteral, "User:u", Op::kRead,
                            AclPermission::kAllow, "10.0.0.1")},
                      1);
  EXPECT_TRUE(check(h, "User:u", Op::kRead, RT::kTopic, "t", "10.0.0.1"));
  EXPECT_FALSE(check(h, "User:u", Op::kRead, RT::kTopic, "t", "10.0.0.2"));
  // "*" is a wildcard only as a literal name, not inside a prefix.
  const AclSnapshot star({rule(RT::kTopic, "*", PatternType::kPrefixed, "User:u", Op::kRead)}, 1);
  EXPECT_FALSE(check(star, "User:u", Op::kRead, RT::kTopic, "t"));
  EXPECT_TRUE(check(star, "User:u", Op::kRead, RT::kTopic, "*t"));
}

TEST(AclSnapshot, Prefixed) {
  const AclSnapshot s({rule(RT::kTopic, "orders-", PatternType::kPrefixed, "User:u", Op::kWrite),
                       rule(RT::kTopic, "o", PatternType::kPrefixed, "User:v", Op::kRead)},
                      1);
  EXPECT_TRUE(check(s, "User:u", Op::kWrite, RT::kTopic, "orders-eu"));
  EXPECT_TRUE(check(s, "User:u", Op::kWrite, RT::kTopic, "orders-"));
  EXPECT_FALSE(check(s, "User:u", Op::kWrite, RT::kTopic, "orders"));
  EXPECT_FALSE(check(s, "User:u", Op::kWrite, RT::kTopic, "payments-eu"));
  EXPECT_TRUE(check(s, "User:v", Op::kRead, RT::kTopic, "orders-eu"));
}

TEST(AclFilter, KafkaSemantics) {
  const AclBinding literal = allow_topic("orders", "User:u", Op::kRead);
  const AclBinding star = rule(RT::kTopic, "*", PatternType::kLiteral, "User:u", Op::kRead);
  const AclBinding prefixed = rule(RT::kTopic, "ord", PatternType::kPrefixed, "User:u", Op::kRead);
  AclFilter any;
  EXPECT_TRUE(matches(any, literal));
  EXPECT_TRUE(matches(any, prefixed));

  AclFilter named;
  named.resource_name = "orders";
  EXPECT_TRUE(matches(named, literal));  // ANY pattern: the exact name only
  EXPECT_FALSE(matches(named, star));
  EXPECT_FALSE(matches(named, prefixed));

  AclFilter match = named;
  match.pattern_type = PatternType::kMatch;
  EXPECT_TRUE(matches(match, literal));
  EXPECT_TRUE(matches(match, star));
  EXPECT_TRUE(matches(match, prefixed));

  AclFilter only_prefixed;
  only_prefixed.pattern_type = PatternType::kPrefixed;
  EXPECT_FALSE(matches(only_prefixed, literal));
  EXPECT_TRUE(matches(only_prefixed, prefixed));

  AclFilter by_principal;
  by_principal.principal = "User:v";
  EXPECT_FALSE(matches(by_principal, literal));
  AclFilter by_op;
  by_op.operation = Op::kWrite;
  EXPECT_FALSE(matches(by_op, literal));
  AclFilter by_permission;
  by_permission.permission = AclPermission::kDeny;
  EXPECT_FALSE(matches(by_permission, literal));
  AclFilter by_type;
  by_type.resource_type = RT::kGroup;
  EXPECT_FALSE(matches(by_type, literal));
}

TEST(AclBinding, Validation) {
  EXPECT_TRUE(validate_binding(allow_topic("t", "User:u", Op::kRead)).ok());
  EXPECT_FALSE(validate_binding(allow_topic("t", "alice", Op::kRead)).ok());
  EXPECT_FALSE(validate_binding(allow_topic("", "User:u", Op::kRead)).ok());
  EXPECT_FALSE(validate_binding(allow_topic("t", "User:u", Op::kAny)).ok());
  EXPECT_FALSE(
      validate_binding(rule(RT::kAny, "t", PatternType::kLiteral, "User:u", Op::kRead)).ok());
  EXPECT_FALSE(
      validate_binding(rule(RT::kTopic, "t", PatternType::kMatch, "User:u", Op::kRead)).ok());
  EXPECT_FALSE(
      validate_binding(rule(RT::kCluster, "x", PatternType::kLiteral, "User:u", Op::kAlter)).ok());
  EXPECT_TRUE(validate_binding(
                  rule(RT::kCluster, "kafka-cluster", PatternType::kLiteral, "User:u", Op::kAlter))
                  .ok());
  EXPECT_EQ(parse_operation("DESCRIBE_CONFIGS"), Op::kDescribeConfigs);
  EXPECT_EQ(parse_operation("describe-configs"), Op::kDescribeConfigs);
  EXPECT_EQ(parse_operation("nope"), Op::kUnknown);
  EXPECT_EQ(parse_pattern_type("prefixed"), PatternType::kPrefixed);
}

TEST(AclAuthorizer, SuperUsersAndSwap) {
  auto empty = std::make_shared<const AclSnapshot>(std::vector<AclBinding>{}, 1);
  AclAuthorizer a({"User:admin"}, 0, empty);
  EXPECT_TRUE(a.allowed("User:admin", "h", Op::kDelete, RT::kTopic, "t"));
  EXPECT_FALSE(a.allowed("User:u", "h", Op::kRead, RT::kTopic, "t"));
  a.install_shared(std::make_shared<const AclSnapshot>(
      std::vector<AclBinding>{allow_topic("t", "User:u", Op::kRead)}, 2));
  EXPECT_TRUE(a.allowed("User:u", "h", Op::kRead, RT::kTopic, "t"));
  // An older snapshot never replaces a newer one.
  a.install_shared(empty);
  EXPECT_TRUE(a.allowed("User:u", "h", Op::kRead, RT::kTopic, "t"));

  Result<std::vector<std::string>> su = parse_super_users(" User:admin ; User:ops,");
  ASSERT_TRUE(su.ok());
  EXPECT_EQ(*su, (std::vector<std::string>{"User:admin", "User:ops"}));
  EXPECT_FALSE(parse_super_users("admin").ok());
}

TEST(AclStore, RoundTripAndDamage) {
  const std::vector<AclBinding> rules = {allow_topic("a", "User:u", Op::kWrite),
                                         rule(RT::kGroup, "g-", PatternType::kPrefixed, "User:*",
                                              Op::kRead, AclPermission::kDeny, "10.1.2.3")};
  const std::string bytes = encode_acls(rules);
  Result<std::vector<AclBinding>> back = decode_acls(bytes);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, rules);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x40);
    EXPECT_FALSE(decode_acls(damaged).ok()) << i;
  }
  for (size_t n = 0; n < bytes.size(); ++n) EXPECT_FALSE(decode_acls(bytes.substr(0, n)).ok());
}

class AclManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("acl_manager_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<AclManager> open() {
    Result<std::unique_ptr<AclManager>> m =
        AclManager::open(storage::posix_file_system(), dir_.string(), {"User:admin"}, nullptr);
    EXPECT_TRUE(m.ok()) << m.status().message();
    return m.ok() ? std::move(*m) : nullptr;
  }

  std::filesystem::path dir_;
};

TEST_F(AclManagerTest, ChangesPersistAcrossReopen) {
  asio::io_context io;
  {
    auto m = open();
    ASSERT_NE(m, nullptr);
    std::vector<Status> created;
    m->create({allow_topic("a", "User:u", Op::kWrite), allow_topic("a", "User:u", Op::kWrite),
               allow_topic("b", "User:u", Op::kRead), allow_topic("c", "bad", Op::kRead)},
              io.get_executor(), [&](std::vector<Status> r) { created = std::move(r); });
    io.run();
    io.restart();
    ASSERT_EQ(created.size(), 4u);
    EXPECT_TRUE(created[0].ok());
    EXPECT_TRUE(created[1].ok());  // a duplicate: Ok, stored once
    EXPECT_TRUE(created[2].ok());
    EXPECT_FALSE(created[3].ok());
    EXPECT_EQ(m->matching(AclFilter{}).size(), 2u);
    EXPECT_TRUE(m->authorizer().allowed("User:u", "h", Op::kWrite, RT::kTopic, "a"));

    AclFilter b;
    b.resource_name = "b";
    std::vector<Result<std::vector<AclBinding>>> removed;
    m->remove({b}, io.get_executor(),
              [&](std::vector<Result<std::vector<AclBinding>>> r) { removed = std::move(r); });
    io.run();
    io.restart();
    ASSERT_EQ(removed.size(), 1u);
    ASSERT_TRUE(removed[0].ok());
    EXPECT_EQ(removed[0]->size(), 1u);
    EXPECT_FALSE(m->authorizer().allowed("User:u", "h", Op::kRead, RT::kTopic, "b"));
  }
  auto again = open();
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->matching(AclFilter{}),
            (std::vector<AclBinding>{allow_topic("a", "User:u", Op::kWrite)}));
  EXPECT_TRUE(again->authorizer().allowed("User:u", "h", Op::kWrite, RT::kTopic, "a"));
}

TEST_F(AclManagerTest, DamagedFileIsAnErrorAtStart) {
  std::filesystem::create_directories(dir_ / "acls");
  {
    std::FILE* f = std::fopen((dir_ / "acls" / "acls.bin").c_str(), "wb");
    std::fputs("SACLgarbage", f);
    std::fclose(f);
  }
  Result<std::unique_ptr<AclManager>> m =
      AclManager::open(storage::posix_file_system(), dir_.string(), {}, nullptr);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("acls.bin"), std::string_view::npos);
}

}  // namespace
}  // namespace spillway::broker::security
