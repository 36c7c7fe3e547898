// The command tree view of command_tree.h.
#include "app_tree/command_tree.h"

#include <string_view>

namespace spillway::cli {

namespace {

void collect(const CLI::App& app, std::vector<std::string> path, std::vector<CommandNode>* out) {
  out->push_back({path, &app});
  for (const CLI::App* sub : visible_subcommands(app)) {
    std::vector<std::string> sub_path = path;
    sub_path.push_back(sub->get_name());
    collect(*sub, std::move(sub_path), out);
  }
}

void collect_options(const CLI::App& app, std::vector<const CLI::Option*>* out) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->nonpositional() && !option->get_group().empty()) out->push_back(option);
  }
  // Option groups are nameless subcommands; their options belong to `app`.
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name().empty()) collect_options(*sub, out);
  }
}

// CLI11's type name with its validators' descriptions: "TEXT:{a,b}",
// "INT:INT in [1 - 10]", "TEXT:FILE". The base type never has a colon.
std::pair<std::string, std::string> split_type_name(const CLI::Option& option) {
  const std::string full = option.get_type_name();
  const size_t colon = full.find(':');
  if (colon == std::string::npos) return {full, ""};
  return {full.substr(0, colon), full.substr(colon + 1)};
}

}  // namespace

std::vector<CommandNode> command_nodes(const CLI::App& root) {
  std::vector<CommandNode> out;
  collect(root, {root.get_name()}, &out);
  return out;
}

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  return app.get_subcommands(
      [](const CLI::App* sub) { return !sub->get_name().empty() && !sub->get_group().empty(); });
}

std::vector<const CLI::Option*> named_options(const CLI::App& app) {
  std::vector<const CLI::Option*> out;
  collect_options(app, &out);
  return out;
}

std::vector<const CLI::Option*> positionals(const CLI::App& app) {
  return app.get_options([](const CLI::Option* option) { return option->get_positional(); });
}

std::vector<std::string> option_spellings(const CLI::Option& option) {
  std::vector<std::string> out;
  for (const std::string& name : option.get_snames()) out.push_back("-" + name);
  for (const std::string& name : option.get_lnames()) out.push_back("--" + name);
  return out;
}

bool takes_value(const CLI::Option& option) {
  return option.get_type_size_max() > 0;
}

std::vector<std::string> value_choices(const CLI::Option& option) {
  const std::string validators = split_type_name(option).second;
  const size_t open = validators.find('{');
  const size_t close = validators.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<std::string> out;
  std::string_view list = std::string_view(validators).substr(open + 1, close - open - 1);
  while (!list.empty()) {
    const size_t comma = list.find(',');
    out.emplace_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

bool value_is_path(const CLI::Option& option) {
  if (!takes_value(option)) return false;
  const auto [base, validators] = split_type_name(option);
  if (base == "FILE" || base == "DIR") return true;
  std::string_view rest = validators;
  while (!rest.empty()) {
    const size_t colon = rest.find(':');
    const std::string_view part = rest.substr(0, colon);
    if (part == "FILE" || part == "DIR") return true;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return false;
}

std::string value_name(const CLI::Option& option) {
  if (!takes_value(option)) return "";
  const auto [base, validators] = split_type_name(option);
  // A validator's own name ("HOST:PORT", "FILE", "{a,b}") says more than the
  // base type, but a range ("INT in [1 - 10]") is better left to the text.
  if (validators.empty() || validators.find(' ') != std::string::npos) return base;
  return validators;
}

}  // namespace spillway::cli
