// No holes in a partition: once one of its records has failed, the producer
// appends nothing more to it until the application says so. Without this, a
// batch that timed out during a broker outage was followed by batches sent
// after the broker came back, and the partition held the records before and
// after the failed ones but not those (issue 11). Like Kafka's idempotent
// producer, the partition is fenced instead: what is queued behind the
// failure fails unsent, send() fails later records at once, and
// reset_partition() lifts the fence.
#include <string>

#include "producer_impl.h"

namespace spillway {

using producer_internal::on_batch_closed;

Status Producer::Impl::fenced_error(const TopicState& t, int32_t partition, const Status& cause) {
  return Status(cause.code(), t.name + "/" + std::to_string(partition) +
                                  " is fenced: an earlier record of it failed (" +
                                  cause.to_string() +
                                  "), so this one was not sent; reset_partition() lifts the fence");
}

void Producer::Impl::fence(TopicState* t, int32_t partition, const Status& cause, Batch** done) {
  PartitionState& p = t->parts[static_cast<std::size_t>(partition)];
  if (p.fenced.ok()) p.fenced = cause;
  if (!p.head) return;
  const Status st = fenced_error(*t, partition, p.fenced);
  while (p.head) {
    Batch* b = p.head;
    p.head = b->next;
    if (!b->sealed) {  // the open batch: the next send must not append to it
      b->sealed = true;
      on_batch_closed(t, partition);
    }
    note_failure(st, static_cast<uint64_t>(b->count));
    b->error = st;
    b->base_offset = -1;
    b->next = *done;  // `done` is newest first; run_callbacks() reverses it
    *done = b;
  }
  p.tail = nullptr;
}

std::vector<FencedPartition> Producer::fenced_partitions() const {
  std::lock_guard lk(impl_->mu);
  std::vector<FencedPartition> out;
  for (const auto& [name, t] : impl_->topics) {
    for (std::size_t i = 0; i < t->parts.size(); ++i) {
      const Status& cause = t->parts[i].fenced;
      if (!cause.ok()) out.push_back({name, static_cast<int32_t>(i), cause});
    }
  }
  return out;
}

Status Producer::reset_partition(std::string_view topic, int32_t partition) {
  std::lock_guard lk(impl_->mu);
  auto it = impl_->topics.find(topic);
  if (it == impl_->topics.end() || it->second->partitions < 0) {
    return Status(ErrorCode::kUnknownTopic,
                  "the producer has no partitions of topic '" + std::string(topic) + "'");
  }
  producer_internal::TopicState& t = *it->second;
  if (partition < 0 || partition >= t.partitions) {
    return Status(ErrorCode::kUnknownPartition,
                  "topic '" + t.name + "' has no partition " + std::to_string(partition));
  }
  t.parts[static_cast<std::size_t>(partition)].fenced = Status::Ok();
  return Status::Ok();
}

}  // namespace spillway
