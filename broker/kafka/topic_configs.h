// A topic's settings under Kafka's config names, both ways: the configs a
// CreateTopics request may set, and the configs DescribeConfigs (and
// CreateTopics v5+) report for a topic or for this broker. Spillway's own
// flush policy is the config `spillway.flush.policy` ("durable" or
// "interval", as the native protocol names them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/broker_config.h"
#include "core/topic_config.h"
#include "core/topic_registry.h"
#include "spillway/common/status.h"

namespace spillway::broker::kafka_listener {

inline constexpr std::string_view kFlushPolicyConfig = "spillway.flush.policy";

// Kafka's config sources (DescribeConfigs v1+, CreateTopics v5+).
inline constexpr int8_t kSourceTopic = 1;         // DYNAMIC_TOPIC_CONFIG
inline constexpr int8_t kSourceStaticBroker = 4;  // STATIC_BROKER_CONFIG
inline constexpr int8_t kSourceDefault = 5;       // DEFAULT_CONFIG

// Kafka's config types (DescribeConfigs v3+).
inline constexpr int8_t kTypeBoolean = 1;
inline constexpr int8_t kTypeString = 2;
inline constexpr int8_t kTypeInt = 3;
inline constexpr int8_t kTypeLong = 5;

// Sets the CreateTopics config `name` = `value` in `spec`. A null value
// keeps the broker's default. kConfig naming the problem for a name this
// broker does not know and for a value it cannot take.
Status apply_topic_config(std::string_view name, std::optional<std::string_view> value,
                          CreateTopicSpec& spec);

struct ConfigValue {
  std::string_view name;
  std::string value;
  int8_t source = kSourceDefault;
  int8_t type = kTypeString;
};

// A topic's configs, in a fixed order; a value equal to the broker's
// default is reported as the default. None can be changed after the topic
// is made (Spillway serves no AlterConfigs), so all are read-only.
void topic_configs(const TopicConfig& config, const BrokerConfig& broker,
                   std::vector<ConfigValue>& out);
// The broker's own settings that decide its topics (read-only).
void broker_configs(const BrokerConfig& broker, std::vector<ConfigValue>& out);

}  // namespace spillway::broker::kafka_listener
