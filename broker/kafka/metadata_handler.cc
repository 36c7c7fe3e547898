// Kafka's Metadata.
#include "metadata_handler.h"

#include <algorithm>
#include <vector>

#include "cluster/cluster_admin.h"
#include "codec.h"
#include "config/listen_address.h"
#include "error_map.h"
#include "handlers/access.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/metadata.h"

namespace spillway::broker::kafka_listener {

namespace {

using Response = kafka::MetadataResponse;

// The response as views over these, kept in the exchange and reused.
struct MetadataState final : ExchangeState {
  std::vector<Response::Topic> topics;
  std::vector<Response::Partition> partitions;
  std::vector<size_t> first_partition;  // per topic, into `partitions`
  std::vector<const Topic*> listed;
  std::array<int32_t, 1> replicas{};  // this broker
  // In a cluster: the snapshot the response views, the brokers, and every
  // partition's replicas, ISR and offline replicas (ranges into `nodes`,
  // linked once `nodes` stops growing).
  cluster::SnapshotPtr snapshot;
  std::vector<Response::Broker> brokers;
  std::vector<std::string> hosts;  // the brokers' hosts, which `brokers` views
  std::vector<int32_t> nodes;
  std::vector<std::array<size_t, 4>> node_ranges;  // per partition: replicas, isr, offline, end

  void clear() {
    topics.clear();
    partitions.clear();
    first_partition.clear();
    listed.clear();
    snapshot.reset();
    brokers.clear();
    hosts.clear();
    nodes.clear();
    node_ranges.clear();
  }

  // Topic `topic` as the cluster has it: each partition's leader, epoch,
  // replicas and ISR; a replica whose broker is not alive is offline.
  void add_cluster(const cluster::TopicAssignment& topic) {
    first_partition.push_back(partitions.size());
    Response::Topic t;
    t.name = topic.name;
    topics.push_back(t);
    for (size_t i = 0; i < topic.replicas.size(); ++i) {
      const cluster::PartitionState* state =
          snapshot->partition(topic.name, static_cast<int32_t>(i));
      Response::Partition part;
      part.partition_index = static_cast<int32_t>(i);
      std::array<size_t, 4> range{};
      range[0] = nodes.size();
      for (BrokerId id : topic.replicas[i]) nodes.push_back(id);
      range[1] = nodes.size();
      if (state != nullptr) {
        for (BrokerId id : state->isr) nodes.push_back(id);
      }
      range[2] = nodes.size();
      for (BrokerId id : topic.replicas[i]) {
        if (snapshot->brokers.count(id) == 0) nodes.push_back(id);
      }
      range[3] = nodes.size();
      node_ranges.push_back(range);
      if (state == nullptr || state->leader == kNoBroker ||
          snapshot->brokers.count(state->leader) == 0) {
        part.error_code = kafka::errors::kLeaderNotAvailable;
        part.leader_id = -1;
      } else {
        part.leader_id = state->leader;
      }
      part.leader_epoch = state != nullptr ? state->leader_epoch : -1;
      partitions.push_back(part);
    }
  }

  // Points each cluster partition's node lists into `nodes`.
  void link_nodes() {
    const std::span<const int32_t> all(nodes);
    for (size_t i = 0; i < node_ranges.size(); ++i) {
      const std::array<size_t, 4>& r = node_ranges[i];
      partitions[i].replica_nodes = all.subspan(r[0], r[1] - r[0]);
      partitions[i].isr_nodes = all.subspan(r[1], r[2] - r[1]);
      partitions[i].offline_replicas = all.subspan(r[2], r[3] - r[2]);
    }
  }

  void add(const Topic& topic) {
    first_partition.push_back(partitions.size());
    Response::Topic t;
    t.name = topic.name;
    t.error_code = kafka_error(topic.offline);
    topics.push_back(t);
    if (!topic.offline.ok()) return;
    for (const auto& p : topic.partitions) {
      Response::Partition part;
      part.partition_index = p->index().value();
      // A corrupt partition serves nothing until it is repaired.
      part.error_code = p->corrupt() ? kafka::errors::kKafkaStorageError : kafka::errors::kNone;
      part.leader_id = replicas[0];
      part.leader_epoch = 0;
      part.replica_nodes = replicas;
      part.isr_nodes = replicas;
      part.offline_replicas = {};
      partitions.push_back(part);
    }
  }

  void add_error(std::string_view name, int16_t error) {
    first_partition.push_back(partitions.size());
    Response::Topic t;
    t.name = name;
    t.error_code = error;
    topics.push_back(t);
  }

  void link_partitions() {
    first_partition.push_back(partitions.size());
    for (size_t t = 0; t < topics.size(); ++t) {
      topics[t].partitions =
          std::span<const Response::Partition>(partitions)
              .subspan(first_partition[t], first_partition[t + 1] - first_partition[t]);
    }
  }
};

}  // namespace

bool MetadataHandler::may(const Exchange& exchange, security::AclOperation operation,
                          std::string_view topic) const {
  return may_topic(context_.broker, exchange, operation, topic);
}

void MetadataHandler::handle(Exchange& exchange) {
  Result<kafka::MetadataRequest> request = decode_request<kafka::MetadataRequest>(exchange);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  const int16_t version = exchange.header().api_version;
  MetadataState& st = exchange.state<MetadataState>(Exchange::kOtherState);
  st.clear();
  st.replicas[0] = context_.node_id;
  const bool all = request->topics.is_null() || (version == 0 && request->topics.empty());
  if (context_.broker.cluster_admin != nullptr) {
    respond_cluster(exchange, *request, all);
    return;
  }
  TopicRegistry& topics = context_.broker.topics;
  if (all) {
    // Topics the principal may not describe are left out, as Kafka does.
    for (const auto& [name, topic] : topics.table()) {
      if (may(exchange, security::AclOperation::kDescribe, topic->name)) {
        st.listed.push_back(topic.get());
      }
    }
    std::sort(st.listed.begin(), st.listed.end(),
              [](const Topic* a, const Topic* b) { return a->name < b->name; });
    for (const Topic* topic : st.listed) st.add(*topic);
  } else {
    // Before v4 a client cannot say, and Kafka then creates topics too.
    const bool may_create = context_.broker.config.auto_create_topics &&
                            (version < 4 || request->allow_auto_topic_creation);
    for (const kafka::MetadataRequest::Topic& requested : request->topics) {
      // v10+ may name a topic by id only; Spillway has no topic ids.
      if (!requested.name) {
        st.add_error("", kafka::errors::kUnknownTopicOrPartition);
        continue;
      }
      const std::string_view name = *requested.name;
      const Topic* found = topics.find(name);
      // Kafka answers TOPIC_AUTHORIZATION_FAILED whether the topic exists
      // or not, so its existence does not leak; auto-creating one needs
      // Create on the cluster or on the topic besides.
      if (!may(exchange, security::AclOperation::kDescribe, name)) {
        st.add_error(name, kafka::errors::kTopicAuthorizationFailed);
      } else if (found != nullptr) {
        st.add(*found);
      } else if (may_create && validate_topic_name(name).ok() &&
                 !may_create_topic(context_.broker, exchange, name)) {
        st.add_error(name, kafka::errors::kTopicAuthorizationFailed);
      } else if (const Topic* topic = topics.find(name)) {
        st.add(*topic);
      } else if (!validate_topic_name(name).ok()) {
        st.add_error(name, kafka::errors::kInvalidTopicException);
      } else if (may_create) {
        CreateTopicSpec spec;
        spec.name = std::string(name);
        spec.partitions = static_cast<int32_t>(context_.broker.config.default_partitions);
        Result<std::shared_ptr<Topic>> created =
            topics.create(spec, exchange.executor(), [](Status) {});
        // Every core has it shortly; the client asks again meanwhile.
        st.add_error(name, created.ok() || created.status().code() == ErrorCode::kTopicExists
                               ? kafka::errors::kLeaderNotAvailable
                               : kafka_error(created.status()));
      } else {
        st.add_error(name, kafka::errors::kUnknownTopicOrPartition);
      }
    }
  }
  st.link_partitions();
  const AdvertisedAddress& address = context_.advertised_for(exchange);
  const Response::Broker self{.node_id = context_.node_id,
                              .host = address.host,
                              .port = address.port,
                              .rack = std::nullopt};
  Response response;
  response.brokers = std::span(&self, 1);
  response.cluster_id = context_.cluster_id;
  response.controller_id = context_.node_id;
  response.topics = st.topics;
  respond(exchange, response);
}

void MetadataHandler::respond_cluster(Exchange& exchange, const kafka::MetadataRequest& request,
                                      bool all) {
  MetadataState& st = exchange.state<MetadataState>(Exchange::kOtherState);
  cluster::ClusterAdmin& admin = *context_.broker.cluster_admin;
  st.snapshot = admin.snapshot();
  const cluster::ClusterSnapshot& snapshot = *st.snapshot;
  const int16_t version = exchange.header().api_version;
  if (all) {
    for (const auto& [name, topic] : snapshot.topics) {
      if (may(exchange, security::AclOperation::kDescribe, name)) st.add_cluster(topic);
    }
  } else {
    const bool may_create = context_.broker.config.auto_create_topics &&
                            (version < 4 || request.allow_auto_topic_creation);
    for (const kafka::MetadataRequest::Topic& requested : request.topics) {
      if (!requested.name) {
        st.add_error("", kafka::errors::kUnknownTopicOrPartition);
        continue;
      }
      const std::string_view name = *requested.name;
      auto found = snapshot.topics.find(name);
      if (!may(exchange, security::AclOperation::kDescribe, name)) {
        st.add_error(name, kafka::errors::kTopicAuthorizationFailed);
      } else if (found != snapshot.topics.end()) {
        st.add_cluster(found->second);
      } else if (!validate_topic_name(name).ok()) {
        st.add_error(name, kafka::errors::kInvalidTopicException);
      } else if (may_create && !may_create_topic(context_.broker, exchange, name)) {
        st.add_error(name, kafka::errors::kTopicAuthorizationFailed);
      } else if (may_create) {
        cluster::NewTopic topic;
        topic.name = std::string(name);
        topic.partitions = static_cast<int32_t>(context_.broker.config.default_partitions);
        topic.replication_factor = -1;
        admin.create_topic(std::move(topic), exchange.executor(), [](Status) {});
        // The client asks again; by then the topic has its leaders.
        st.add_error(name, kafka::errors::kLeaderNotAvailable);
      } else {
        st.add_error(name, kafka::errors::kUnknownTopicOrPartition);
      }
    }
  }
  st.link_partitions();
  st.link_nodes();
  st.hosts.reserve(snapshot.brokers.size());  // views into it must not move
  for (const auto& [id, broker] : snapshot.brokers) {
    Result<HostPort> address = parse_advertised_address(broker.kafka_address);
    if (!address.ok()) continue;  // no Kafka listener
    st.hosts.push_back(std::move(address->host));
    st.brokers.push_back({.node_id = id,
                          .host = st.hosts.back(),
                          .port = address->port,
                          .rack = broker.rack.empty()
                                      ? std::nullopt
                                      : std::optional<std::string_view>(broker.rack)});
  }
  Response response;
  response.brokers = st.brokers;
  response.cluster_id = context_.cluster_id;
  response.controller_id = snapshot.controller;
  response.topics = st.topics;
  respond(exchange, response);
}

}  // namespace spillway::broker::kafka_listener
