// TOML config file reader. toml++ keeps the source position of every key and
// value; errors quote it so the operator can go straight to the line.
#include "config_file.h"

#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config_keys.h"

namespace spillway::broker {

namespace {

std::string where(std::string_view source, const toml::source_region& region) {
  return std::string(source) + ":" + std::to_string(region.begin.line) + ":" +
         std::to_string(region.begin.column);
}

std::string known_keys_of(std::string_view section) {
  std::string out;
  for (const ConfigKey& key : config_keys()) {
    if (key.section != section) continue;
    out += out.empty() ? "" : ", ";
    out += key.name;
  }
  return out;
}

std::string known_sections() {
  std::string out;
  std::string_view last;
  for (const ConfigKey& key : config_keys()) {
    if (key.section == last) continue;
    last = key.section;
    out += out.empty() ? "[" : ", [";
    out += std::string(key.section) + "]";
  }
  return out;
}

std::string_view type_name(toml::node_type type) {
  switch (type) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::none:
      break;
  }
  return "a value";
}

// " (did you mean `name` in [section]?)" when `name` is a key of some table.
std::string section_hint(std::string_view name) {
  for (const ConfigKey& key : config_keys()) {
    if (key.name == name) {
      return " (did you mean '" + std::string(name) + "' in [" + std::string(key.section) + "]?)";
    }
  }
  return "";
}

Status apply_value(const ConfigKey& key, const toml::node& value, BrokerConfig& config) {
  if (auto v = value.as_integer()) return set_integer(key, v->get(), config);
  if (auto v = value.as_boolean()) return set_bool(key, v->get(), config);
  if (auto v = value.as_string()) return set_string(key, v->get(), config);
  return Status(ErrorCode::kConfig, std::string(key.section) + "." + std::string(key.name) +
                                        ": expected " + describe_expected(key) + ", got " +
                                        std::string(type_name(value.type())));
}

Status apply_table(const toml::table& root, std::string_view source, BrokerConfig& config) {
  for (const auto& [section_key, section_node] : root) {
    const std::string_view section = section_key.str();
    const toml::table* table = section_node.as_table();
    if (table == nullptr || known_keys_of(section).empty()) {
      return Status(ErrorCode::kConfig, where(source, section_key.source()) + ": unknown key '" +
                                            std::string(section) +
                                            "' at top level; expected one of the tables " +
                                            known_sections() + section_hint(section));
    }
    for (const auto& [name_key, value] : *table) {
      const ConfigKey* key = find_config_key(section, name_key.str());
      if (key == nullptr) {
        return Status(ErrorCode::kConfig, where(source, name_key.source()) + ": unknown key '" +
                                              std::string(name_key.str()) + "' in [" +
                                              std::string(section) + "]; expected one of " +
                                              known_keys_of(section));
      }
      Status st = apply_value(*key, value, config);
      if (!st.ok()) {
        return Status(ErrorCode::kConfig,
                      where(source, value.source()) + ": " + std::string(st.message()));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status apply_config_text(std::string_view text, std::string_view source_name,
                         BrokerConfig& config) {
  toml::table root;
  try {
    root = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    return Status(ErrorCode::kConfig, where(source_name, e.source()) +
                                          ": not valid TOML: " + std::string(e.description()));
  }
  return apply_table(root, source_name, config);
}

Status apply_config_file(const std::string& path, BrokerConfig& config) {
  // An ifstream opens a directory and then reads nothing from it, which
  // would pass for an empty config.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Status(ErrorCode::kConfig, path + ": is a directory, not a config file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(ErrorCode::kConfig, path + ": cannot open config file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status(ErrorCode::kConfig, path + ": cannot read config file");
  SPILLWAY_RETURN_IF_ERROR(apply_config_text(text.str(), path, config));
  config.config_file = path;
  return Status::Ok();
}

}  // namespace spillway::broker
