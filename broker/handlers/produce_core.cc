// The shared produce core: admission, appends posted to owner cores, and
// the per-partition results.
#include "produce_core.h"

#include <cstring>

#include "core/task_pool.h"
#include "core/topic_registry.h"
#include "disk_full_log.h"
#include "metrics/metrics.h"
#include "spillway/common/buffer_pool.h"

namespace spillway::broker {

namespace {

using messages::Acks;

// acks none: answered already (the exchange may have been reused), so only
// the log learns how the append went. `ctx` is the Partition, held alive by
// the reply's keep_alive.
void unanswered_reply(void* ctx, uint32_t, PartitionReply& reply) {
  const auto& partition = *static_cast<const Partition*>(ctx);
  if (reply.status.ok()) {
    DiskFullLog::global().succeeded(partition.topic(), partition.index().value());
  } else {
    DiskFullLog::global().failed(partition.topic(), partition.index().value(), reply.status);
  }
}

}  // namespace

void ProduceCore::begin(Exchange& exchange, BrokerContext& context, Done done) {
  exchange_ = &exchange;
  context_ = &context;
  done_ = done;
  names_.clear();
  topics_.clear();
  entries_.clear();
  pending_ = 0;
  timeout_ms_ = 0;
  dispatching_ = true;
}

uint32_t ProduceCore::add_topic(std::string_view name) {
  topics_.emplace_back(static_cast<uint32_t>(names_.size()), static_cast<uint32_t>(name.size()));
  names_.append(name);
  return static_cast<uint32_t>(topics_.size() - 1);
}

std::string_view ProduceCore::topic_name(uint32_t topic) const {
  return std::string_view(names_).substr(topics_[topic].first, topics_[topic].second);
}

void ProduceCore::add_error(uint32_t topic, int32_t partition, const Status& status) {
  entries_.push_back(
      Entry{topic, partition, status.code(), std::string(status.message()), -1, 0, -1});
}

Result<batch::BatchHeader> ProduceCore::admit(uint32_t topic_index, Topic* topic, int32_t partition,
                                              std::span<const std::byte> batch, bool route_by_key) {
  Status usable = Status::Ok();
  if (topic == nullptr) {
    usable =
        Status(ErrorCode::kUnknownTopic, "unknown topic " + std::string(topic_name(topic_index)));
  } else if (route_by_key && partition == messages::kRouteByKey) {
    usable = topic->offline;
  } else {
    usable = topic->check_partition(partition);
  }
  if (!usable.ok()) {
    add_error(topic_index, partition, usable);
    return usable;
  }
  Status valid =
      batch::validate_produced(batch, static_cast<size_t>(context_->config.max_batch_bytes));
  if (!valid.ok()) {
    if (context_->metrics) context_->metrics->count_rejected_batch();
    add_error(topic_index, partition, valid);
    return valid;
  }
  Result<batch::BatchHeader> header = batch::parse_header(batch);  // validated: parses
  topic->counters.bytes_in.fetch_add(batch.size(), std::memory_order_relaxed);
  topic->counters.messages_in.fetch_add(static_cast<uint64_t>(header->record_count),
                                        std::memory_order_relaxed);
  return header;
}

void ProduceCore::produce(uint32_t topic_index, Topic* topic, int32_t partition,
                          std::span<const std::byte> batch, Acks acks, BatchBuffer buffer) {
  Result<batch::BatchHeader> header = admit(topic_index, topic, partition, batch);
  if (!header.ok()) return;
  // Adopting the body saves the one copy between the socket and the log
  // (the read went straight into the body's buffer).
  std::byte* rented = buffer == BatchBuffer::kAdoptBody ? exchange_->adopt_body() : nullptr;
  Status posted = post_append(*topic->partitions[static_cast<size_t>(partition)], topic_index,
                              batch, header->record_count, acks, rented);
  if (!posted.ok()) add_error(topic_index, partition, posted);
}

Status ProduceCore::post_append(Partition& partition, uint32_t topic,
                                std::span<const std::byte> batch, int32_t record_count, Acks acks,
                                std::byte* rented) {
  // Where the batch starts in the buffer `rented` starts: 0 for a copy or
  // a routed batch, after the request's own fields for an adopted body.
  size_t at = 0;
  if (rented == nullptr) {
    std::span<std::byte> buffer = BufferPool::global().rent(batch.size());
    if (buffer.empty()) {
      return Status(ErrorCode::kResourceExhausted,
                    "no pooled buffer for a batch of " + std::to_string(batch.size()) + " bytes");
    }
    std::memcpy(buffer.data(), batch.data(), batch.size());
    rented = buffer.data();
  } else {
    at = static_cast<size_t>(batch.data() - rented);
  }
  const auto index = static_cast<uint32_t>(entries_.size());
  entries_.push_back(
      Entry{topic, partition.index().value(), ErrorCode::kOk, {}, -1, record_count, -1});
  std::shared_ptr<Partition> owner = partition.shared_from_this();
  Reply reply;
  reply.executor = tracked_executor(exchange_->context());
  reply.index = index;
  if (acks == Acks::kNone) {
    reply.keep_alive = owner;
    reply.fn = &unanswered_reply;
    reply.ctx = &partition;
  } else {
    reply.keep_alive = exchange_->keep_alive();
    reply.fn = &ProduceCore::on_append;
    reply.ctx = this;
    ++pending_;
  }
  exchange_->note_partition_owner(partition.owner());
  const AckAfter ack = acks == Acks::kDurable ? AckAfter::kSync
                       : acks == Acks::kAll   ? AckAfter::kIsr
                                              : AckAfter::kWrite;
  post_task(partition.owner(), [owner = std::move(owner), rented, at, size = batch.size(), ack,
                                timeout = int64_t{timeout_ms_},
                                reply = std::move(reply)]() mutable {
    owner->append(std::span<std::byte>(rented + at, size), rented, ack, std::move(reply), timeout);
  });
  return Status::Ok();
}

void ProduceCore::end() {
  dispatching_ = false;
  if (pending_ == 0) done_(*this);
}

// A partition's reply, on the exchange's thread.
void ProduceCore::on_append(void* ctx, uint32_t index, PartitionReply& reply) {
  auto& core = *static_cast<ProduceCore*>(ctx);
  Entry& entry = core.entries_[index];
  if (reply.status.ok()) {
    entry.base_offset = reply.base_offset.value();
    entry.log_start_offset = reply.log_start_offset.value();
    DiskFullLog::global().succeeded(core.topic_name(entry.topic), entry.partition);
  } else {
    entry.code = reply.status.code();
    entry.message = std::string(reply.status.message());
    entry.base_offset = -1;
    DiskFullLog::global().failed(core.topic_name(entry.topic), entry.partition, reply.status);
  }
  if (--core.pending_ == 0 && !core.dispatching_) core.done_(core);
}

}  // namespace spillway::broker
