// The man page writer (man_page.h).
#include "app_tree/man_page.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "app_tree/command_tree.h"

namespace spillway::cli {

namespace {

// One UTF-8 sequence at text[*i] as roff's \[uXXXX]; bytes that are not
// valid UTF-8 become \[uFFFD] (the replacement character).
std::string unicode_escape(std::string_view text, size_t* i) {
  const auto byte = static_cast<unsigned char>(text[*i]);
  const size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 0;
  uint32_t code = length == 4 ? byte & 0x07 : length == 3 ? byte & 0x0F : byte & 0x1F;
  bool valid = length != 0 && *i + length <= text.size();
  for (size_t k = 1; valid && k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[*i + k]);
    valid = (next & 0xC0) == 0x80;
    code = (code << 6) | (next & 0x3F);
  }
  *i += valid ? length - 1 : 0;
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "\\[u%04X]", valid ? code : 0xFFFDu);
  return buffer;
}

// Text as roff input: each line escaped, and a line that would start with a
// control character ('.' or '\'') guarded with \&.
std::string roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = c == '\n';
    if (c == '\\') {
      out += "\\e";
    } else if ((c == ':' || c == ',') && i + 1 < text.size() && text[i + 1] != ' ' &&
               text[i + 1] != '\n') {
      // A break point (\:, invisible) after separators inside long words
      // (cipher lists, URLs), which could not be fitted to a line otherwise.
      out += c;
      out += "\\:";
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      out += unicode_escape(text, &i);
    } else {
      out += c;
    }
  }
  return out;
}

// A name typed as is (options, commands): hyphens are minus signs, so the
// page can be searched and copied from.
// Help text whose lines stay lines (the broker's second line of each
// setting names its config key), each filled as roff text.
std::string roff_lines(std::string_view text) {
  std::string out = roff(text);
  for (size_t at = out.find('\n'); at != std::string::npos; at = out.find('\n', at + 5)) {
    out.replace(at, 1, "\n.br\n");
  }
  return out;
}

std::string literal(std::string_view name) {
  std::string out;
  for (char c : name) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string joined_path(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& word : path) out += (out.empty() ? "" : " ") + literal(word);
  return out;
}

std::string positional_synopsis(const CLI::App& app) {
  std::string out;
  for (const CLI::Option* p : positionals(app)) {
    const std::string name = "\\fI" + upper(p->get_name(true)) + "\\fR";
    out += " " + (p->get_required() ? name : "[" + name + "]");
  }
  return out;
}

// A .TP entry: the option's spellings and value, then its help text with
// what the validators accept and the default.
std::string option_entry(const CLI::Option& option) {
  std::string tag;
  for (const std::string& spelling : option_spellings(option)) {
    tag += (tag.empty() ? "" : ", ") + ("\\fB" + literal(spelling) + "\\fR");
  }
  const std::string value = value_name(option);
  if (!value.empty()) tag += " \\fI" + roff(value) + "\\fR";
  std::string text = option.get_description();
  const std::string type_name = option.get_type_name();
  const size_t colon = type_name.find(':');
  // A range ("INT in [1 - 100]") is not in the value's name; say it here.
  if (colon != std::string::npos && type_name.find(' ', colon) != std::string::npos) {
    text += " (" + type_name.substr(colon + 1) + ")";
  }
  if (!option.get_default_str().empty()) {
    text += (text.ends_with('.') ? " " : ". ") + ("Default: " + option.get_default_str() + ".");
  }
  return ".TP\n" + tag + "\n" + roff_lines(text) + "\n";
}

// The options of `app`, under .SS headings when they come in several
// groups (the broker's settings).
std::string options_section(const CLI::App& app, bool grouped) {
  std::string out;
  std::string group;
  for (const CLI::Option* option : named_options(app)) {
    if (grouped && option->get_group() != group) {
      group = option->get_group();
      out += ".SS \"" + roff(group) + "\"\n";
    }
    out += option_entry(*option);
  }
  return out;
}

bool has_several_groups(const CLI::App& app) {
  const std::vector<const CLI::Option*> options = named_options(app);
  for (const CLI::Option* option : options) {
    if (option->get_group() != options.front()->get_group()) return true;
  }
  return false;
}

}  // namespace

std::string man_page(const CLI::App& root, const ManPageText& text) {
  const std::vector<CommandNode> nodes = command_nodes(root);
  const std::string name = root.get_name();
  std::string out =
      ".\\\" Generated by `" + name + " __generate man` from its command definitions.\n";
  out +=
      ".TH " + literal(upper(name)) + " 1 \"\" \"" + roff(text.source) + "\" \"User Commands\"\n";
  // Ragged right: a line holding one long value (a cipher list) cannot be
  // justified, and troff warns about every such line.
  out += ".ad l\n";
  out += ".SH NAME\n" + literal(name) + " \\- " + roff(text.summary) + "\n";

  out += ".SH SYNOPSIS\n";
  const bool has_subcommands = nodes.size() > 1;
  out += "\\fB" + literal(name) + "\\fR [\\fIOPTIONS\\fR]" + positional_synopsis(root) +
         (has_subcommands ? " \\fISUBCOMMAND\\fR ..." : "") + "\n";
  for (size_t i = 1; i < nodes.size(); ++i) {
    if (!visible_subcommands(*nodes[i].app).empty()) continue;  // the leaves say it all
    out += ".br\n\\fB" + joined_path(nodes[i].path) + "\\fR" + positional_synopsis(*nodes[i].app) +
           " [\\fIOPTIONS\\fR]\n";
  }

  out += ".SH DESCRIPTION\n";
  for (size_t i = 0; i < text.description.size(); ++i) {
    out += (i == 0 ? "" : ".PP\n") + roff(text.description[i]) + "\n";
  }
  if (!root.get_footer().empty()) out += ".PP\n.nf\n" + roff(root.get_footer()) + "\n.fi\n";

  out += ".SH OPTIONS\n" + options_section(root, has_several_groups(root));

  if (has_subcommands) {
    out += ".SH SUBCOMMANDS\n";
    for (size_t i = 1; i < nodes.size(); ++i) {
      const CLI::App& app = *nodes[i].app;
      out += ".SS \"" + joined_path(nodes[i].path) + positional_synopsis(app) + "\"\n";
      out += roff_lines(app.get_description()) + "\n";
      for (const CLI::Option* p : positionals(app)) {
        out += ".TP\n\\fI" + upper(p->get_name(true)) + "\\fR\n" +
               roff_lines(p->get_description()) + "\n";
      }
      out += options_section(app, false);
    }
  }

  out += ".SH \"EXIT STATUS\"\n";
  for (const auto& [status, meaning] : text.exit_statuses) {
    out += ".TP\n.B " + roff(status) + "\n" + roff(meaning) + "\n";
  }
  if (!text.see_also.empty()) {
    out += ".SH \"SEE ALSO\"\n";
    for (size_t i = 0; i < text.see_also.size(); ++i) {
      // "name(1)" as man-pages(7) writes it: the name bold, the section not.
      const std::string& page = text.see_also[i];
      const size_t paren = page.find('(');
      out += ".BR " + literal(page.substr(0, paren)) + " " +
             (paren == std::string::npos ? "\"\"" : page.substr(paren)) +
             (i + 1 < text.see_also.size() ? " ," : "") + "\n";
    }
  }
  return out;
}

}  // namespace spillway::cli
