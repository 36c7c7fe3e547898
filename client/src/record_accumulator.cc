// RecordAccumulator: per-partition batch queues (see record_accumulator.h).
#include "record_accumulator.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <string>

#include "producer_staging.h"
#include "spillway/common/key_partitioner.h"

namespace spillway::producer_internal {

namespace {

// Batch objects made up front: the early sends (and the steady state of most
// workloads) take them from the free list.
constexpr int kFirstStock = 64;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

RecordAccumulator::RecordAccumulator(Config config) : config_(config) {
  all_.reserve(1'024);
  for (int i = 0; i < kFirstStock; ++i) {
    Batch* b = new Batch;
    all_.push_back(b);
    push_front(&free_, b);
  }
}

RecordAccumulator::~RecordAccumulator() {
  for (Batch* b : all_) delete b;
}

TopicQueues& RecordAccumulator::topic(std::string_view name) {
  if (last_topic_ != nullptr && last_topic_->name == name) return *last_topic_;
  auto it = topics_.find(name);
  if (it == topics_.end()) {
    auto fresh = std::make_unique<TopicQueues>();
    fresh->name = std::string(name);
    it = topics_.emplace(fresh->name, std::move(fresh)).first;
  }
  last_topic_ = it->second.get();
  return *last_topic_;
}

TopicQueues* RecordAccumulator::find_topic(std::string_view name) {
  auto it = topics_.find(name);
  return it == topics_.end() ? nullptr : it->second.get();
}

void RecordAccumulator::set_partition_count(TopicQueues& t, int32_t count) {
  t.partitions.resize(static_cast<std::size_t>(count));
  t.routes_version = 0;  // the I/O thread routes the new queues
  t.sticky = PartitionId(static_cast<int32_t>(
      murmur2(std::as_bytes(std::span<const char>(t.name.data(), t.name.size()))) %
      static_cast<uint32_t>(count)));
}

Batch* RecordAccumulator::new_batch(TopicQueues& t, PartitionId partition, Clock::time_point now) {
  Batch* b = free_;
  if (b) {
    free_ = b->next;
  } else {
    b = new Batch;
    all_.push_back(b);
  }
  b->next = nullptr;
  b->topic = &t;
  b->partition = partition;
  b->count = 0;
  b->bytes = 0;
  b->created = now;
  b->deadline = now + config_.delivery_timeout;
  b->retry_at = now;
  b->attempts = 0;
  b->sealed = false;
  b->base_offset = kNoOffset;
  b->error = Status::Ok();
  b->producer_id = -1;
  b->producer_epoch = -1;
  b->base_sequence = -1;
  b->drained = 0;
  return b;
}

void RecordAccumulator::seal(TopicQueues& t, Batch* b) {
  b->sealed = true;
  const int32_t count = t.partition_count();
  if (t.sticky == b->partition && count > 0) {
    t.sticky = PartitionId((t.sticky.value() + 1) % count);
  }
}

RecordAccumulator::Appended RecordAccumulator::append(TopicQueues& t, PartitionId partition,
                                                      Placement placement,
                                                      const RecordToStage& record) {
  Appended out;
  // Every partition whose batches changed is at its in-flight limit.
  bool all_in_flight = true;
  const auto changed = [&](const PartitionQueue& q) {
    out.batch_changed = true;
    all_in_flight = all_in_flight && q.in_flight >= per_partition_;
  };
  const std::size_t size = record.entry_bytes;
  Batch* open = t.queue(partition).tail;
  if (open && !open->sealed && open->count > 0 && open->bytes + size > config_.batch_bytes) {
    seal(t, open);
    changed(t.queue(partition));
    if (placement == Placement::kSticky) partition = t.sticky;  // follows the sticky move
  }
  out.partition = partition;
  PartitionQueue& q = t.queue(partition);
  if (!q.fenced.ok()) {  // fenced meanwhile, or the sticky move landed on a fenced one
    out.error = fenced_error(t, partition, q.fenced);
    return out;
  }
  Batch* b = q.tail;
  if (!b || b->sealed) {
    // The steady clock is read only here, once per batch (its linger and
    // delivery deadlines); a clock read per record was a fifth of send().
    b = new_batch(t, partition, Clock::now());
    if (q.tail) {
      q.tail->next = b;
    } else {
      q.head = b;
    }
    q.tail = b;
    changed(q);  // a new linger deadline
  }
  std::span<std::byte> entry = b->staging.reserve(size);
  if (entry.size() < size) {
    out.error = Status(ErrorCode::kResourceExhausted, "no pooled buffer to stage a record");
    fence_later_records(t, partition, out.error);  // the records before it may still go
    return out;
  }
  write_entry(entry.data(), size, now_ms(), record.callback, record.key, record.value,
              record.headers);
  b->staging.advance(size);
  ++b->count;
  b->bytes += size;
  buffered_ += size;
  if (b->bytes >= config_.batch_bytes) {
    seal(t, b);
    changed(q);
  }
  out.behind_in_flight = out.batch_changed && all_in_flight;
  return out;
}

Batch* RecordAccumulator::drain_ready(Clock::time_point now, Linger linger, std::size_t max_bytes,
                                      int32_t leader, int64_t producer_id) {
  Batch* first = nullptr;
  Batch** link = &first;
  std::size_t bytes = 0;
  for (auto& [name, t] : topics_) {
    for (PartitionQueue& p : t->partitions) {
      Batch* b = p.head;
      if (!b || p.leader != leader || p.in_flight >= per_partition_ || b->count == 0 ||
          now < b->retry_at) {
        continue;
      }
      if (!b->sealed && linger == Linger::kWait && now < b->created + config_.linger) continue;
      if (bytes > 0 && bytes + b->bytes > max_bytes) continue;
      // Numbered under the id it was first sent with, or (not yet) the current one.
      const int64_t numbered = b->base_sequence >= 0 ? b->producer_id : producer_id;
      const uint64_t order = b->drained != 0 ? b->drained : p.next_drained;
      if (p.in_flight > 0 && (numbered != p.flying_producer_id || order < p.flying_last)) continue;
      bytes += b->bytes;
      p.head = b->next;
      if (!p.head) p.tail = nullptr;
      if (!b->sealed) seal(*t, b);
      b->next = nullptr;
      if (b->drained == 0) b->drained = p.next_drained++;
      if (p.in_flight == 0) p.flying_producer_id = numbered;
      p.flying_last = p.in_flight == 0 ? b->drained : std::max(p.flying_last, b->drained);
      ++p.in_flight;
      *link = b;
      link = &b->next;
    }
  }
  return first;
}

Clock::time_point RecordAccumulator::next_due(Clock::time_point limit, Linger linger,
                                              std::span<const int32_t> sendable) const {
  Clock::time_point due = limit;
  for (const auto& [name, t] : topics_) {
    for (const PartitionQueue& p : t->partitions) {
      const Batch* b = p.head;
      if (!b) continue;
      due = std::min(due, b->deadline);
      if (p.in_flight >= per_partition_ || b->count == 0 ||
          std::find(sendable.begin(), sendable.end(), p.leader) == sendable.end()) {
        continue;
      }
      if (b->sealed || linger == Linger::kSkip) {
        due = std::min(due, b->retry_at);
      } else {
        due = std::min(due, std::max(b->retry_at, b->created + config_.linger));
      }
    }
  }
  return due;
}

Clock::time_point RecordAccumulator::next_expiry(Clock::time_point limit) const {
  Clock::time_point due = limit;
  for (const auto& [name, t] : topics_) {
    for (const PartitionQueue& p : t->partitions) {
      if (p.head) due = std::min(due, p.head->deadline);
    }
  }
  return due;
}

bool RecordAccumulator::has_batches_for(int32_t leader) const {
  for (const auto& [name, t] : topics_) {
    for (const PartitionQueue& p : t->partitions) {
      if (p.head && p.leader == leader) return true;
    }
  }
  return false;
}

bool RecordAccumulator::idle() const {
  for (const auto& [name, t] : topics_) {
    for (const PartitionQueue& p : t->partitions) {
      if (p.head || p.in_flight > 0) return false;
    }
  }
  return true;
}

Batch* RecordAccumulator::take_expired(Clock::time_point now, bool closing) {
  Batch* first = nullptr;
  Batch** link = &first;
  for (auto& [name, t] : topics_) {
    for (PartitionQueue& p : t->partitions) {
      Batch* b = p.head;
      if (!b || (b->deadline > now && !closing)) continue;
      p.head = b->next;
      if (!p.head) p.tail = nullptr;
      b->next = nullptr;
      *link = b;
      link = &b->next;
    }
  }
  return first;
}

void RecordAccumulator::requeue(Batch* b) {
  PartitionQueue& p = b->topic->queue(b->partition);
  // Behind the retries sent before it, ahead of the rest (the batches
  // sent after it, and those never sent).
  Batch** at = &p.head;
  while (*at && (*at)->drained != 0 && (*at)->drained < b->drained) at = &(*at)->next;
  b->next = *at;
  *at = b;
  if (!b->next) p.tail = b;
}

bool RecordAccumulator::earlier_batch_queued(const Batch* b) const {
  const PartitionQueue& p = b->topic->queue(b->partition);
  // Retries are at the front, in send order.
  return p.head && p.head->drained != 0 && p.head->drained < b->drained;
}

void RecordAccumulator::finished(Batch* b) {
  PartitionQueue& p = b->topic->queue(b->partition);
  assert(p.in_flight > 0);
  --p.in_flight;
}

// No holes in a partition: once one of its records has failed, nothing more
// is appended to it until the application says so. Without this, a batch
// that timed out during a broker outage was followed by batches sent after
// the broker came back, and the partition held the records before and after
// the failed ones but not those (issue 11). Like Kafka's idempotent
// producer, the partition is fenced instead: what is queued behind the
// failure fails unsent, append() refuses later records, and reset_fence()
// lifts the fence.
void RecordAccumulator::fence(TopicQueues& t, PartitionId partition, const Status& cause,
                              Batch** done) {
  PartitionQueue& p = t.queue(partition);
  if (p.fenced.ok()) p.fenced = cause;
  if (!p.head) return;
  const Status st = fenced_error(t, partition, p.fenced);
  while (p.head) {
    Batch* b = p.head;
    p.head = b->next;
    if (!b->sealed) seal(t, b);  // the open batch: the next append must not use it
    b->error = st;
    b->base_offset = kNoOffset;
    push_front(done, b);
  }
  p.tail = nullptr;
}

void RecordAccumulator::fence_later_records(TopicQueues& t, PartitionId partition,
                                            const Status& cause) {
  Status& fenced = t.queue(partition).fenced;
  if (fenced.ok()) fenced = cause;
}

void RecordAccumulator::release(Batch* b) {
  buffered_ -= b->bytes;
  b->staging.release();
  push_front(&free_, b);
}

std::vector<FencedPartition> RecordAccumulator::fenced_partitions() const {
  std::vector<FencedPartition> out;
  for (const auto& [name, t] : topics_) {
    for (std::size_t i = 0; i < t->partitions.size(); ++i) {
      const Status& cause = t->partitions[i].fenced;
      if (!cause.ok()) {
        out.push_back({.topic = name, .partition = static_cast<int32_t>(i), .cause = cause});
      }
    }
  }
  return out;
}

Status RecordAccumulator::reset_fence(std::string_view topic, PartitionId partition) {
  TopicQueues* t = find_topic(topic);
  if (t == nullptr || t->partitions.empty()) {
    return Status(ErrorCode::kUnknownTopic,
                  "the producer has no partitions of topic '" + std::string(topic) + "'");
  }
  if (!t->has(partition)) {
    return Status(ErrorCode::kUnknownPartition,
                  "topic '" + t->name + "' has no partition " + std::to_string(partition.value()));
  }
  t->queue(partition).fenced = Status::Ok();
  return Status::Ok();
}

Status RecordAccumulator::fenced_error(const TopicQueues& t, PartitionId partition,
                                       const Status& cause) {
  return Status(cause.code(), t.name + "/" + std::to_string(partition.value()) +
                                  " is fenced: an earlier record of it failed (" +
                                  cause.to_string() +
                                  "), so this one was not sent; reset_partition() lifts the fence");
}

}  // namespace spillway::producer_internal
