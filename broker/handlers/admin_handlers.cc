// The control request handlers.
#include "admin_handlers.h"

#include <asio/post.hpp>
#include <string>
#include <vector>

#include "spillway/common/messages/metadata.h"
#include "spillway/common/messages/offsets.h"
#include "spillway/common/messages/topics.h"

namespace spillway::broker {

namespace {

void write_topic(messages::WireWriter& w, const Topic& topic) {
  if (!topic.offline.ok()) {
    // Listed, with why it does not serve; no settings or partitions known.
    messages::MetadataTopic::write(
        w, messages::MetadataTopic{
               topic.name, topic.offline.code(), topic.offline.message(), "", -1, -1, {}});
    return;
  }
  w.string(topic.name);
  w.i16(0);
  w.string("");
  w.string(flush_policy_name(topic.config.flush_policy));
  w.i64(topic.config.retention_bytes);
  w.i64(topic.config.retention_ms);
  w.i32(static_cast<int32_t>(topic.partitions.size()));
  for (const auto& p : topic.partitions) {
    messages::MetadataPartition part;
    part.partition = p->index();
    part.log_start_offset = p->log_start_offset();
    part.high_watermark = p->high_watermark();
    std::string why;  // kept alive until written
    if (p->corrupt()) {
      why = p->corruption_message();
      part.error_code = ErrorCode::kCorruptMessage;
      part.error_message = why;
    }
    messages::MetadataPartition::write(w, part);
  }
}

}  // namespace

void MetadataHandler::handle(Exchange& exchange) {
  Result<messages::MetadataRequest> request = messages::decode_metadata_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  messages::WireWriter w(exchange.out());
  if (request->all_topics) {
    // Sorted by name, so listings are stable.
    std::vector<const Topic*> topics;
    for (const auto& [name, topic] : context_.topics.table()) topics.push_back(topic.get());
    std::sort(topics.begin(), topics.end(),
              [](const Topic* a, const Topic* b) { return a->name < b->name; });
    w.i32(static_cast<int32_t>(topics.size()));
    for (const Topic* topic : topics) write_topic(w, *topic);
  } else {
    w.i32(request->topics.size());
    for (std::string_view name : request->topics) {
      const Topic* topic = context_.topics.find(name);
      if (topic != nullptr) {
        write_topic(w, *topic);
        continue;
      }
      messages::MetadataTopic::write(w,
                                     messages::MetadataTopic{name,
                                                             ErrorCode::kUnknownTopic,
                                                             "unknown topic " + std::string(name),
                                                             "",
                                                             -1,
                                                             -1,
                                                             {}});
    }
  }
  exchange.finish(w.status());
}

void CreateTopicsHandler::handle(Exchange& exchange) {
  Result<messages::CreateTopicsRequest> request =
      messages::decode_create_topics_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  CreateTopicSpec spec;
  spec.name = std::string(request->name);
  spec.partitions = request->partitions;
  spec.flush_policy = std::string(request->flush_policy);
  spec.retention_bytes = request->retention_bytes;
  spec.retention_ms = request->retention_ms;
  spec.segment_bytes = request->segment_bytes;
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
  std::string name(request->name);
  Status st = context_.topics.remove(
      name, exchange.executor(),
      [ex = &exchange, keep = exchange.keep_alive(), offsets = &context_.offsets, name](Status st) {
        offsets->forget_topic(name);
        ex->finish(st);
      });
  if (!st.ok()) exchange.finish(st);
}

void CommitOffsetsHandler::handle(Exchange& exchange) {
  Result<messages::CommitOffsetsRequest> request =
      messages::decode_commit_offsets_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  struct Work {
    std::string group;
    std::vector<OffsetStore::Entry> valid;
    struct Result {
      std::string topic;
      int32_t partition;
      ErrorCode code;
      std::string message;
    };
    std::vector<Result> results;  // in request order
    std::vector<std::pair<std::string, size_t>> topic_sizes;
  };
  auto work = std::make_shared<Work>();
  work->group = std::string(request->group);
  for (const messages::CommitOffsetsTopic& t : request->topics) {
    const Topic* topic = context_.topics.find(t.name);
    work->topic_sizes.emplace_back(std::string(t.name), static_cast<size_t>(t.entries.size()));
    for (const messages::CommitOffsetEntry& e : t.entries) {
      Work::Result r{std::string(t.name), e.partition, ErrorCode::kOk, {}};
      if (topic == nullptr) {
        r.code = ErrorCode::kUnknownTopic;
        r.message = "unknown topic " + std::string(t.name);
      } else if (Status usable = topic->check_partition(e.partition); !usable.ok()) {
        r.code = usable.code();
        r.message = std::string(usable.message());
      } else if (e.offset < 0) {
        r.code = ErrorCode::kInvalidArgument;
        r.message = "offset must be >= 0";
      } else {
        work->valid.push_back({std::string(t.name), e.partition, e.offset});
      }
      work->results.push_back(std::move(r));
    }
  }
  if (Status valid = OffsetStore::validate_group(work->group); !valid.ok()) {
    exchange.finish(valid);
    return;
  }
  asio::io_context& sync = context_.topics.sync_context(TopicRegistry::current_core());
  asio::post(
      sync, [work, offsets = &context_.offsets, ex = &exchange, keep = exchange.keep_alive()]() {
        Status st = work->valid.empty() ? Status::Ok() : offsets->commit(work->group, work->valid);
        asio::post(ex->executor(), [work, ex, keep, st = std::move(st)]() {
          messages::WireWriter w(ex->out());
          w.i32(static_cast<int32_t>(work->topic_sizes.size()));
          size_t r = 0;
          for (const auto& [name, count] : work->topic_sizes) {
            w.string(name);
            w.i32(static_cast<int32_t>(count));
            for (size_t i = 0; i < count; ++i, ++r) {
              const Work::Result& res = work->results[r];
              const bool failed = res.code == ErrorCode::kOk && !st.ok();
              messages::PartitionError::write(
                  w, messages::PartitionError{res.partition, failed ? st.code() : res.code,
                                              failed ? st.message() : res.message});
            }
          }
          ex->finish(w.status());
        });
      });
}

void FetchOffsetsHandler::handle(Exchange& exchange) {
  Result<messages::FetchOffsetsRequest> request =
      messages::decode_fetch_offsets_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  messages::WireWriter w(exchange.out());
  w.i32(request->topics.size());
  for (const messages::FetchOffsetsTopic& t : request->topics) {
    const Topic* topic = context_.topics.find(t.name);
    w.string(t.name);
    w.i32(t.partitions.size());
    for (int32_t partition : t.partitions) {
      messages::FetchOffsetsResult r{partition, -1, ErrorCode::kOk, {}};
      std::string message;
      if (topic == nullptr) {
        r.error_code = ErrorCode::kUnknownTopic;
        message = "unknown topic " + std::string(t.name);
      } else if (Status usable = topic->check_partition(partition); !usable.ok()) {
        r.error_code = usable.code();
        message = std::string(usable.message());
      } else {
        r.offset = context_.offsets.committed(request->group, t.name, partition);
      }
      r.error_message = message;
      messages::FetchOffsetsResult::write(w, r);
    }
  }
  exchange.finish(w.status());
}

}  // namespace spillway::broker
