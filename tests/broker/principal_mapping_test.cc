// The TLS principal mapping rules (Kafka's ssl.principal.mapping.rules,
// simple form).
#include "security/principal_mapping.h"

#include <gtest/gtest.h>

namespace spillway::broker::security {
namespace {

std::string map(std::string_view rules, const std::string& subject) {
  Result<PrincipalMapper> mapper = PrincipalMapper::parse(rules);
  EXPECT_TRUE(mapper.ok()) << mapper.status().to_string();
  return mapper.ok() ? mapper->map(subject) : "";
}

TEST(PrincipalMapping, DefaultKeepsTheSubject) {
  EXPECT_EQ(map("DEFAULT", "CN=alice,OU=eng,O=Example"), "CN=alice,OU=eng,O=Example");
  EXPECT_EQ(map("", "CN=alice,O=x"), "CN=alice,O=x");
}

TEST(PrincipalMapping, FirstMatchingRuleWinsWithCaseFolding) {
  const std::string rules =
      "RULE:^CN=([^,]+),OU=ops,.*$/ops-$1/, RULE:^CN=([^,]+),.*$/$1/L, DEFAULT";
  EXPECT_EQ(map(rules, "CN=Bob,OU=ops,O=Example"), "ops-Bob");
  EXPECT_EQ(map(rules, "CN=Alice,OU=eng,O=Example"), "alice");
  EXPECT_EQ(map("RULE:^CN=([^,]+)$/$1/U", "CN=carol"), "CAROL");
  // No rule matches and no DEFAULT: the subject as it is.
  EXPECT_EQ(map("RULE:^CN=x$/y/", "CN=z,O=q"), "CN=z,O=q");
}

TEST(PrincipalMapping, EscapedSlashAndCommasInsideAPattern) {
  EXPECT_EQ(map("RULE:^CN=([^,]+),O=a\\/b$/$1@ab/", "CN=dan,O=a/b"), "dan@ab");
}

TEST(PrincipalMapping, MalformedRulesAreConfigErrors) {
  for (std::string_view bad : {"RULE:unterminated", "RULE:^(x/y/", "NOPE", "RULE:a/b"}) {
    Result<PrincipalMapper> mapper = PrincipalMapper::parse(bad);
    ASSERT_FALSE(mapper.ok()) << bad;
    EXPECT_EQ(mapper.status().code(), ErrorCode::kConfig);
    EXPECT_NE(std::string(mapper.status().message()).find("principal_mapping_rules"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace spillway::broker::security
