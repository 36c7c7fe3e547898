// The topic-name rules (Kafka's), in one place for everyone who checks a
// name: the broker before it creates or serves a topic, the CLI before it
// connects (a bad name is a usage error there).
#pragma once

#include <string_view>

#include "spillway/common/status.h"

namespace spillway {

// The longest topic name, in bytes (Kafka's limit).
inline constexpr size_t kMaxTopicNameBytes = 249;

// Ok iff `name` is a legal topic name: 1 to 249 bytes of [A-Za-z0-9._-],
// not "." or "..", not starting with ".deleted-" (reserved: deletion marks of
// older brokers). kInvalidArgument naming the problem otherwise.
Status check_topic_name(std::string_view name);

}  // namespace spillway
