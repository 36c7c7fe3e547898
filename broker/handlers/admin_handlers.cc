// The control request handlers.
#include "admin_handlers.h"

#include <algorithm>
#include <asio/post.hpp>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cluster_admin.h"
#include "groups/group_coordinator.h"
#include "handlers/access.h"
#include "spillway/common/messages/metadata.h"
#include "spillway/common/messages/offsets.h"
#include "spillway/common/messages/topics.h"

namespace spillway::broker {

namespace {

// Metadata's response as views (messages/metadata.h) over what is built
// here, kept in the exchange and reused request after request.
struct MetadataState final : ExchangeState {
  std::vector<messages::MetadataTopic> topics;
  std::vector<messages::MetadataPartition> partitions;
  std::vector<size_t> first_partition;  // per topic, into `partitions`
  std::deque<std::string> texts;        // error messages (stable addresses)
  std::vector<const Topic*> listed;

  void clear() {
    topics.clear();
    partitions.clear();
    first_partition.clear();
    texts.clear();
    listed.clear();
  }

  void add(const Topic& topic) {
    first_partition.push_back(partitions.size());
    if (!topic.offline.ok()) {
      // Listed, with why it does not serve; no settings or partitions known.
      topics.push_back({.name = topic.name,
                        .error_code = topic.offline.code(),
                        .error_message = texts.emplace_back(topic.offline.message()),
                        .flush_policy = "",
                        .retention_bytes = -1,
                        .retention_ms = -1,
                        .partitions = {}});
      return;
    }
    topics.push_back({.name = topic.name,
                      .error_code = ErrorCode::kOk,
                      .error_message = "",
                      .flush_policy = flush_policy_name(topic.config.flush_policy),
                      .retention_bytes = topic.config.retention_bytes,
                      .retention_ms = topic.config.retention_ms,
                      .partitions = {}});
    for (const auto& p : topic.partitions) {
      messages::MetadataPartition part{.partition = p->index().value(),
                                       .log_start_offset = p->log_start_offset().value(),
                                       .high_watermark = p->high_watermark().value(),
                                       .error_code = ErrorCode::kOk,
                                       .error_message = "",
                                       .size_bytes = static_cast<int64_t>(p->size_bytes())};
      if (p->corrupt()) {
        part.error_code = ErrorCode::kCorruptMessage;
        part.error_message = texts.emplace_back(p->corruption_message());
      }
      partitions.push_back(part);
    }
  }

  void add_unknown(std::string_view name) {
    add_error(name, ErrorCode::kUnknownTopic, "unknown topic " + std::string(name));
  }

  void add_error(std::string_view name, ErrorCode code, std::string message) {
    first_partition.push_back(partitions.size());
    topics.push_back({.name = name,
                      .error_code = code,
                      .error_message = texts.emplace_back(std::move(message)),
                      .flush_policy = "",
                      .retention_bytes = -1,
                      .retention_ms = -1,
                      .partitions = {}});
  }

  // The response, once every topic was added.
  messages::MetadataResponse response() {
    first_partition.push_back(partitions.size());
    for (size_t t = 0; t < topics.size(); ++t) {
      topics[t].partitions =
          std::span<const messages::MetadataPartition>(partitions)
              .subspan(first_partition[t], first_partition[t + 1] - first_partition[t]);
    }
    return messages::MetadataResponse{topics};
  }
};

}  // namespace

Status check_commit(const Topic* topic, std::string_view name, int32_t partition, int64_t offset) {
  if (topic == nullptr)
    return Status(ErrorCode::kUnknownTopic, "unknown topic " + std::string(name));
  SPILLWAY_RETURN_IF_ERROR(topic->check_partition(partition));
  if (offset < 0) return Status(ErrorCode::kInvalidArgument, "offset must be >= 0");
  return Status::Ok();
}

void MetadataHandler::handle(Exchange& exchange) {
  Result<messages::MetadataRequest> request = messages::decode_metadata_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  MetadataState& st = exchange.state<MetadataState>(Exchange::kOtherState);
  st.clear();
  if (request->all_topics) {
    // Sorted by name, so listings are stable.
    // Only the topics the principal may describe (as Kafka's Metadata).
    for (const auto& [name, topic] : context_.topics.table()) {
      if (may_topic(context_, exchange, security::AclOperation::kDescribe, topic->name)) {
        st.listed.push_back(topic.get());
      }
    }
    std::sort(st.listed.begin(), st.listed.end(),
              [](const Topic* a, const Topic* b) { return a->name < b->name; });
    for (const Topic* topic : st.listed) st.add(*topic);
  } else {
    for (std::string_view name : request->topics) {
      if (!may_topic(context_, exchange, security::AclOperation::kDescribe, name)) {
        st.add_error(name, ErrorCode::kTopicAuthorizationFailed,
                     "not allowed to describe topic " + std::string(name));
      } else if (const Topic* topic = context_.topics.find(name)) {
        st.add(*topic);
      } else {
        st.add_unknown(name);
      }
    }
  }
  exchange.finish(messages::encode_metadata_response(st.response(), exchange.out(),
                                                     exchange.header().api_version));
}

void CreateTopicsHandler::handle(Exchange& exchange) {
  Result<messages::CreateTopicsRequest> request =
      messages::decode_create_topics_request(exchange.body(), exchange.header().api_version);
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (!may_create_topic(context_, exchange, request->name)) {
    exchange.finish(Status(ErrorCode::kTopicAuthorizationFailed,
                           "not allowed to create topics (Create on the cluster or the topic)"));
    return;
  }
  CreateTopicSpec spec;
  spec.name = std::string(request->name);
  spec.partitions = request->partitions;
  spec.flush_policy = std::string(request->flush_policy);
  spec.retention_bytes = request->retention_bytes;
  spec.retention_ms = request->retention_ms;
  spec.segment_bytes = request->segment_bytes;
  if (context_.cluster_admin != nullptr) {
    // In a cluster: placed by the cluster (replication factor -1: [cluster]
    // default_replication_factor).
    if (Status st = context_.topics.resolve(spec).status(); !st.ok()) {
      exchange.finish(st);
      return;
    }
    cluster::NewTopic topic;
    topic.name = spec.name;
    topic.partitions = spec.partitions;
    topic.replication_factor = request->replication_factor;
    topic.settings.flush_policy = spec.flush_policy;
    topic.settings.retention_bytes = spec.retention_bytes;
    topic.settings.retention_ms = spec.retention_ms;
    topic.settings.segment_bytes = spec.segment_bytes;
    context_.cluster_admin->create_topic(
        std::move(topic), exchange.executor(),
        [ex = &exchange, keep = exchange.keep_alive()](Status st) { ex->finish(st); });
    return;
  }
  if (request->replication_factor != -1 && request->replication_factor != 1) {
    exchange.finish(Status(ErrorCode::kInvalidArgument,
                           "replication factor must be 1 (or -1): this broker is not in a "
                           "cluster ([cluster] etcd_endpoints)"));
    return;
  }
  Result<std::shared_ptr<Topic>> created = context_.topics.create(
      spec, exchange.executor(),
      [ex = &exchange, keep = exchange.keep_alive()](Status st) { ex->finish(st); });
  if (!created.ok()) exchange.finish(created.status());
}

void DeleteTopicsHandler::handle(Exchange& exchange) {
  Result<messages::DeleteTopicsRequest> request =
      messages::decode_delete_topics_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  if (!may_topic(context_, exchange, security::AclOperation::kDelete, request->name)) {
    exchange.finish(
        Status(ErrorCode::kTopicAuthorizationFailed, "not allowed to delete the topic"));
    return;
  }
  std::string name(request->name);
  if (context_.cluster_admin != nullptr) {
    context_.cluster_admin->delete_topic(name, exchange.executor(),
                                         [ex = &exchange, keep = exchange.keep_alive(),
                                          offsets = &context_.offsets, name](Status st) {
                                           if (st.ok()) offsets->forget_topic(name);
                                           ex->finish(st);
                                         });
    return;
  }
  Status st = context_.topics.remove(
      name, exchange.executor(),
      [ex = &exchange, keep = exchange.keep_alive(), offsets = &context_.offsets, name](Status st) {
        offsets->forget_topic(name);
        ex->finish(st);
      });
  if (!st.ok()) exchange.finish(st);
}

namespace {

// Who commits: a member of the group in a generation, or nobody (generation
// -1 and no member id: a "simple" commit, which the coordinator allows only
// while the group has no members).
struct Committer {
  std::string member_id;
  int32_t generation = -1;
  std::optional<std::string> group_instance_id;
};

// CommitOffsets and CommitMemberOffsets: checks every entry, asks the
// coordinator whether `who` may commit for the group now, stores the valid
// entries (on the core's sync thread: an fsync per commit) and answers
// with one result per entry, in request order. A refusal by the
// coordinator is the result of every entry that was to be stored.
void commit(BrokerContext& context, Exchange& exchange, std::string_view group,
            const messages::Array<messages::CommitOffsetsTopic>& topics, Committer who) {
  struct Work {
    std::string group;
    std::vector<OffsetStore::Entry> valid;
    struct Result {
      std::string topic;
      int32_t partition;
      ErrorCode code;
      std::string message;
      bool stored;  // valid: its result is the coordinator's or the store's
    };
    std::vector<Result> results;  // in request order
    std::vector<std::pair<std::string, size_t>> topic_sizes;
  };
  auto work = std::make_shared<Work>();
  work->group = std::string(group);
  if (!may_group(context, exchange, security::AclOperation::kRead, group)) {
    exchange.finish(Status(ErrorCode::kGroupAuthorizationFailed, "not allowed to read the group"));
    return;
  }
  for (const messages::CommitOffsetsTopic& t : topics) {
    const Topic* topic = context.topics.find(t.name);
    const bool may_read = may_topic(context, exchange, security::AclOperation::kRead, t.name);
    work->topic_sizes.emplace_back(std::string(t.name), static_cast<size_t>(t.entries.size()));
    for (const messages::CommitOffsetEntry& e : t.entries) {
      Work::Result r{std::string(t.name), e.partition, ErrorCode::kOk, {}, false};
      if (!may_read) {
        r.code = ErrorCode::kTopicAuthorizationFailed;
        r.message = "not allowed to read the topic";
      } else if (Status st = check_commit(topic, t.name, e.partition, e.offset); !st.ok()) {
        r.code = st.code();
        r.message = std::string(st.message());
      } else {
        work->valid.push_back({std::string(t.name), e.partition, e.offset});
        r.stored = true;
      }
      work->results.push_back(std::move(r));
    }
  }
  if (Status valid = OffsetStore::validate_group(work->group); !valid.ok()) {
    exchange.finish(valid);
    return;
  }
  // `st`: the coordinator's refusal or the store's answer.
  const auto send = [](Exchange& ex, const Work& work, const Status& st) {
    // The response as views over the results (messages/offsets.h).
    std::vector<messages::PartitionError> errors;
    errors.reserve(work.results.size());
    for (const Work::Result& res : work.results) {
      const bool failed = res.stored && !st.ok();
      errors.push_back({.partition = res.partition,
                        .error_code = failed ? st.code() : res.code,
                        .error_message = failed ? st.message() : res.message});
    }
    std::vector<messages::CommitOffsetsTopicResult> topics;
    size_t first = 0;
    for (const auto& [name, count] : work.topic_sizes) {
      topics.push_back(
          {.name = name,
           .results = std::span<const messages::PartitionError>(errors).subspan(first, count)});
      first += count;
    }
    ex.finish(messages::encode_commit_offsets_response({topics}, ex.out()));
  };
  const auto store = [&context, work, send](Exchange& ex, std::shared_ptr<void> keep) {
    std::vector<OffsetStore::Entry> entries = std::move(work->valid);
    context.offsets.commit_async(
        work->group, std::move(entries), ex.executor(),
        [work, send, ex = &ex, keep = std::move(keep)](Status st) { send(*ex, *work, st); });
  };
  if (work->valid.empty()) {
    send(exchange, *work, Status::Ok());
    return;
  }
  if (context.groups == nullptr) {
    // No coordinator (a broker without groups): only simple commits.
    if (who.generation >= 0 || !who.member_id.empty()) {
      send(exchange, *work, Status(ErrorCode::kIllegalGeneration, "this broker serves no groups"));
      return;
    }
    store(exchange, exchange.keep_alive());
    return;
  }
  context.groups->check_commit(
      work->group, std::move(who.member_id), who.generation, std::move(who.group_instance_id),
      exchange.executor(),
      [work, send, store, ex = &exchange, keep = exchange.keep_alive()](Status allowed) {
        if (!allowed.ok()) {
          send(*ex, *work, allowed);
          return;
        }
        store(*ex, keep);
      });
}

}  // namespace

void CommitOffsetsHandler::handle(Exchange& exchange) {
  Result<messages::CommitOffsetsRequest> request =
      messages::decode_commit_offsets_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  commit(context_, exchange, request->group, request->topics, Committer{});
}

void CommitMemberOffsetsHandler::handle(Exchange& exchange) {
  Result<messages::CommitMemberOffsetsRequest> request =
      messages::decode_commit_member_offsets_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  Committer who{.member_id = std::string(request->member_id),
                .generation = request->generation_id,
                .group_instance_id = std::nullopt};
  if (request->group_instance_id) who.group_instance_id = std::string(*request->group_instance_id);
  commit(context_, exchange, request->group, request->topics, std::move(who));
}

void FetchOffsetsHandler::handle(Exchange& exchange) {
  Result<messages::FetchOffsetsRequest> request =
      messages::decode_fetch_offsets_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  // The response as views over these (messages/offsets.h).
  std::vector<messages::FetchOffsetsResult> results;
  std::vector<messages::FetchOffsetsTopicResult> topics;
  std::deque<std::string> texts;
  std::vector<size_t> counts;
  if (!may_group(context_, exchange, security::AclOperation::kDescribe, request->group)) {
    exchange.finish(
        Status(ErrorCode::kGroupAuthorizationFailed, "not allowed to describe the group"));
    return;
  }
  for (const messages::FetchOffsetsTopic& t : request->topics) {
    const Topic* topic = context_.topics.find(t.name);
    const bool may_describe =
        may_topic(context_, exchange, security::AclOperation::kDescribe, t.name);
    counts.push_back(static_cast<size_t>(t.partitions.size()));
    for (int32_t partition : t.partitions) {
      messages::FetchOffsetsResult r{
          .partition = partition, .offset = -1, .error_code = ErrorCode::kOk, .error_message = ""};
      if (!may_describe) {
        r.error_code = ErrorCode::kTopicAuthorizationFailed;
        r.error_message = "not allowed to describe the topic";
      } else if (topic == nullptr) {
        r.error_code = ErrorCode::kUnknownTopic;
        r.error_message = texts.emplace_back("unknown topic " + std::string(t.name));
      } else if (Status usable = topic->check_partition(partition); !usable.ok()) {
        r.error_code = usable.code();
        r.error_message = texts.emplace_back(usable.message());
      } else {
        r.offset = context_.offsets.committed(request->group, t.name, partition);
      }
      results.push_back(r);
    }
  }
  size_t first = 0;
  size_t index = 0;
  for (const messages::FetchOffsetsTopic& t : request->topics) {
    topics.push_back({.name = t.name,
                      .results = std::span<const messages::FetchOffsetsResult>(results).subspan(
                          first, counts[index])});
    first += counts[index++];
  }
  exchange.finish(messages::encode_fetch_offsets_response({topics}, exchange.out()));
}

}  // namespace spillway::broker
