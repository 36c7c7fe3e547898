// Kafka config names <-> Spillway topic settings.
#include "topic_configs.h"

#include <charconv>

namespace spillway::broker::kafka_listener {

namespace {

Result<int64_t> parse_long(std::string_view name, std::string_view value, int64_t min) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < min) {
    return Status(ErrorCode::kConfig, std::string(name) +
                                          " must be an integer >= " + std::to_string(min) +
                                          ", not \"" + std::string(value) + "\"");
  }
  return n;
}

int8_t source(bool is_default) {
  return is_default ? kSourceDefault : kSourceTopic;
}

}  // namespace

Status apply_topic_config(std::string_view name, std::optional<std::string_view> value,
                          CreateTopicSpec& spec) {
  const bool known = name == "retention.ms" || name == "retention.bytes" ||
                     name == "segment.bytes" || name == kFlushPolicyConfig ||
                     name == "cleanup.policy" || name == "min.insync.replicas" ||
                     name == "unclean.leader.election.enable";
  if (!known) {
    return Status(ErrorCode::kConfig,
                  "unknown config " + std::string(name) +
                      " (Spillway takes retention.ms, retention.bytes, segment.bytes, "
                      "cleanup.policy=delete, min.insync.replicas, "
                      "unclean.leader.election.enable and " +
                      std::string(kFlushPolicyConfig) + ")");
  }
  if (!value) return Status::Ok();  // the broker's default
  if (name == "cleanup.policy") {
    // Logs are only ever trimmed by retention; compaction does not exist.
    if (*value != "delete") {
      return Status(ErrorCode::kConfig,
                    "cleanup.policy must be \"delete\" (Spillway does not "
                    "compact), not \"" +
                        std::string(*value) + "\"");
    }
    return Status::Ok();
  }
  if (name == "unclean.leader.election.enable") {
    if (*value != "true" && *value != "false") {
      return Status(ErrorCode::kConfig, "unclean.leader.election.enable must be true or false");
    }
    spec.unclean_leader_election = *value == "true" ? 1 : 0;
    return Status::Ok();
  }
  if (name == "min.insync.replicas") {
    Result<int64_t> n = parse_long(name, *value, 1);
    if (!n.ok()) return n.status();
    if (*n > 16) return Status(ErrorCode::kConfig, "min.insync.replicas must be 1 to 16");
    spec.min_insync_replicas = static_cast<int32_t>(*n);
    return Status::Ok();
  }
  if (name == kFlushPolicyConfig) {
    Result<storage::FlushPolicy> policy = parse_flush_policy(*value);
    if (!policy.ok()) {
      return Status(ErrorCode::kConfig, std::string(kFlushPolicyConfig) +
                                            " must be \"durable\" or \"interval\", not \"" +
                                            std::string(*value) + "\"");
    }
    spec.flush_policy = std::string(*value);
    return Status::Ok();
  }
  // -1 means unlimited for both retentions, as in Kafka; a segment must
  // hold at least a page (the registry's own limit).
  const int64_t min = name == "segment.bytes" ? 4096 : -1;
  Result<int64_t> n = parse_long(name, *value, min);
  if (!n.ok()) return n.status();
  if (name == "retention.ms") {
    spec.retention_ms = *n;
  } else if (name == "retention.bytes") {
    spec.retention_bytes = *n;
  } else {
    spec.segment_bytes = *n;
  }
  return Status::Ok();
}

void topic_configs(const TopicConfig& config, const BrokerConfig& broker,
                   std::vector<ConfigValue>& out) {
  out.push_back({"cleanup.policy", "delete", kSourceDefault, kTypeString});
  out.push_back(
      {"max.message.bytes", std::to_string(broker.max_batch_bytes), kSourceStaticBroker, kTypeInt});
  out.push_back({"retention.bytes", std::to_string(config.retention_bytes),
                 source(config.retention_bytes == broker.retention_bytes), kTypeLong});
  out.push_back({"retention.ms", std::to_string(config.retention_ms),
                 source(config.retention_ms == broker.retention_ms), kTypeLong});
  out.push_back({"segment.bytes", std::to_string(config.segment_bytes),
                 source(config.segment_bytes == broker.segment_bytes), kTypeInt});
  const std::string_view policy = flush_policy_name(config.flush_policy);
  out.push_back({kFlushPolicyConfig, std::string(policy), source(policy == broker.flush_policy),
                 kTypeString});
}

void broker_configs(const BrokerConfig& broker, std::vector<ConfigValue>& out) {
  const int8_t s = kSourceStaticBroker;
  out.push_back(
      {"auto.create.topics.enable", broker.auto_create_topics ? "true" : "false", s, kTypeBoolean});
  out.push_back({"broker.id", std::to_string(broker.node_id), s, kTypeInt});
  out.push_back({"log.retention.bytes", std::to_string(broker.retention_bytes), s, kTypeLong});
  out.push_back({"log.retention.ms", std::to_string(broker.retention_ms), s, kTypeLong});
  out.push_back({"log.segment.bytes", std::to_string(broker.segment_bytes), s, kTypeInt});
  out.push_back({"message.max.bytes", std::to_string(broker.max_batch_bytes), s, kTypeInt});
  out.push_back({"num.partitions", std::to_string(broker.default_partitions), s, kTypeInt});
  out.push_back({"spillway.flush.policy", broker.flush_policy, s, kTypeString});
}

}  // namespace spillway::broker::kafka_listener
