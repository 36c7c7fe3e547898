// The follower's fetcher: per leader a Link (one TCP connection, one
// request at a time), per followed partition its truncation and fetch
// state. See replica_fetcher.h for the states.
#include "replication/replica_fetcher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <asio/connect.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/steady_timer.hpp>
#include <asio/write.hpp>
#include <chrono>
#include <cstring>
#include <random>
#include <vector>

#include "config/listen_address.h"
#include "core/task_pool.h"
#include "spillway/common/buffer_pool.h"
#include "spillway/common/endian.h"
#include "spillway/common/frame.h"
#include "spillway/common/messages/replication.h"
#include "spillway/common/write_buffer.h"

namespace spillway::broker::replication {

// Named, not anonymous: ReplicaFetcher::Shared holds Links.
namespace fetcher_detail {

using Clock = std::chrono::steady_clock;
using asio::ip::tcp;

// A RecordBatch v2 starts with base offset (i64) and batch length (i32,
// the bytes after that field); 61 bytes is its smallest header.
constexpr size_t kBatchLengthOffset = 8;
constexpr size_t kBatchPrefixBytes = 12;
constexpr uint32_t kMinBatchLength = 49;

// Records of one partition copied out of a response into pooled buffers,
// each a run of whole batches, appended one after the other.
struct Chunk {
  std::byte* rented = nullptr;
  size_t size = 0;
};

class Link;

struct Followed {
  Link* link = nullptr;
  std::shared_ptr<Partition> partition;
  std::string topic;
  PartitionId index{0};
  LeaderEpoch epoch{0};
  FollowPhase phase = FollowPhase::kLocalEnd;
  bool busy = false;        // an operation on the owner core is in flight
  bool in_request = false;  // part of the request in flight
  bool retired = false;     // removed; erased once neither of the above
  // KIP-279: the epoch whose end is asked locally next, and the answers.
  int32_t ask_epoch = INT32_MAX;
  int32_t local_epoch = -1;
  int64_t local_end = -1;
  int32_t leader_answer_epoch = -2;  // -2: no answer yet
  int64_t leader_answer_end = -1;
  int64_t truncate_target = 0;
  // Delayed after an error until retry_at, with its own backoff.
  Clock::time_point retry_at{};
  int64_t backoff_ms = 0;
  std::vector<Chunk> chunks;  // capacity reused response after response
  size_t next_chunk = 0;
  int64_t leader_hw = -1;
};

void give_back_chunks(Followed& f) {
  for (size_t i = f.next_chunk; i < f.chunks.size(); ++i) {
    BufferPool::global().give_back(f.chunks[i].rented);
  }
  f.chunks.clear();
  f.next_chunk = 0;
}

int64_t jittered(int64_t ms, std::minstd_rand& random) {
  // 80% to 120% of the nominal delay, so followers of one leader that lost
  // it together do not reconnect in step.
  std::uniform_int_distribution<int64_t> spread(ms * 4 / 5, ms * 6 / 5);
  return std::max<int64_t>(1, spread(random));
}

}  // namespace fetcher_detail

using fetcher_detail::Clock;
using fetcher_detail::Followed;
using fetcher_detail::Link;

struct ReplicaFetcher::Shared {
  Shared(asio::io_context& c, FetcherOptions o) : context(c), options(o) {
    options.partition_max_bytes =
        std::clamp<int32_t>(options.partition_max_bytes, 1, BufferPool::kMaxBufferSize);
    broker_epoch.store(o.broker_epoch, std::memory_order_relaxed);
  }
  asio::io_context& context;
  FetcherOptions options;
  std::atomic<int64_t> broker_epoch{0};
  std::function<void(const FollowEvent&)> observer;
  std::map<BrokerId, std::shared_ptr<Link>> links;
  bool stopped = false;

  void notify(const Followed& f, ErrorCode error) const {
    if (!observer) return;
    observer(FollowEvent{.topic = f.topic,
                         .partition = f.index,
                         .phase = f.phase,
                         .error = error,
                         .log_end = f.partition->log_end_offset()});
  }
};

namespace fetcher_detail {

class Link : public std::enable_shared_from_this<Link> {
 public:
  using Shared = ReplicaFetcher::Shared;

  Link(std::shared_ptr<Shared> owner, BrokerId leader, std::string address)
      : owner_(std::move(owner)),
        shared_(*owner_),
        leader_(leader),
        address_(std::move(address)),
        socket_(shared_.context),
        resolver_(shared_.context),
        reconnect_timer_(shared_.context),
        retry_timer_(shared_.context),
        random_(static_cast<uint32_t>(leader) * 2654435761u +
                static_cast<uint32_t>(Clock::now().time_since_epoch().count())),
        out_(std::span<std::byte>(scratch_)) {}

  BrokerId leader() const { return leader_; }
  const std::string& address() const { return address_; }

  Followed* find(std::string_view topic, PartitionId index) {
    for (auto& f : follows_) {
      if (!f->retired && f->index == index && f->topic == topic) return f.get();
    }
    return nullptr;
  }

  bool empty() const {
    return std::none_of(follows_.begin(), follows_.end(),
                        [](const auto& f) { return !f->retired; });
  }

  void add(std::shared_ptr<Partition> partition, LeaderEpoch epoch) {
    auto f = std::make_unique<Followed>();
    f->link = this;
    f->topic = partition->topic();
    f->index = partition->index();
    f->partition = std::move(partition);
    f->epoch = epoch;
    f->phase = FollowPhase::kLocalEnd;
    follows_.push_back(std::move(f));
    if (!connected_ && !connecting_ && !reconnect_pending_) connect();
    pump();
  }

  // A new assignment of a partition this link follows: start again with
  // the truncation (a new epoch), or resume a stopped one.
  void reassign(Followed& f, LeaderEpoch epoch) {
    if (f.epoch == epoch && f.phase != FollowPhase::kStopped) return;
    std::shared_ptr<Partition> partition = f.partition;
    retire(f);
    add(std::move(partition), epoch);
  }

  void retire(Followed& f) {
    f.retired = true;
    if (!f.busy) give_back_chunks(f);
    sweep();
  }

  void close() {
    closed_ = true;
    for (auto& f : follows_) f->retired = true;
    disconnect();
    reconnect_timer_.cancel();
    retry_timer_.cancel();
    for (auto& f : follows_) {
      if (!f->busy) give_back_chunks(*f);
    }
    sweep();
  }

 private:
  // ---- the connection ----

  void connect() {
    if (closed_) return;
    Result<HostPort> where = parse_advertised_address(address_);
    if (!where.ok()) {
      spdlog::error("replica fetcher: leader {} has an unusable address {}: {}", leader_,
                    address_, where.status().to_string());
      schedule_reconnect();
      return;
    }
    connecting_ = true;
    resolver_.async_resolve(
        where->host, std::to_string(where->port),
        [self = shared_from_this(), gen = connection_](asio::error_code ec,
                                                       tcp::resolver::results_type results) {
          if (self->stale(gen)) return;
          if (ec) {
            self->connection_failed("resolve", ec.message());
            return;
          }
          asio::async_connect(self->socket_, results,
                              [self, gen](asio::error_code ec2, const tcp::endpoint&) {
                                if (self->stale(gen)) return;
                                if (ec2) {
                                  self->connection_failed("connect", ec2.message());
                                  return;
                                }
                                asio::error_code ignored;
                                self->socket_.set_option(tcp::no_delay(true), ignored);
                                self->connecting_ = false;
                                self->connected_ = true;
                                spdlog::info("replica fetcher: connected to leader {} at {}",
                                             self->leader_, self->address_);
                                self->pump();
                              });
        });
  }

  // A completion of an operation on a connection closed since (its
  // handlers run after the close, and may meet the next connection).
  bool stale(uint64_t connection) const { return closed_ || connection != connection_; }

  void disconnect() {
    ++connection_;
    asio::error_code ignored;
    resolver_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    connected_ = false;
    connecting_ = false;
    request_in_flight_ = false;
    for (auto& f : follows_) f->in_request = false;
    sweep();
  }

  void connection_failed(std::string_view what, std::string_view why) {
    spdlog::warn("replica fetcher: {} to leader {} at {} failed: {}", what, leader_, address_,
                 why);
    disconnect();
    schedule_reconnect();
  }

  void schedule_reconnect() {
    if (closed_) return;
    backoff_ms_ = backoff_ms_ == 0
                      ? shared_.options.backoff_initial_ms
                      : std::min(backoff_ms_ * 2, shared_.options.backoff_max_ms);
    reconnect_pending_ = true;
    reconnect_timer_.expires_after(std::chrono::milliseconds(jittered(backoff_ms_, random_)));
    reconnect_timer_.async_wait([self = shared_from_this()](asio::error_code ec) {
      self->reconnect_pending_ = false;
      if (ec || self->closed_ || self->empty()) return;
      self->connect();
    });
  }

  // ---- what to send next ----

  void pump() {
    if (closed_) return;
    sweep();
    const Clock::time_point now = Clock::now();
    Clock::time_point next_retry = Clock::time_point::max();
    bool want_leader_end = false;
    bool want_fetch = false;
    for (auto& fp : follows_) {
      Followed& f = *fp;
      if (f.retired || f.busy || f.in_request || f.phase == FollowPhase::kStopped) continue;
      if (f.retry_at > now) {
        next_retry = std::min(next_retry, f.retry_at);
        continue;
      }
      switch (f.phase) {
        case FollowPhase::kLocalEnd:
          ask_local_end(f);
          break;
        case FollowPhase::kTruncate:
          truncate(f);
          break;
        case FollowPhase::kLeaderEnd:
          want_leader_end = true;
          break;
        case FollowPhase::kFetch:
          want_fetch = true;
          break;
        case FollowPhase::kStopped:
          break;
      }
    }
    if (next_retry != Clock::time_point::max()) arm_retry(next_retry);
    if (!connected_ || request_in_flight_ || appends_pending_ > 0) return;
    // The epoch questions first: a partition waiting for one must not wait
    // behind a long poll. A fetch goes only when every append of the last
    // response is done, so each partition fetches from its log end.
    if (want_leader_end) {
      send_leader_epoch_end(now);
    } else if (want_fetch) {
      send_replica_fetch(now);
    }
  }

  void arm_retry(Clock::time_point when) {
    if (retry_armed_ && retry_at_ <= when) return;
    retry_armed_ = true;
    retry_at_ = when;
    retry_timer_.expires_at(when);
    retry_timer_.async_wait([self = shared_from_this()](asio::error_code ec) {
      if (ec) return;  // re-armed earlier, or closed
      self->retry_armed_ = false;
      self->pump();
    });
  }

  // Delays a partition after an error, with its own doubling backoff.
  void delay(Followed& f, ErrorCode why) {
    f.backoff_ms = f.backoff_ms == 0 ? shared_.options.backoff_initial_ms
                                     : std::min(f.backoff_ms * 2, shared_.options.backoff_max_ms);
    f.retry_at = Clock::now() + std::chrono::milliseconds(jittered(f.backoff_ms, random_));
    shared_.notify(f, why);
  }

  void stop_partition(Followed& f, ErrorCode why, std::string_view message) {
    spdlog::info("replica fetcher: {}-{} stops following leader {}: {} ({})", f.topic,
                 f.index.value(), leader_, message, error_code_name(why));
    f.phase = FollowPhase::kStopped;
    shared_.notify(f, why);
  }

  void set_phase(Followed& f, FollowPhase phase) {
    f.phase = phase;
    f.backoff_ms = 0;
    shared_.notify(f, ErrorCode::kOk);
  }

  // Erases retired partitions nothing refers to any more.
  void sweep() {
    std::erase_if(follows_, [](const std::unique_ptr<Followed>& f) {
      return f->retired && !f->busy && !f->in_request;
    });
  }

  // ---- operations on the partition's owner core ----

  Reply reply_to(Followed& f, void (*fn)(void*, uint32_t, PartitionReply&)) {
    Reply reply;
    reply.executor = tracked_executor(shared_.context);
    reply.keep_alive = shared_from_this();
    reply.fn = fn;
    reply.ctx = &f;
    return reply;
  }

  void ask_local_end(Followed& f) {
    f.busy = true;
    post_task(f.partition->owner(), [p = f.partition, epoch = LeaderEpoch(f.ask_epoch),
                                     reply = reply_to(f, &on_local_end)]() mutable {
      p->epoch_end(epoch, LeaderEpoch(-1), std::move(reply));
    });
  }

  static void on_local_end(void* ctx, uint32_t, PartitionReply& reply) {
    Followed& f = *static_cast<Followed*>(ctx);
    Link& link = *f.link;
    f.busy = false;
    if (f.retired || link.closed_) {
      link.sweep();
      return;
    }
    if (!reply.status.ok()) {
      if (reply.status.code() == ErrorCode::kNotLeaderOrFollower) {
        link.stop_partition(f, reply.status.code(), reply.status.message());
      } else {
        link.delay(f, reply.status.code());
      }
      link.pump();
      return;
    }
    f.local_epoch = reply.leader_epoch.value();
    f.local_end = reply.last_offset.value();
    const int64_t log_end = f.partition->log_end_offset().value();
    if (f.local_epoch < 0) {
      // No epoch at or below the one asked: no batch here can be shown to
      // match the leader's (a batch a leader wrote carries its epoch). An
      // empty log fetches at once; otherwise the log restarts at its log
      // start and fetches everything again (never to the high watermark,
      // which may lag what the ISR acknowledged: KIP-101).
      const int64_t log_start = f.partition->log_start_offset().value();
      if (log_end <= log_start) {
        link.set_phase(f, FollowPhase::kFetch);
      } else {
        f.truncate_target = log_start;
        link.set_phase(f, FollowPhase::kTruncate);
      }
    } else if (f.local_epoch == f.leader_answer_epoch) {
      // The leader already told the end of this epoch (it answered with a
      // smaller epoch than asked, which the follower also has).
      f.truncate_target = std::min(f.leader_answer_end, f.local_end);
      link.set_phase(f, FollowPhase::kTruncate);
    } else {
      link.set_phase(f, FollowPhase::kLeaderEnd);
    }
    link.pump();
  }

  void truncate(Followed& f) {
    f.busy = true;
    post_task(f.partition->owner(), [p = f.partition, end = Offset(f.truncate_target),
                                     reply = reply_to(f, &on_truncated)]() mutable {
      p->truncate_to(end, std::move(reply));
    });
  }

  static void on_truncated(void* ctx, uint32_t, PartitionReply& reply) {
    Followed& f = *static_cast<Followed*>(ctx);
    Link& link = *f.link;
    f.busy = false;
    if (f.retired || link.closed_) {
      link.sweep();
      return;
    }
    if (!reply.status.ok()) {
      if (reply.status.code() == ErrorCode::kNotLeaderOrFollower) {
        link.stop_partition(f, reply.status.code(), reply.status.message());
      } else {
        f.phase = FollowPhase::kLocalEnd;
        f.ask_epoch = INT32_MAX;
        f.leader_answer_epoch = -2;
        link.delay(f, reply.status.code());
      }
    } else {
      spdlog::debug("replica fetcher: {}-{} truncated to {}", f.topic, f.index.value(),
                    f.truncate_target);
      link.set_phase(f, FollowPhase::kFetch);
    }
    link.pump();
  }

  void append_next(Followed& f) {
    const Chunk chunk = f.chunks[f.next_chunk++];
    f.busy = true;
    ++appends_pending_;
    post_task(f.partition->owner(), [p = f.partition, chunk, hw = Offset(f.leader_hw),
                                     reply = reply_to(f, &on_appended)]() mutable {
      p->append_replicated(std::span<std::byte>(chunk.rented, chunk.size), chunk.rented, hw,
                           std::move(reply));
    });
  }

  static void on_appended(void* ctx, uint32_t, PartitionReply& reply) {
    Followed& f = *static_cast<Followed*>(ctx);
    Link& link = *f.link;
    f.busy = false;
    --link.appends_pending_;
    if (f.retired || link.closed_) {
      give_back_chunks(f);
      link.sweep();
      if (!link.closed_) link.pump();
      return;
    }
    if (!reply.status.ok()) {
      give_back_chunks(f);
      if (reply.status.code() == ErrorCode::kNotLeaderOrFollower) {
        link.stop_partition(f, reply.status.code(), reply.status.message());
      } else {
        spdlog::warn("replica fetcher: {}-{}: append of replicated batches failed: {}", f.topic,
                     f.index.value(), reply.status.to_string());
        link.delay(f, reply.status.code());  // fetched again from its log end
      }
    } else if (f.next_chunk < f.chunks.size()) {
      link.append_next(f);
      return;
    } else {
      f.chunks.clear();
      f.next_chunk = 0;
      f.backoff_ms = 0;
      link.shared_.notify(f, ErrorCode::kOk);
    }
    link.pump();
  }

  // ---- requests ----

  void send_leader_epoch_end(Clock::time_point now) {
    epoch_parts_.clear();
    epoch_topics_.clear();
    request_follows_.clear();
    // Grouped by topic in the request: partitions of one topic together.
    for (auto& fp : follows_) {
      Followed& f = *fp;
      if (f.retired || f.busy || f.in_request || f.phase != FollowPhase::kLeaderEnd ||
          f.retry_at > now) {
        continue;
      }
      request_follows_.push_back(&f);
    }
    std::stable_sort(request_follows_.begin(), request_follows_.end(),
                     [](const Followed* a, const Followed* b) { return a->topic < b->topic; });
    for (Followed* f : request_follows_) {
      f->in_request = true;
      epoch_parts_.push_back({.partition = f->index.value(),
                              .current_leader_epoch = f->epoch.value(),
                              .leader_epoch = f->local_epoch});
    }
    size_t first = 0;
    while (first < request_follows_.size()) {
      size_t end = first;
      while (end < request_follows_.size() &&
             request_follows_[end]->topic == request_follows_[first]->topic) {
        ++end;
      }
      epoch_topics_.push_back(
          {.name = request_follows_[first]->topic,
           .partitions = std::span<const messages::LeaderEpochEndPartitionRequest>(epoch_parts_)
                             .subspan(first, end - first)});
      first = end;
    }
    begin_frame(frame::ApiKey::kLeaderEpochEnd, messages::kLeaderEpochEndVersion);
    const Status st = messages::encode_leader_epoch_end_request(
        {.replica_id = shared_.options.broker_id, .topics = epoch_topics_}, out_);
    send(st);
  }

  void send_replica_fetch(Clock::time_point now) {
    fetch_parts_.clear();
    fetch_topics_.clear();
    request_follows_.clear();
    for (auto& fp : follows_) {
      Followed& f = *fp;
      if (f.retired || f.busy || f.in_request || f.phase != FollowPhase::kFetch ||
          f.retry_at > now) {
        continue;
      }
      request_follows_.push_back(&f);
    }
    std::stable_sort(request_follows_.begin(), request_follows_.end(),
                     [](const Followed* a, const Followed* b) { return a->topic < b->topic; });
    for (Followed* f : request_follows_) {
      f->in_request = true;
      fetch_parts_.push_back({.partition = f->index.value(),
                              .fetch_offset = f->partition->log_end_offset().value(),
                              .current_leader_epoch = f->epoch.value(),
                              .max_bytes = shared_.options.partition_max_bytes});
    }
    size_t first = 0;
    while (first < request_follows_.size()) {
      size_t end = first;
      while (end < request_follows_.size() &&
             request_follows_[end]->topic == request_follows_[first]->topic) {
        ++end;
      }
      fetch_topics_.push_back(
          {.name = request_follows_[first]->topic,
           .partitions = std::span<const messages::ReplicaFetchPartitionRequest>(fetch_parts_)
                             .subspan(first, end - first)});
      first = end;
    }
    begin_frame(frame::ApiKey::kReplicaFetch, messages::kReplicaFetchVersion);
    const Status st = messages::encode_replica_fetch_request(
        {.replica_id = shared_.options.broker_id,
         .broker_epoch = shared_.broker_epoch.load(std::memory_order_relaxed),
         .max_wait_ms = shared_.options.max_wait_ms,
         .min_bytes = 1,
         .max_bytes = shared_.options.max_bytes,
         .topics = fetch_topics_},
        out_);
    send(st);
  }

  void begin_frame(frame::ApiKey key, int16_t version) {
    out_.release();
    request_key_ = key;
    request_version_ = version;
    std::span<std::byte> header = out_.reserve(frame::kRequestHeaderBytes);
    out_.advance(header.empty() ? 0 : frame::kRequestHeaderBytes);
  }

  void send(const Status& encoded) {
    if (!encoded.ok() || out_.bytes_written() < frame::kRequestHeaderBytes) {
      connection_failed("encoding a request", encoded.to_string());
      return;
    }
    std::array<std::byte, frame::kRequestHeaderBytes> header;
    correlation_id_ = correlation_id_ == INT32_MAX ? 1 : correlation_id_ + 1;
    frame::encode_request_header(
        {.api_key = static_cast<int16_t>(request_key_),
         .api_version = request_version_,
         .correlation_id = correlation_id_,
         .body_bytes = static_cast<uint32_t>(out_.bytes_written() - frame::kRequestHeaderBytes)},
        header);
    out_.overwrite(0, header);
    // One contiguous copy: requests are small (20 bytes a partition).
    send_buffer_.resize(out_.bytes_written());
    out_.copy_to(send_buffer_);
    request_in_flight_ = true;
    asio::async_write(socket_, asio::buffer(send_buffer_),
                      [self = shared_from_this(), gen = connection_](asio::error_code ec, size_t) {
                        if (self->stale(gen)) return;
                        if (ec) {
                          self->connection_failed("write", ec.message());
                          return;
                        }
                        self->read_header();
                      });
  }

  void read_header() {
    asio::async_read(socket_, asio::buffer(response_header_),
                     [self = shared_from_this(), gen = connection_](asio::error_code ec, size_t) {
                       if (self->stale(gen)) return;
                       if (ec) {
                         self->connection_failed("read", ec.message());
                         return;
                       }
                       self->on_header();
                     });
  }

  void on_header() {
    frame::ResponseHeader header;
    if (Status st = frame::decode_response_header(response_header_,
                                                  shared_.options.max_response_bytes, &header);
        !st.ok()) {
      connection_failed("response", st.to_string());
      return;
    }
    if (header.correlation_id != correlation_id_) {
      connection_failed("response", "correlation id " + std::to_string(header.correlation_id) +
                                        " where " + std::to_string(correlation_id_) +
                                        " was expected");
      return;
    }
    response_code_ = header.error_code;
    // The body buffer keeps its capacity; bounded by max_response_bytes.
    body_.resize(header.body_bytes);
    asio::async_read(socket_, asio::buffer(body_),
                     [self = shared_from_this(), gen = connection_](asio::error_code ec, size_t) {
                       if (self->stale(gen)) return;
                       if (ec) {
                         self->connection_failed("read", ec.message());
                         return;
                       }
                       self->on_body();
                     });
  }

  void on_body() {
    request_in_flight_ = false;
    for (Followed* f : request_follows_) f->in_request = false;
    if (response_code_ != ErrorCode::kOk) {
      // The whole request was refused (not authorized, an older broker
      // without the api): every partition in it waits and asks again.
      const Status st = frame::decode_error_body(response_code_, body_);
      spdlog::warn("replica fetcher: leader {} refused a request: {}", leader_, st.to_string());
      for (Followed* f : request_follows_) {
        if (!f->retired) delay(*f, st.code());
      }
      request_follows_.clear();
      pump();
      return;
    }
    backoff_ms_ = 0;  // the link works
    const Status st = request_key_ == frame::ApiKey::kReplicaFetch ? on_fetch_response()
                                                                   : on_epoch_end_response();
    request_follows_.clear();
    if (!st.ok()) {
      connection_failed("response", st.to_string());
      return;
    }
    pump();
  }

  // The response lists the request's partitions in its order.
  template <typename R, typename Topics, typename Fn>
  Status for_each_result(const Topics& topics, Fn&& fn) {
    size_t i = 0;
    for (const auto& t : topics) {
      for (const R& r : t.results) {
        if (i >= request_follows_.size() || request_follows_[i]->topic != t.name ||
            request_follows_[i]->index.value() != r.partition) {
          return Status(ErrorCode::kCorruptMessage,
                        "a response that does not match its request's partitions");
        }
        Followed& f = *request_follows_[i++];
        if (!f.retired) fn(f, r);
      }
    }
    if (i != request_follows_.size()) {
      return Status(ErrorCode::kCorruptMessage, "a response with fewer partitions than asked");
    }
    return Status::Ok();
  }

  // The errors a leader answers a partition with, either request.
  void refused(Followed& f, ErrorCode code, std::string_view message) {
    switch (code) {
      case ErrorCode::kFencedLeaderEpoch:
        // The leader is in a later epoch: the assignment this fetcher has
        // is out of date, and the ReplicaManager gives a new one.
        stop_partition(f, code, message);
        break;
      default:
        // kNotLeaderOrFollower: the broker the snapshot names as leader
        // has not applied that snapshot yet (a new topic, a new term), or
        // it has moved on and the ReplicaManager will reassign us; Kafka's
        // follower backs off and retries too. Stopping here stopped the
        // partition for good when this follower was the quicker one, as
        // the ReplicaManager reapplies nothing for an unchanged leader and
        // epoch. kUnknownLeaderEpoch (the leader has not seen the new epoch
        // yet), a missing topic while the leader catches up, storage errors.
        delay(f, code);
        break;
    }
  }

  Status on_epoch_end_response() {
    Result<messages::LeaderEpochEndResponse> response =
        messages::decode_leader_epoch_end_response(body_);
    if (!response.ok()) return response.status();
    return for_each_result<messages::LeaderEpochEndPartitionResult>(
        response->topics, [&](Followed& f, const messages::LeaderEpochEndPartitionResult& r) {
          if (r.error_code != ErrorCode::kOk) {
            refused(f, r.error_code, r.error_message.text);
            return;
          }
          const int64_t log_end = f.partition->log_end_offset().value();
          if (r.leader_epoch < 0 || r.end_offset < 0) {
            // The leader has no epoch at or below ours: nothing here can be
            // shown to match (as above: restart at the log start).
            f.truncate_target =
                std::min(f.partition->log_start_offset().value(), log_end);
            set_phase(f, FollowPhase::kTruncate);
          } else if (r.leader_epoch >= f.local_epoch) {
            // Agreed: the logs are equal up to the smaller of the two ends.
            f.truncate_target = std::min(r.end_offset, f.local_end);
            set_phase(f, FollowPhase::kTruncate);
          } else {
            // KIP-279: the leader's largest epoch at or below ours is older:
            // our epoch f.local_epoch is not on the leader. Find our own end
            // of the leader's epoch (or the largest below it) and compare
            // again.
            f.leader_answer_epoch = r.leader_epoch;
            f.leader_answer_end = r.end_offset;
            f.ask_epoch = r.leader_epoch;
            set_phase(f, FollowPhase::kLocalEnd);
          }
        });
  }

  Status on_fetch_response() {
    Result<messages::ReplicaFetchResponse> response =
        messages::decode_replica_fetch_response(body_);
    if (!response.ok()) return response.status();
    Status failed = Status::Ok();
    Status matched = for_each_result<messages::ReplicaFetchPartitionResult>(
        response->topics, [&](Followed& f, const messages::ReplicaFetchPartitionResult& r) {
          if (r.error_code == ErrorCode::kOffsetOutOfRange) {
            if (f.partition->log_end_offset().value() < r.log_start_offset) {
              stop_partition(f, r.error_code,
                             "its log end is below the leader's log start (not handled yet)");
            } else {
              // Past the leader's end: find where the logs part again (after
              // a pause, so that a leader answering so again is no loop).
              f.ask_epoch = INT32_MAX;
              f.leader_answer_epoch = -2;
              f.phase = FollowPhase::kLocalEnd;
              delay(f, r.error_code);
            }
            return;
          }
          if (r.error_code != ErrorCode::kOk) {
            refused(f, r.error_code, r.error_message.text);
            return;
          }
          if (r.records.bytes.empty()) {
            // No records, but the leader's high watermark moved: an empty
            // append carries it (the partition takes min(HW, log end)).
            if (r.high_watermark > f.leader_hw) {
              std::span<std::byte> buffer = BufferPool::global().rent(1);
              if (buffer.empty()) return;  // the next records carry it
              f.chunks.clear();
              f.next_chunk = 0;
              f.chunks.push_back({buffer.data(), 0});
              f.leader_hw = r.high_watermark;
              append_next(f);
            }
            return;
          }
          if (Status st = split(f, r.records.bytes); !st.ok()) {
            give_back_chunks(f);
            if (st.code() == ErrorCode::kCorruptMessage) {
              failed = std::move(st);
            } else {
              delay(f, st.code());  // no pooled memory now
            }
            return;
          }
          f.leader_hw = r.high_watermark;
          append_next(f);
        });
    return matched.ok() ? failed : matched;
  }

  // Copies a partition's records into pooled buffers of whole batches. The
  // first batch is at most the pool's largest buffer (a stored batch always
  // is: produce appends from one); a trailing partial batch is left for the
  // next fetch.
  Status split(Followed& f, std::span<const std::byte> records) {
    f.chunks.clear();
    f.next_chunk = 0;
    size_t at = 0;
    while (records.size() - at >= kBatchPrefixBytes) {
      size_t end = at;
      // Whole batches while they fit one pooled buffer.
      while (records.size() - end >= kBatchPrefixBytes) {
        const uint32_t length = load_be<uint32_t>(records.data() + end + kBatchLengthOffset);
        if (length < kMinBatchLength || length > BufferPool::kMaxBufferSize) {
          return Status(ErrorCode::kCorruptMessage,
                        "replicated batch length " + std::to_string(length) + " for " + f.topic);
        }
        const size_t total = kBatchPrefixBytes + length;
        if (total > records.size() - end) break;  // partial: next fetch
        if (end + total - at > BufferPool::kMaxBufferSize) break;
        end += total;
      }
      if (end == at) break;
      std::span<std::byte> buffer = BufferPool::global().rent(end - at);
      if (buffer.empty()) {
        return Status(ErrorCode::kResourceExhausted, "no pooled buffer for replicated batches");
      }
      std::memcpy(buffer.data(), records.data() + at, end - at);
      f.chunks.push_back({buffer.data(), end - at});
      at = end;
    }
    if (f.chunks.empty()) {
      return Status(ErrorCode::kResourceExhausted, "no whole batch in the replicated records");
    }
    return Status::Ok();
  }

  std::shared_ptr<Shared> owner_;  // until the replies in flight are back
  Shared& shared_;
  const BrokerId leader_;
  const std::string address_;
  tcp::socket socket_;
  tcp::resolver resolver_;
  asio::steady_timer reconnect_timer_;
  asio::steady_timer retry_timer_;
  std::minstd_rand random_;
  std::vector<std::unique_ptr<Followed>> follows_;
  bool closed_ = false;
  uint64_t connection_ = 0;  // bumped by every disconnect()
  bool connected_ = false;
  bool connecting_ = false;
  bool reconnect_pending_ = false;
  bool request_in_flight_ = false;
  bool retry_armed_ = false;
  Clock::time_point retry_at_{};
  int64_t backoff_ms_ = 0;
  size_t appends_pending_ = 0;
  int32_t correlation_id_ = 0;
  frame::ApiKey request_key_ = frame::ApiKey::kReplicaFetch;
  int16_t request_version_ = 0;
  ErrorCode response_code_ = ErrorCode::kOk;
  // Reused request after request: no allocation per fetch once warm.
  std::array<std::byte, 512> scratch_;
  WriteBuffer out_;
  std::vector<std::byte> send_buffer_;
  std::array<std::byte, frame::kResponseHeaderBytes> response_header_{};
  std::vector<std::byte> body_;
  std::vector<Followed*> request_follows_;
  std::vector<messages::ReplicaFetchPartitionRequest> fetch_parts_;
  std::vector<messages::ReplicaFetchTopicRequest> fetch_topics_;
  std::vector<messages::LeaderEpochEndPartitionRequest> epoch_parts_;
  std::vector<messages::LeaderEpochEndTopicRequest> epoch_topics_;
};

}  // namespace fetcher_detail

ReplicaFetcher::ReplicaFetcher(asio::io_context& context, FetcherOptions options)
    : shared_(std::make_shared<Shared>(context, options)) {}

ReplicaFetcher::~ReplicaFetcher() {
  stop();
}

void ReplicaFetcher::add_partition(std::shared_ptr<Partition> partition, BrokerId leader,
                                   std::string leader_address, LeaderEpoch leader_epoch) {
  post_task(shared_->context, [s = shared_, partition = std::move(partition), leader,
                               address = std::move(leader_address), leader_epoch]() mutable {
    if (s->stopped) return;
    // Already followed: from the same leader (a new epoch or a resume), or
    // from another one (it moves).
    for (auto it = s->links.begin(); it != s->links.end(); ++it) {
      Followed* f = it->second->find(partition->topic(), partition->index());
      if (f == nullptr) continue;
      if (it->first == leader && it->second->address() == address) {
        it->second->reassign(*f, leader_epoch);
        return;
      }
      it->second->retire(*f);
      if (it->second->empty()) {
        it->second->close();
        s->links.erase(it);
      }
      break;
    }
    auto link = s->links.find(leader);
    if (link != s->links.end() && link->second->address() != address) {
      // The leader moved to another address: a new connection.
      link->second->close();
      s->links.erase(link);
      link = s->links.end();
    }
    if (link == s->links.end()) {
      link = s->links.emplace(leader, std::make_shared<Link>(s, leader, address)).first;
    }
    link->second->add(std::move(partition), leader_epoch);
  });
}

void ReplicaFetcher::remove_partition(std::string topic, PartitionId partition) {
  post_task(shared_->context, [s = shared_, topic = std::move(topic), partition]() {
    for (auto it = s->links.begin(); it != s->links.end(); ++it) {
      Followed* f = it->second->find(topic, partition);
      if (f == nullptr) continue;
      it->second->retire(*f);
      if (it->second->empty()) {
        it->second->close();
        s->links.erase(it);
      }
      return;
    }
  });
}

void ReplicaFetcher::set_broker_epoch(int64_t epoch) {
  shared_->broker_epoch.store(epoch, std::memory_order_relaxed);
}

void ReplicaFetcher::stop(std::function<void()> closed) {
  post_task(shared_->context, [s = shared_, closed = std::move(closed)]() {
    if (!s->stopped) {
      s->stopped = true;
      for (auto& [id, link] : s->links) link->close();
      s->links.clear();
    }
    if (closed) closed();
  });
}

void ReplicaFetcher::set_observer(std::function<void(const FollowEvent&)> observer) {
  shared_->observer = std::move(observer);
}

}  // namespace spillway::broker::replication
