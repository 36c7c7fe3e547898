// The table of every broker setting: its place in the TOML file, its
// command-line flag, its type, range, unit and meaning. The file parser, the
// command-line overrides and --help all read this one table, so a key cannot
// exist in one and be missing from another.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "broker_config.h"
#include "spillway/common/status.h"

namespace spillway::broker {

enum class ConfigKind {
  kInteger,          // an integer in [min, max]
  kBool,             // true or false
  kString,           // any string
  kChoice,           // one of `choices`
  kHostPort,         // IP:PORT (see listen_address.h)
  kHostPortOrEmpty,  // IP:PORT, or "" for "off"
  kAdvertised,       // HOST:PORT (a host name or IP, port 1-65535), or "" for a default
  kLogLevel,         // trace|debug|info|warn|error|critical|off
  kListenerList,     // "SECURITY://IP:PORT, ..." (listener_list.h), or ""
  kAdvertisedList,   // "SECURITY://HOST:PORT, ...", or ""
  kStringOrEmpty,    // any string, "" allowed (a file path or "none set")
  kPrincipalList,    // "User:a;User:b" (security/acl/acl_authorizer.h), or ""
};

using ConfigField =
    std::variant<int64_t BrokerConfig::*, bool BrokerConfig::*, std::string BrokerConfig::*>;

struct ConfigKey {
  std::string_view section;  // TOML table, e.g. "limits"
  std::string_view name;     // key inside the table, e.g. "max_frame_bytes"
  std::string_view flag;     // command-line flag without dashes, e.g. "max-frame-bytes"
  ConfigKind kind;
  ConfigField field;
  int64_t min = 0;  // kInteger only
  int64_t max = 0;
  std::span<const std::string_view> choices = {};  // kChoice only
  std::string_view unit;                           // "bytes", "milliseconds", ... or empty
  std::string_view help;                           // one line: what the setting means
};

// Every key, grouped by section in file order.
std::span<const ConfigKey> config_keys() noexcept;

// The key in `section` named `name`, or nullptr.
const ConfigKey* find_config_key(std::string_view section, std::string_view name) noexcept;

// "what was expected" for `key`, e.g. "an integer in [1, 1024] (count)".
std::string describe_expected(const ConfigKey& key);

// The current value of `key` in `config`, as it would be written on the
// command line (used to show defaults in --help).
std::string format_value(const ConfigKey& key, const BrokerConfig& config);

// Checks `value` against `key`'s range or choices and stores it. On error
// (kConfig) `config` is unchanged and the message says what was expected.
Status set_integer(const ConfigKey& key, int64_t value, BrokerConfig& config);
Status set_bool(const ConfigKey& key, bool value, BrokerConfig& config);
Status set_string(const ConfigKey& key, std::string_view value, BrokerConfig& config);

// Parses `text` as `key`'s type (for command-line values) and stores it.
Status set_from_text(const ConfigKey& key, std::string_view text, BrokerConfig& config);

}  // namespace spillway::broker
