// Parser and matcher of the TLS principal mapping rules.
#include "principal_mapping.h"

#include <cctype>

namespace spillway::broker::security {

namespace {

// Reads up to the next unescaped '/', turning "\/" into '/' (other escapes
// are left for the regex). False if there is no closing '/'.
bool read_part(std::string_view text, size_t* pos, std::string* out) {
  while (*pos < text.size()) {
    const char c = text[*pos];
    if (c == '\\' && *pos + 1 < text.size()) {
      if (text[*pos + 1] == '/') {
        out->push_back('/');
      } else {
        out->push_back(c);
        out->push_back(text[*pos + 1]);
      }
      *pos += 2;
      continue;
    }
    ++*pos;
    if (c == '/') return true;
    out->push_back(c);
  }
  return false;
}

Status bad_rule(std::string_view text, size_t at, std::string_view why) {
  return Status(ErrorCode::kConfig, "[tls] principal_mapping_rules: " + std::string(why) +
                                        " at \"" + std::string(text.substr(at, 40)) + "\"");
}

}  // namespace

Result<PrincipalMapper> PrincipalMapper::parse(std::string_view text) {
  PrincipalMapper mapper;
  size_t pos = 0;
  for (;;) {
    while (pos < text.size() &&
           (std::isspace(static_cast<unsigned char>(text[pos])) != 0 || text[pos] == ',')) {
      ++pos;
    }
    if (pos >= text.size()) break;
    const std::string_view rest = text.substr(pos);
    if (rest.starts_with("DEFAULT")) {
      mapper.rules_.push_back(Rule{});
      pos += 7;
      continue;
    }
    if (!rest.starts_with("RULE:")) return bad_rule(text, pos, "expected RULE: or DEFAULT");
    const size_t start = pos;
    pos += 5;
    std::string pattern;
    std::string replacement;
    if (!read_part(text, &pos, &pattern) || !read_part(text, &pos, &replacement)) {
      return bad_rule(text, start, "expected RULE:pattern/replacement/[L|U]");
    }
    Rule rule;
    rule.is_default = false;
    try {
      rule.pattern = std::regex(pattern);
    } catch (const std::regex_error& e) {
      return bad_rule(text, start, std::string("invalid pattern (") + e.what() + ")");
    }
    rule.replacement = std::move(replacement);
    if (pos < text.size() && (text[pos] == 'L' || text[pos] == 'U')) rule.case_fold = text[pos++];
    mapper.rules_.push_back(std::move(rule));
  }
  return mapper;
}

std::string PrincipalMapper::map(const std::string& subject) const {
  for (const Rule& rule : rules_) {
    if (rule.is_default) return subject;
    std::smatch match;
    if (!std::regex_match(subject, match, rule.pattern)) continue;
    std::string out = match.format(rule.replacement);
    for (char& c : out) {
      if (rule.case_fold == 'L') c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (rule.case_fold == 'U') c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return out;
  }
  return subject;
}

}  // namespace spillway::broker::security
