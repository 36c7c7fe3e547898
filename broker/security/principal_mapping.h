// The TLS principal mapping: how a client certificate's subject becomes a
// principal name, in the simple form of Kafka's ssl.principal.mapping.rules:
// rules tried in order, the first whose pattern matches the whole subject
// wins, e.g.
//   RULE:^CN=([^,]+),OU=eng.*$/$1/L, DEFAULT
// `RULE:pattern/replacement/` rewrites with ECMAScript regex groups ($1);
// a trailing L or U lower- or upper-cases the result. DEFAULT (and a
// subject no rule matches) keeps the subject as it is, in RFC 2253 form
// ("CN=alice,OU=eng,O=Example"), as Kafka does.
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"

namespace spillway::broker::security {

class PrincipalMapper {
 public:
  PrincipalMapper() = default;  // DEFAULT only
  // Error (kConfig) names the rule at fault.
  static Result<PrincipalMapper> parse(std::string_view rules);
  // The principal name (without "User:") for `subject`.
  std::string map(const std::string& subject) const;

 private:
  struct Rule {
    bool is_default = true;
    std::regex pattern;
    std::string replacement;
    char case_fold = 0;  // 0, 'L' or 'U'
  };
  std::vector<Rule> rules_;
};

}  // namespace spillway::broker::security
