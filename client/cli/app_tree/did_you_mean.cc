// The "did you mean" walk over a command line (did_you_mean.h).
#include "app_tree/did_you_mean.h"

#include <cctype>

#include "app_tree/close_matches.h"
#include "app_tree/command_tree.h"

namespace spillway::cli {

namespace {

std::string command_name(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& word : path) out += (out.empty() ? "" : " ") + word;
  return out;
}

const CLI::App* subcommand_named(const CLI::App& app, const std::string& word) {
  for (const CLI::App* sub : visible_subcommands(app)) {
    if (sub->check_name(word)) return sub;
  }
  return nullptr;
}

// Long flag names without their dashes: the length of what was typed sets
// how many edits a suggestion may be away, and dashes are not typos.
std::vector<std::string> long_flag_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* option : named_options(app)) {
    for (const std::string& name : option->get_lnames()) out.push_back(name);
  }
  return out;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : visible_subcommands(app)) out.push_back(sub->get_name());
  return out;
}

bool looks_like_number(const std::string& word) {
  return word.size() > 1 && word[0] == '-' &&
         (std::isdigit(static_cast<unsigned char>(word[1])) || word[1] == '.');
}

}  // namespace

std::optional<UnknownWord> find_unknown_word(const CLI::App& root,
                                             const std::vector<std::string>& args) {
  const CLI::App* current = &root;
  std::vector<std::string> path = {root.get_name()};
  bool skip_value = false;
  for (const std::string& word : args) {
    if (word == "--") break;  // only positionals follow
    if (skip_value) {
      skip_value = false;
      continue;
    }
    if (word.starts_with("--")) {
      const size_t equals = word.find('=');
      const std::string name = word.substr(0, equals);
      const CLI::Option* option = current->get_option_no_throw(name);
      if (option == nullptr) {
        return UnknownWord{UnknownWord::Kind::kFlag, name, command_name(path),
                           close_matches(name.substr(2), long_flag_names(*current))};
      }
      skip_value = takes_value(*option) && equals == std::string::npos;
      continue;
    }
    if (word.size() > 1 && word[0] == '-' && !looks_like_number(word)) {
      // Short flags: one letter is too little to guess from; only the value
      // of "-b VALUE" is skipped ("-bVALUE" carries its own).
      const CLI::Option* option = current->get_option_no_throw(word.substr(0, 2));
      skip_value = option != nullptr && takes_value(*option) && word.size() == 2;
      continue;
    }
    if (const CLI::App* sub = subcommand_named(*current, word)) {
      current = sub;
      path.push_back(sub->get_name());
      continue;
    }
    // A command with subcommands and no positionals of its own can only
    // have meant one of its subcommands.
    if (!visible_subcommands(*current).empty() && positionals(*current).empty()) {
      return UnknownWord{UnknownWord::Kind::kSubcommand, word, command_name(path),
                         close_matches(word, subcommand_names(*current))};
    }
  }
  return std::nullopt;
}

std::string describe_unknown_word(const UnknownWord& unknown) {
  const bool flag = unknown.kind == UnknownWord::Kind::kFlag;
  std::string out = std::string(flag ? "unknown flag '" : "unknown subcommand '") + unknown.word +
                    "' for '" + unknown.command + "'";
  for (size_t i = 0; i < unknown.suggestions.size(); ++i) {
    out += i == 0 ? "; did you mean '" : i + 1 == unknown.suggestions.size() ? "' or '" : "', '";
    out += (flag ? "--" : "") + unknown.suggestions[i];
  }
  if (!unknown.suggestions.empty()) out += "'?";
  return out;
}

}  // namespace spillway::cli
