// CreateTopics: each topic checked (name, replication, partitions, configs)
// and then made through the TopicRegistry the native CreateTopics uses.
#include "create_topics_handler.h"

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster/cluster_admin.h"
#include "codec.h"
#include "error_map.h"
#include "handlers/access.h"
#include "spillway/common/kafka/create_topics.h"
#include "topic_configs.h"

namespace spillway::broker::kafka_listener {

namespace {

using Request = kafka::CreateTopicsRequest;
using Response = kafka::CreateTopicsResponse;

// What one topic of the request got; owns everything the response views.
struct TopicOutcome {
  std::string name;
  int16_t error = 0;
  std::optional<std::string> message;
  int32_t partitions = -1;
  int16_t replication_factor = -1;
  std::vector<ConfigValue> configs;  // v5+, on success

  void fail(int16_t code, std::string text) {
    error = code;
    message = std::move(text);
  }
  void fail(KafkaRefusal refusal, std::string text) { fail(kafka_error(refusal), std::move(text)); }
};

// The request's outcome while creates finish on the cores.
struct CreateWork {
  std::vector<TopicOutcome> topics;
  size_t pending = 0;
  bool all_started = false;
};

void send(Exchange& exchange, const CreateWork& work) {
  std::vector<Response::Config> configs;
  std::vector<Response::Topic> topics;
  std::vector<size_t> first_config;
  for (const TopicOutcome& t : work.topics) {
    first_config.push_back(configs.size());
    for (const ConfigValue& c : t.configs) {
      configs.push_back({.name = c.name,
                         .value = c.value,
                         .read_only = true,
                         .config_source = c.source,
                         .is_sensitive = false});
    }
  }
  first_config.push_back(configs.size());
  for (size_t i = 0; i < work.topics.size(); ++i) {
    const TopicOutcome& t = work.topics[i];
    Response::Topic out;
    out.name = t.name;
    out.error_code = t.error;
    if (t.message) out.error_message = *t.message;
    out.num_partitions = t.partitions;
    out.replication_factor = t.replication_factor;
    out.configs =
        t.error == 0
            ? kafka::Array<Response::Config>(std::span<const Response::Config>(configs).subspan(
                  first_config[i], first_config[i + 1] - first_config[i]))
            : kafka::Array<Response::Config>::null();
    topics.push_back(out);
  }
  Response response;
  response.topics = topics;
  respond(exchange, response);
}

// Fills `spec` from the request's topic `t`, or says why it cannot be made.
bool build_spec(const Request::Topic& t, const KafkaContext& context, CreateTopicSpec& spec,
                TopicOutcome& outcome) {
  spec.name = std::string(t.name);
  if (Status valid = validate_topic_name(t.name); !valid.ok()) {
    outcome.fail(KafkaRefusal::kInvalidTopicName, std::string(valid.message()));
    return false;
  }
  const bool cluster = context.broker.cluster_admin != nullptr;
  if (cluster && (t.replication_factor == 0 || t.replication_factor < -1 ||
                  t.replication_factor > 16 || !t.assignments.empty())) {
    outcome.fail(t.assignments.empty() ? KafkaRefusal::kInvalidReplicationFactor
                                       : KafkaRefusal::kInvalidReplicaAssignment,
                 t.assignments.empty()
                     ? "replication factor must be 1 to 16 (or -1 for the default), not " +
                           std::to_string(t.replication_factor)
                     : std::string("explicit replica assignments are not supported: the "
                                   "cluster places replicas (rack-aware)"));
    return false;
  }
  if (!cluster && t.replication_factor != -1 && t.replication_factor != 1) {
    outcome.fail(KafkaRefusal::kInvalidReplicationFactor,
                 "replication factor must be 1 (or -1 for the default): this broker is a "
                 "single node, not " +
                     std::to_string(t.replication_factor));
    return false;
  }
  if (!t.assignments.empty()) {
    // Explicit placement: partitions 0..n-1, each on this broker alone.
    if (t.num_partitions != -1 || t.replication_factor != -1) {
      outcome.fail(kafka_error(ErrorCode::kInvalidArgument),
                   "with assignments, num_partitions and replication_factor must be -1");
      return false;
    }
    std::vector<bool> seen(static_cast<size_t>(t.assignments.size()), false);
    for (const Request::Assignment& a : t.assignments) {
      const bool one_here = a.broker_ids.size() == 1 && *a.broker_ids.begin() == context.node_id;
      if (a.partition_index < 0 || a.partition_index >= t.assignments.size() ||
          seen[static_cast<size_t>(a.partition_index)] || !one_here) {
        outcome.fail(KafkaRefusal::kInvalidReplicaAssignment,
                     "assignments must place partitions 0 to " +
                         std::to_string(t.assignments.size() - 1) + " each on broker " +
                         std::to_string(context.node_id) + " alone");
        return false;
      }
      seen[static_cast<size_t>(a.partition_index)] = true;
    }
    spec.partitions = t.assignments.size();
  } else if (t.num_partitions == -1) {
    spec.partitions = static_cast<int32_t>(context.broker.config.default_partitions);
  } else if (t.num_partitions < 1 || t.num_partitions > kMaxPartitionsPerTopic) {
    outcome.fail(KafkaRefusal::kInvalidPartitionCount,
                 "num_partitions must be 1 to " + std::to_string(kMaxPartitionsPerTopic) +
                     " (or -1 for the default), not " + std::to_string(t.num_partitions));
    return false;
  } else {
    spec.partitions = t.num_partitions;
  }
  for (const Request::Config& c : t.configs) {
    if (Status st = apply_topic_config(c.name, c.value, spec); !st.ok()) {
      outcome.fail(KafkaRefusal::kInvalidConfig, std::string(st.message()));
      return false;
    }
  }
  return true;
}

// What the cluster stores of a topic's settings.
cluster::TopicSettings cluster_settings(const CreateTopicSpec& spec) {
  cluster::TopicSettings settings;
  settings.flush_policy = spec.flush_policy;
  settings.retention_bytes = spec.retention_bytes;
  settings.retention_ms = spec.retention_ms;
  settings.segment_bytes = spec.segment_bytes;
  settings.min_insync_replicas = spec.min_insync_replicas;
  settings.unclean_leader_election = spec.unclean_leader_election;
  return settings;
}

// A registry refusal. The name and partition count were checked before, so
// an invalid argument is a setting the log refuses.
void registry_refused(const Status& st, TopicOutcome& outcome) {
  outcome.fail(st.code() == ErrorCode::kInvalidArgument ? kafka_error(KafkaRefusal::kInvalidConfig)
                                                        : kafka_error(st),
               std::string(st.message()));
}

}  // namespace

void CreateTopicsHandler::handle(Exchange& exchange) {
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  auto work = std::make_shared<CreateWork>();
  // A name given twice is refused for every entry, as Kafka does.
  std::unordered_map<std::string_view, int> uses;
  for (const Request::Topic& t : request->topics) ++uses[t.name];
  TopicRegistry& registry = context_.broker.topics;
  work->topics.reserve(static_cast<size_t>(request->topics.size()));
  for (const Request::Topic& t : request->topics) {
    TopicOutcome& outcome = work->topics.emplace_back();
    outcome.name = std::string(t.name);
    if (uses[t.name] > 1) {
      outcome.fail(KafkaRefusal::kDuplicateInRequest,
                   "topic " + outcome.name + " is named more than once in the request");
      continue;
    }
    if (!may_create_topic(context_.broker, exchange, t.name)) {
      outcome.fail(kafka_error(ErrorCode::kTopicAuthorizationFailed),
                   "not allowed to create the topic (Create on the cluster or the topic)");
      continue;
    }
    CreateTopicSpec spec;
    if (!build_spec(t, context_, spec, outcome)) continue;
    Result<TopicConfig> config = registry.resolve(spec);
    if (!config.ok()) {
      registry_refused(config.status(), outcome);
      continue;
    }
    if (context_.broker.cluster_admin != nullptr && !request->validate_only) {
      const size_t index = work->topics.size() - 1;
      ++work->pending;
      cluster::NewTopic topic;
      topic.name = spec.name;
      topic.partitions = spec.partitions;
      topic.replication_factor = t.replication_factor;
      topic.settings = cluster_settings(spec);
      context_.broker.cluster_admin->create_topic(
          std::move(topic), exchange.executor(),
          [work, index, ex = &exchange, keep = exchange.keep_alive()](Status st) {
            if (!st.ok()) registry_refused(st, work->topics[index]);
            if (--work->pending == 0 && work->all_started) send(*ex, *work);
          });
      outcome.partitions = config->partitions;
      outcome.replication_factor =
          t.replication_factor == -1
              ? static_cast<int16_t>(context_.broker.config.cluster_default_replication_factor)
              : t.replication_factor;
      topic_configs(*config, context_.broker.config, outcome.configs);
      continue;
    }
    if (request->validate_only) {
      if (Status st = registry.check_create(spec); !st.ok()) {
        registry_refused(st, outcome);
        continue;
      }
    } else {
      const size_t index = work->topics.size() - 1;
      ++work->pending;
      Result<std::shared_ptr<Topic>> created =
          registry.create(spec, exchange.executor(),
                          [work, index, ex = &exchange, keep = exchange.keep_alive()](Status st) {
                            if (!st.ok()) registry_refused(st, work->topics[index]);
                            if (--work->pending == 0 && work->all_started) send(*ex, *work);
                          });
      if (!created.ok()) {
        --work->pending;
        registry_refused(created.status(), outcome);
        continue;
      }
    }
    outcome.partitions = config->partitions;
    outcome.replication_factor = 1;
    topic_configs(*config, context_.broker.config, outcome.configs);
  }
  work->all_started = true;
  if (work->pending == 0) send(exchange, *work);
}

}  // namespace spillway::broker::kafka_listener
