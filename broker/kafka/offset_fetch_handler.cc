// OffsetFetch.
#include "offset_fetch_handler.h"

#include <deque>
#include <string>
#include <vector>

#include "cluster/cluster_offsets.h"
#include "codec.h"
#include "error_map.h"
#include "group_ownership.h"
#include "handlers/access.h"
#include "spillway/common/kafka/offset_fetch.h"

namespace spillway::broker::kafka_listener {

namespace {

using Request = kafka::OffsetFetchRequest;
using Response = kafka::OffsetFetchResponse;

// The response as views over these; topics and partitions are linked once
// every group was added (the vectors stop moving then).
struct FetchAnswer {
  std::vector<Response::Topic> topics;
  std::vector<size_t> first_partition;  // per topic
  std::vector<Response::Partition> partitions;
  std::vector<Response::Group> groups;
  std::vector<size_t> first_topic;  // per group
  std::deque<std::string> names;    // topics listed from the store

  void add_topic(std::string_view name) {
    topics.push_back({.name = name, .partitions = {}});
    first_partition.push_back(partitions.size());
  }
  void add_partition(int32_t index, int64_t offset, int16_t error = 0) {
    partitions.push_back({.partition_index = index,
                          .committed_offset = offset,
                          .committed_leader_epoch = -1,
                          .metadata = "",
                          .error_code = error});
  }

  // Kafka's rules: Describe on the group, else GROUP_AUTHORIZATION_FAILED;
  // all topics asked: those the principal may not describe left out; named
  // ones: TOPIC_AUTHORIZATION_FAILED for each partition.
  void add_group(const OffsetStore& store, std::string_view group,
                 const kafka::Array<Request::Topic>& requested, const KafkaContext& context,
                 const Exchange& exchange) {
    // In a cluster the coordinator serves a group's offsets once it has
    // loaded them from etcd (cluster/cluster_offsets.h); until then the
    // client is told to ask again.
    auto loaded = [&] {
      return context.broker.cluster_offsets == nullptr ||
             context.broker.cluster_offsets->ready(std::string(group), exchange.executor());
    };
    const BrokerContext& broker = context.broker;
    const bool may_describe_group =
        may_group(broker, exchange, security::AclOperation::kDescribe, group);
    int16_t error = 0;
    if (!may_describe_group) {
      error = kafka_error(ErrorCode::kGroupAuthorizationFailed);
    } else if (!coordinates_group(context, group)) {
      error = kafka::errors::kNotCoordinator;
    } else if (!loaded()) {
      error = kafka::errors::kCoordinatorLoadInProgress;
    }
    groups.push_back({.group_id = group, .topics = {}, .error_code = error});
    first_topic.push_back(topics.size());
    if (error != 0) return;
    auto may_describe = [&](std::string_view topic) {
      return may_topic(broker, exchange, security::AclOperation::kDescribe, topic);
    };
    if (requested.is_null()) {
      std::string_view current;
      for (OffsetStore::Entry& e : store.group_offsets(group)) {
        if (!may_describe(e.topic)) continue;
        if (topics.size() == first_topic.back() || e.topic != current) {
          current = names.emplace_back(std::move(e.topic));
          add_topic(current);
        }
        add_partition(e.partition, e.offset);
      }
      return;
    }
    for (const Request::Topic& t : requested) {
      add_topic(t.name);
      const bool allowed = may_describe(t.name);
      for (int32_t p : t.partition_indexes) {
        if (allowed) {
          add_partition(p, store.committed(group, t.name, p));
        } else {
          add_partition(p, -1, kafka_error(ErrorCode::kTopicAuthorizationFailed));
        }
      }
    }
  }

  void link() {
    first_partition.push_back(partitions.size());
    for (size_t t = 0; t < topics.size(); ++t) {
      topics[t].partitions =
          std::span<const Response::Partition>(partitions)
              .subspan(first_partition[t], first_partition[t + 1] - first_partition[t]);
    }
    first_topic.push_back(topics.size());
    for (size_t g = 0; g < groups.size(); ++g) {
      groups[g].topics = std::span<const Response::Topic>(topics).subspan(
          first_topic[g], first_topic[g + 1] - first_topic[g]);
    }
  }
};

}  // namespace

void OffsetFetchHandler::handle(Exchange& exchange) {
  Result<Request> request = decode_request<Request>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  const OffsetStore& store = context_.broker.offsets;
  FetchAnswer answer;
  Response response;
  if (exchange.header().api_version >= 8) {
    for (const Request::Group& g : request->groups) {
      answer.add_group(store, g.group_id, g.topics, context_, exchange);
    }
    answer.link();
    response.groups = answer.groups;
  } else {
    answer.add_group(store, request->group_id, request->topics, context_, exchange);
    answer.link();
    response.topics = answer.groups[0].topics;
    response.error_code = answer.groups[0].error_code;
  }
  respond(exchange, response);
}

}  // namespace spillway::broker::kafka_listener
