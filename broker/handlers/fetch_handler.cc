// Fetch: reads on owner cores, long poll, verbatim copy of stored batches.
#include "fetch_handler.h"

#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/task_pool.h"
#include "metrics/metrics.h"
#include "spillway/common/messages/fetch.h"

namespace spillway::broker {

namespace {

// Largest response a fetch builds, whatever the client asks (plus the first
// batch, always sent whole). Responses are held in pooled memory until
// written; what they may hold in all is the memory budget's business.
constexpr int64_t kMaxFetchResponseBytes = 8 << 20;
constexpr size_t kCopyChunk = 64 << 10;

struct FetchState final : ExchangeState {
  struct TopicRef {
    uint32_t name_offset;
    uint32_t name_size;
    std::shared_ptr<Topic> topic;  // null when unknown; held against a delete
  };
  struct Part {
    uint32_t topic;
    int32_t partition;
    int64_t fetch_offset;
    int64_t max_bytes;
    std::shared_ptr<Partition> log;  // null on error
    ErrorCode code;
    std::string message;
    int64_t high_watermark;
    int64_t log_start_offset;
    storage::FileSlice slice;
  };

  Exchange* exchange = nullptr;
  std::string names;
  std::vector<TopicRef> topics;
  std::vector<Part> parts;
  // The response's views over `parts`, reused request after request.
  std::vector<messages::FetchPartitionResult> results;
  std::vector<messages::FetchTopicResult> topic_results;
  int64_t max_bytes = 0;
  // Bytes of the memory budget granted for this round of reads (see
  // read_all()); given back before a long poll waits.
  uint64_t granted = 0;
  int32_t max_wait_ms = 0;
  size_t pending = 0;
  bool waited = false;
  // The exchange generation this fetch waits under; 0 when not waiting.
  // Read by owner cores to drop stale waiters.
  std::atomic<uint64_t> armed{0};
  std::optional<asio::steady_timer> timer;

  std::string_view name(uint32_t topic) const {
    return std::string_view(names).substr(topics[topic].name_offset, topics[topic].name_size);
  }
};

void read_all(FetchState& st);

Status copy_slice(WriteBuffer& out, const storage::FileSlice& slice) {
  uint64_t done = 0;
  while (done < slice.length) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(slice.length - done, kCopyChunk));
    std::span<std::byte> room = out.reserve(want);
    if (room.empty()) return Status(ErrorCode::kResourceExhausted, "no pooled buffer for a fetch");
    Result<size_t> n = slice.file->read_at(room.first(want), slice.position + done);
    if (!n.ok()) return n.status();
    if (*n == 0) return Status(ErrorCode::kIoError, "segment ended before the slice");
    out.advance(*n);
    done += *n;
  }
  return Status::Ok();
}

Status write_slice(const void* slice, WriteBuffer& out) {
  return copy_slice(out, *static_cast<const storage::FileSlice*>(slice));
}

void respond(FetchState& st) {
  Exchange& exchange = *st.exchange;
  st.armed.store(0, std::memory_order_release);
  // The response fits the memory granted by read_all(): with none, no
  // records are sent (the consumer asks again); with some, the first slice
  // goes whole (read_all() sized it to the grant, or to its first batch).
  int64_t budget = static_cast<int64_t>(st.granted);
  uint64_t included = 0;
  bool first_data = st.granted > 0;
  // The response as views (messages/fetch.h); the records are copied from
  // the log straight into the response as it is encoded.
  st.results.clear();
  st.topic_results.clear();
  for (FetchState::Part& part : st.parts) {
    const auto length = static_cast<int64_t>(part.slice.length);
    const bool include =
        part.code == ErrorCode::kOk && length > 0 && (first_data || length <= budget);
    messages::FetchPartitionResult result{.partition = part.partition,
                                          .error_code = part.code,
                                          .error_message = part.message,
                                          .high_watermark = part.high_watermark,
                                          .log_start_offset = part.log_start_offset,
                                          .records = {}};
    if (include) {
      first_data = false;
      budget -= length;
      included += static_cast<uint64_t>(length);
      result.records = messages::Records::deferred(part.slice.length, &write_slice, &part.slice);
    }
    st.results.push_back(result);
  }
  size_t p = 0;
  for (uint32_t t = 0; t < st.topics.size(); ++t) {
    size_t end = p;
    while (end < st.parts.size() && st.parts[end].topic == t) ++end;
    st.topic_results.push_back(
        {.name = st.name(t),
         .results =
             std::span<const messages::FetchPartitionResult>(st.results).subspan(p, end - p)});
    p = end;
  }
  const Status written = messages::encode_fetch_response({st.topic_results}, exchange.out());
  if (written.ok()) {
    for (size_t i = 0; i < st.parts.size(); ++i) {
      if (st.results[i].records.size() == 0) continue;
      const FetchState::Part& part = st.parts[i];
      Topic* topic = st.topics[part.topic].topic.get();
      topic->counters.bytes_out.fetch_add(part.slice.length, std::memory_order_relaxed);
      topic->counters.messages_out.fetch_add(
          static_cast<uint64_t>(part.slice.next_offset - part.slice.first_offset),
          std::memory_order_relaxed);
    }
  }
  for (FetchState::Part& part : st.parts) {
    part.slice = storage::FileSlice();  // let go of the segment file
    part.log.reset();
  }
  for (FetchState::TopicRef& t : st.topics) t.topic.reset();
  exchange.settle_response_bytes(std::exchange(st.granted, 0), included);
  exchange.finish(written);
}

void on_wake(void* ctx, uint64_t generation) {
  auto& st = *static_cast<FetchState*>(ctx);
  uint64_t expected = generation;
  // Only the first wake of this wait proceeds (a timer and several
  // partitions may race to it).
  if (!st.armed.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) return;
  st.timer->cancel();
  read_all(st);
}

void on_read(void* ctx, uint32_t index, PartitionReply& reply) {
  auto& st = *static_cast<FetchState*>(ctx);
  FetchState::Part& part = st.parts[index];
  part.high_watermark = reply.high_watermark.value();
  part.log_start_offset = reply.log_start_offset.value();
  if (reply.status.ok()) {
    part.slice = std::move(reply.slice);
  } else {
    part.code = reply.status.code();
    part.message = std::string(reply.status.message());
  }
  if (--st.pending > 0) return;

  bool any = false;
  for (const FetchState::Part& p : st.parts) {
    if (p.code != ErrorCode::kOk || !p.slice.empty()) any = true;
  }
  if (any || st.waited || st.max_wait_ms <= 0) {
    respond(st);
    return;
  }
  // Nothing yet: long poll. Waiters on every partition, and the timer. The
  // grant goes back meanwhile; the reads after the wake ask again.
  st.exchange->settle_response_bytes(std::exchange(st.granted, 0), 0);
  st.waited = true;
  const uint64_t generation = st.exchange->generation();
  st.armed.store(generation, std::memory_order_release);
  for (FetchState::Part& p : st.parts) {
    FetchWaiter waiter;
    waiter.context = &st.exchange->context();
    waiter.keep_alive = st.exchange->keep_alive();
    waiter.armed = &st.armed;
    waiter.generation = generation;
    waiter.fetch_offset = Offset(p.fetch_offset);
    waiter.wake = &on_wake;
    waiter.ctx = &st;
    std::shared_ptr<Partition> owner = p.log;
    post_task(p.log->owner(), [owner = std::move(owner), waiter = std::move(waiter)]() mutable {
      owner->add_waiter(std::move(waiter));
    });
  }
  if (!st.timer) st.timer.emplace(st.exchange->executor());
  st.timer->expires_after(std::chrono::milliseconds(st.max_wait_ms));
  st.timer->async_wait(asio::bind_allocator(
      TaskAllocator<void>(), [keep = st.exchange->keep_alive(), &st, generation](asio::error_code) {
        on_wake(&st, generation);
      }));
}

void read_all(FetchState& st) {
  // The response is sized to what the connection's and the broker's memory
  // budgets allow (protocol/memory_budget.h); a fetch may return fewer
  // bytes than asked, as Kafka's does.
  st.granted = st.exchange->grant_response_bytes(static_cast<uint64_t>(st.max_bytes));
  st.pending = 0;
  for (FetchState::Part& p : st.parts) {
    if (p.log != nullptr) ++st.pending;
  }
  if (st.pending == 0) {
    respond(st);
    return;
  }
  for (uint32_t i = 0; i < st.parts.size(); ++i) {
    FetchState::Part& p = st.parts[i];
    if (p.log == nullptr) continue;
    p.code = ErrorCode::kOk;
    p.message.clear();
    Reply reply;
    reply.executor = tracked_executor(st.exchange->context());
    reply.keep_alive = st.exchange->keep_alive();
    reply.fn = &on_read;
    reply.ctx = &st;
    reply.index = i;
    std::shared_ptr<Partition> owner = p.log;
    // With no grant the slice is not sent; read the smallest one for the
    // offsets. Otherwise the first batch comes whole even past the grant.
    const auto max = std::min(static_cast<uint64_t>(std::min(p.max_bytes, st.max_bytes)),
                              std::max<uint64_t>(st.granted, 1));
    post_task(p.log->owner(),
              [owner = std::move(owner), offset = Offset(p.fetch_offset), max,
               reply = std::move(reply)]() mutable { owner->read(offset, max, std::move(reply)); });
  }
}

}  // namespace

void FetchHandler::handle(Exchange& exchange) {
  Result<messages::FetchRequest> request = messages::decode_fetch_request(exchange.body());
  if (!request.ok()) {
    exchange.finish(request.status());
    return;
  }
  FetchState& st = exchange.state<FetchState>(Exchange::kFetchState);
  st.exchange = &exchange;
  st.names.clear();
  st.topics.clear();
  st.parts.clear();
  st.waited = false;
  st.max_wait_ms = std::max(0, request->max_wait_ms);
  st.max_bytes = std::clamp<int64_t>(request->max_bytes, 1, kMaxFetchResponseBytes);
  uint32_t topic_index = 0;
  for (const messages::FetchTopicRequest& t : request->topics) {
    std::shared_ptr<Topic> topic = context_.topics.find_shared(t.name);
    st.topics.push_back(
        {static_cast<uint32_t>(st.names.size()), static_cast<uint32_t>(t.name.size()), topic});
    st.names.append(t.name);
    for (const messages::FetchPartitionRequest& p : t.partitions) {
      FetchState::Part part{topic_index,
                            p.partition,
                            p.fetch_offset,
                            std::max<int64_t>(1, p.partition_max_bytes),
                            nullptr,
                            ErrorCode::kOk,
                            {},
                            -1,
                            -1,
                            {}};
      if (topic == nullptr) {
        part.code = ErrorCode::kUnknownTopic;
        part.message = "unknown topic " + std::string(t.name);
      } else if (Status usable = topic->check_partition(p.partition); !usable.ok()) {
        part.code = usable.code();  // an unknown partition, or the topic is offline
        part.message = std::string(usable.message());
      } else {
        part.log = topic->partitions[static_cast<size_t>(p.partition)];
      }
      st.parts.push_back(std::move(part));
    }
    ++topic_index;
  }
  read_all(st);
}

}  // namespace spillway::broker
