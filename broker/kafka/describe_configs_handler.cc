// DescribeConfigs.
#include "describe_configs_handler.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "codec.h"
#include "error_map.h"
#include "handlers/access.h"
#include "spillway/common/kafka/describe_configs.h"
#include "topic_configs.h"

namespace spillway::broker::kafka_listener {

namespace {

using Request = kafka::DescribeConfigsRequest;
using Response = kafka::DescribeConfigsResponse;

// One resource's answer; owns what the response views.
struct ResourceAnswer {
  int8_t type = 0;
  std::string name;
  int16_t error = 0;
  std::optional<std::string> message;
  std::vector<ConfigValue> configs;
};

// Fills `answer` for `resource` (every config, before the key filter).
void describe(const Request::Resource& resource, const KafkaContext& context,
              ResourceAnswer& answer) {
  if (resource.resource_type == kafka::kConfigResourceTopic) {
    const Topic* topic = context.broker.topics.find(resource.resource_name);
    if (topic == nullptr) {
      answer.error = kafka_error(ErrorCode::kUnknownTopic);
      answer.message = "unknown topic " + answer.name;
    } else if (!topic->offline.ok()) {
      answer.error = kafka_error(topic->offline);
      answer.message = std::string(topic->offline.message());
    } else {
      topic_configs(topic->config, context.broker.config, answer.configs);
    }
  } else if (resource.resource_type == kafka::kConfigResourceBroker) {
    // "" names the cluster-wide defaults, which are this broker's.
    const std::string self = std::to_string(context.node_id);
    if (!resource.resource_name.empty() && resource.resource_name != self) {
      answer.error = kafka_error(KafkaRefusal::kUnsupportedResource);
      answer.message = "this is broker " + self + ", not " + answer.name;
    } else {
      broker_configs(context.broker.config, answer.configs);
    }
  } else {
    answer.error = kafka_error(KafkaRefusal::kUnsupportedResource);
    answer.message = "resource type " + std::to_string(resource.resource_type) +
                     " is not served (only topics, 2, and brokers, 4)";
  }
}

}  // namespace

void DescribeConfigsHandler::handle(Exchange& exchange) {
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  std::vector<ResourceAnswer> answers;
  answers.reserve(static_cast<size_t>(request->resources.size()));
  for (const Request::Resource& resource : request->resources) {
    ResourceAnswer& answer = answers.emplace_back();
    answer.type = resource.resource_type;
    answer.name = std::string(resource.resource_name);
    // DescribeConfigs on the topic, or on the cluster for a broker's.
    const bool allowed =
        resource.resource_type == kafka::kConfigResourceTopic
            ? may_topic(context_.broker, exchange, security::AclOperation::kDescribeConfigs,
                        resource.resource_name)
            : resource.resource_type != kafka::kConfigResourceBroker ||
                  may_cluster(context_.broker, exchange, security::AclOperation::kDescribeConfigs);
    if (!allowed) {
      answer.error = kafka_error(resource.resource_type == kafka::kConfigResourceTopic
                                     ? ErrorCode::kTopicAuthorizationFailed
                                     : ErrorCode::kClusterAuthorizationFailed);
      answer.message = "not allowed to describe the configs";
      continue;
    }
    describe(resource, context_, answer);
    if (!resource.configuration_keys.is_null()) {
      std::erase_if(answer.configs, [&](const ConfigValue& c) {
        return std::none_of(resource.configuration_keys.begin(), resource.configuration_keys.end(),
                            [&](std::string_view key) { return key == c.name; });
      });
    }
  }
  // The response as views over the answers.
  std::vector<Response::Config> configs;
  std::vector<size_t> first_config;
  for (const ResourceAnswer& a : answers) {
    first_config.push_back(configs.size());
    for (const ConfigValue& c : a.configs) {
      Response::Config out;
      out.name = c.name;
      out.value = c.value;
      out.read_only = true;
      out.is_default = c.source == kSourceDefault;
      out.config_source = c.source;
      out.config_type = c.type;
      out.documentation = std::nullopt;
      configs.push_back(out);
    }
  }
  first_config.push_back(configs.size());
  std::vector<Response::ResourceResult> results;
  for (size_t i = 0; i < answers.size(); ++i) {
    const ResourceAnswer& a = answers[i];
    Response::ResourceResult r;
    r.error_code = a.error;
    if (a.message) r.error_message = *a.message;
    r.resource_type = a.type;
    r.resource_name = a.name;
    r.configs = std::span<const Response::Config>(configs).subspan(
        first_config[i], first_config[i + 1] - first_config[i]);
    results.push_back(r);
  }
  Response response;
  response.results = results;
  respond(exchange, response);
}

}  // namespace spillway::broker::kafka_listener
