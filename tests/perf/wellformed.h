// Small strict checkers for the tests: is a string one complete JSON value,
// is it a well-formed XML document (balanced, quoted attributes, no stray
// '&' or '<')? Written here so the tests need no parser dependency.
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace spillway::perf::testing {

class JsonChecker {
 public:
  // True iff `text` is exactly one JSON value, optionally surrounded by whitespace.
  static bool valid(std::string_view text) {
    JsonChecker c(text);
    c.skip_ws();
    if (!c.value()) return false;
    c.skip_ws();
    return c.pos_ == text.size();
  }

 private:
  explicit JsonChecker(std::string_view t) : t_(t) {}
  bool eof() const { return pos_ >= t_.size(); }
  char peek() const { return eof() ? '\0' : t_[pos_]; }
  void skip_ws() {
    while (!eof() && (peek() == ' ' || peek() == '\n' || peek() == '\t' || peek() == '\r')) ++pos_;
  }
  bool literal(std::string_view word) {
    if (t_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool string() {
    if (peek() != '"') return false;
    ++pos_;
    while (!eof()) {
      const char c = t_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c == '\\') {
        if (eof()) return false;
        const char e = t_[pos_++];
        if (e == 'u') {
          for (int i = 0; i < 4; ++i)
            if (eof() || !std::isxdigit(static_cast<unsigned char>(t_[pos_++]))) return false;
        } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          return false;
        }
      }
    }
    return false;
  }
  bool digits() {
    const size_t start = pos_;
    while (!eof() && std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
    return pos_ > start;
  }
  bool number() {
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (!digits()) {
      return false;
    }
    if (peek() == '.') {
      ++pos_;
      if (!digits()) return false;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!digits()) return false;
    }
    return true;
  }
  bool value() {
    skip_ws();
    switch (peek()) {
      case '{': {
        ++pos_;
        skip_ws();
        if (peek() == '}') return ++pos_, true;
        for (;;) {
          skip_ws();
          if (!string()) return false;
          skip_ws();
          if (peek() != ':') return false;
          ++pos_;
          if (!value()) return false;
          skip_ws();
          if (peek() == '}') return ++pos_, true;
          if (peek() != ',') return false;
          ++pos_;
        }
      }
      case '[': {
        ++pos_;
        skip_ws();
        if (peek() == ']') return ++pos_, true;
        for (;;) {
          if (!value()) return false;
          skip_ws();
          if (peek() == ']') return ++pos_, true;
          if (peek() != ',') return false;
          ++pos_;
        }
      }
      case '"':
        return string();
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return number();
    }
  }

  std::string_view t_;
  size_t pos_ = 0;
};

// Checks XML well-formedness for the subset an SVG writer produces: an
// optional <?xml ...?> declaration, elements with quoted attributes, text,
// the five predefined entities and numeric character references.
// Returns "" when well-formed, else what is wrong. `root` receives the
// root element's name.
inline std::string xml_problem(std::string_view t, std::string* root) {
  std::vector<std::string> open;
  size_t i = 0;
  bool seen_root = false;
  auto is_name = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
           c == '.';
  };
  if (t.substr(0, 5) == "<?xml") {
    i = t.find("?>");
    if (i == std::string_view::npos) return "unterminated declaration";
    i += 2;
  }
  while (i < t.size()) {
    if (t[i] == '&') {
      const size_t semi = t.find(';', i);
      if (semi == std::string_view::npos) return "bare &";
      const std::string_view ent = t.substr(i + 1, semi - i - 1);
      if (ent != "amp" && ent != "lt" && ent != "gt" && ent != "quot" && ent != "apos" &&
          !(ent.size() > 1 && ent[0] == '#'))
        return "unknown entity &" + std::string(ent) + ";";
      i = semi + 1;
      continue;
    }
    if (t[i] == '>') return "stray > in text";
    if (t[i] != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(t[i])))
        return "text outside the root element";
      ++i;
      continue;
    }
    ++i;
    const bool closing = i < t.size() && t[i] == '/';
    if (closing) ++i;
    const size_t name_start = i;
    while (i < t.size() && is_name(t[i])) ++i;
    const std::string name(t.substr(name_start, i - name_start));
    if (name.empty()) return "tag without a name";
    if (closing) {
      if (open.empty() || open.back() != name) return "mismatched </" + name + ">";
      open.pop_back();
      while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
      if (i >= t.size() || t[i] != '>') return "bad closing tag " + name;
      ++i;
      continue;
    }
    if (open.empty()) {
      if (seen_root) return "second root element " + name;
      seen_root = true;
      if (root != nullptr) *root = name;
    }
    // Attributes: name="value" with no '<' or bare '&' inside the value.
    for (;;) {
      while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
      if (i >= t.size()) return "unterminated tag " + name;
      if (t[i] == '>') {
        open.push_back(name);
        ++i;
        break;
      }
      if (t.substr(i, 2) == "/>") {
        i += 2;
        break;
      }
      const size_t attr_start = i;
      while (i < t.size() && is_name(t[i])) ++i;
      if (i == attr_start) return "bad attribute in " + name;
      if (i >= t.size() || t[i] != '=') return "attribute without value in " + name;
      ++i;
      if (i >= t.size() || t[i] != '"') return "unquoted attribute in " + name;
      const size_t end = t.find('"', i + 1);
      if (end == std::string_view::npos) return "unterminated attribute in " + name;
      const std::string_view value = t.substr(i + 1, end - i - 1);
      if (value.find('<') != std::string_view::npos) return "< in attribute of " + name;
      for (size_t a = value.find('&'); a != std::string_view::npos; a = value.find('&', a + 1)) {
        if (value.find(';', a) == std::string_view::npos) return "bare & in attribute";
      }
      i = end + 1;
    }
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (!seen_root) return "no root element";
  return "";
}

}  // namespace spillway::perf::testing
