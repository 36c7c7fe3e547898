// Sender: the producer's I/O thread (see producer_sender.h).
#include "producer_sender.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "producer_impl.h"
#include "producer_staging.h"
#include "spillway/common/messages/produce.h"
#include "spillway/common/messages/produce_writer.h"
#include "spillway/common/messages/producer_id.h"
#include "spillway/common/messages/replication.h"

namespace spillway::producer_internal {

namespace {

// Largest Produce request the producer frames (one batch may still pass it).
constexpr std::size_t kMaxRequestBytes = 8u << 20;

bool retriable(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNotConnected:
    case ErrorCode::kTimeout:
    case ErrorCode::kShuttingDown:
    case ErrorCode::kTooManyRequests:
    case ErrorCode::kResourceExhausted:
    // A cluster: the partition moved (sent again to its new leader), or its
    // ISR is short for now. With idempotence a batch the old leader or the
    // ISR did store is stored once.
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kFencedLeaderEpoch:
    case ErrorCode::kUnknownLeaderEpoch:
    case ErrorCode::kNotEnoughReplicas:
    case ErrorCode::kNotEnoughReplicasAfterAppend:
      return true;
    default:
      return false;
  }
}

}  // namespace

Sender::Sender(Producer::Impl& producer)
    : producer_(producer),
      callers_send_(producer.options.linger.count() == 0),
      idempotent_(producer.options.enable_idempotence) {
  bootstrap_ = wire::split_bootstrap(producer.options.bootstrap);
  const std::size_t in_flight = static_cast<std::size_t>(producer.options.max_in_flight);
  links_.push_back(std::make_unique<Link>(wire::kBootstrapBroker, bootstrap_.front(), in_flight));
  // A few brokers without growing; more only when a cluster has them.
  pollfds_.reserve(8);
  polled_.reserve(8);
  sendable_.reserve(8);
}

void Sender::run() {
  Producer::Impl& p = producer_;
  for (;;) {
    std::unique_lock lk(p.mu);
    // Batches completed this round, callbacks pending; first those a
    // caller completed.
    Batch* done = std::exchange(caller_done_, nullptr);
    // Links whose send from a caller failed are closed here (see
    // send_from_caller()).
    for (std::unique_ptr<Link>& l : links_) {
      if (!l->send_failed.ok()) disconnect(*l, std::exchange(l->send_failed, Status::Ok()), &done);
    }
    Clock::time_point now = Clock::now();
    // Fail what outlived its delivery deadline, and everything queued once
    // close()'s deadline has passed.
    const bool closing_over = p.stop && now >= p.stop_deadline;
    for (Batch* b = p.accumulator.take_expired(now, closing_over); b;) {
      Batch* next = std::exchange(b->next, nullptr);
      std::string why = closing_over ? "the producer closed before the record was acknowledged"
                                     : "record not acknowledged within the delivery timeout";
      if (!p.last_transport_error.ok()) {
        why += " (" + std::string(p.last_transport_error.message()) + ")";
      }
      complete(b, Status(closing_over ? ErrorCode::kShuttingDown : ErrorCode::kTimeout, why),
               kNoOffset, &done);
      b = next;
    }
    const bool quiet = std::all_of(links_.begin(), links_.end(),
                                   [](const auto& l) { return l->in_flight.empty(); });
    if (p.stop && p.accumulator.idle() && quiet) {
      lk.unlock();
      run_callbacks(done);
      return;
    }
    apply_routes(&done);
    // Connect when there is something to send; an idle producer whose
    // connections the brokers closed stays disconnected until then. By
    // index: connect() unlocks, and links are only added by this thread.
    for (std::size_t i = 0; i < links_.size(); ++i) {
      Link& link = *links_[i];
      if (!link.channel.is_open() && has_work(link) && Clock::now() >= link.reconnect_at) {
        connect(link, lk);
      }
    }
    // At most one request per link this round.
    for (std::size_t i = 0; i < links_.size(); ++i) {
      Link& link = *links_[i];
      if (!link.channel.is_open() || link.in_flight.full()) continue;
      // Taken with the mutex held, so never while a caller sends (a caller
      // holds wire_mu_ only with the mutex), and kept until the request is
      // on the wire.
      std::unique_lock wire(wire_mu_);
      now = Clock::now();
      Batch* to_send = nullptr;
      if (i != 0 || !frame_control_request(link, now)) {
        // Nothing is produced before the producer id is known.
        if (idempotent_ && producer_id_ < 0) continue;
        const Linger linger = p.flushing > 0 || p.stop ? Linger::kSkip : Linger::kWait;
        to_send = take_ready(link, now, linger);
        if (!to_send) continue;
      }
      lk.unlock();
      if (to_send) build_produce_request(link, to_send, &done);
      Status sent;
      if (request_.bytes_written() > 0) {
        sent = link.channel.send(request_);
        request_.release();
      }
      wire.unlock();
      lk.lock();
      if (!sent.ok()) disconnect(link, std::move(sent), &done);
    }
    const Clock::time_point due = next_due(Clock::now());
    lk.unlock();
    run_callbacks(std::exchange(done, nullptr));
    wait_and_read(due, &done);
    run_callbacks(done);
  }
}

bool Sender::has_work(const Link& link) const {
  const Producer::Impl& p = producer_;
  if (p.accumulator.has_batches_for(link.broker)) return true;
  if (&link != links_.front().get()) return false;
  return p.metadata.request_due() ||
         (!p.accumulator.idle() && (routes_wanted_ || (idempotent_ && producer_id_ < 0)));
}

void Sender::connect(Link& link, std::unique_lock<std::mutex>& lk) {
  Producer::Impl& p = producer_;
  const bool control = &link == links_.front().get();
  std::string address = link.address;
  if (control) {
    // The bootstrap addresses in turn, then every broker the routes name.
    const std::size_t known = bootstrap_.size() + routes_.addresses.size();
    std::size_t i = next_control_address_ % known;
    if (i < bootstrap_.size()) {
      address = bootstrap_[i];
    } else {
      auto it = routes_.addresses.begin();
      std::advance(it, static_cast<std::ptrdiff_t>(i - bootstrap_.size()));
      address = it->second;
    }
  }
  std::unique_lock wire(wire_mu_);  // taken with the mutex held, as in run()
  lk.unlock();
  Status st = link.channel.connect(address, {.connect_timeout = p.options.connect_timeout,
                                             .request_timeout = p.options.request_timeout,
                                             .max_response_bytes = p.options.max_response_bytes,
                                             .client_id = "spillway-producer",
                                             .security = p.options.security});
  wire.unlock();
  lk.lock();
  if (st.ok()) {
    link.address = std::move(address);
  } else {
    link.reconnect_at = Clock::now() + p.options.retry_backoff;
    if (control) {
      ++next_control_address_;
    } else {
      want_routes(Clock::now());  // its leader may have moved
    }
  }
  p.last_transport_error = std::move(st);
}

bool Sender::frame_control_request(Link& link, Clock::time_point now) {
  Producer::Impl& p = producer_;
  const int32_t id = link.channel.next_correlation_id();
  if (idempotent_ && producer_id_ < 0 && !producer_id_requested_) {
    Status st = wire::write_frame(
        request_, frame::ApiKey::kInitProducerId, messages::kInitProducerIdVersion, id,
        [](WriteBuffer& body) { return messages::encode_init_producer_id_request({}, body); });
    if (!st.ok()) {
      request_.release();
      return false;
    }
    link.in_flight.push({.correlation_id = id, .kind = RequestKind::kInitProducerId, .sent = now});
    producer_id_requested_ = true;
    return true;
  }
  if (routes_wanted_ && !routes_asked_ && now >= routes_at_) {
    Status st = wire::write_frame(
        request_, frame::ApiKey::kDescribeCluster, messages::kDescribeClusterVersion, id,
        [](WriteBuffer& body) { return wire::write_describe_cluster_request(body); });
    if (!st.ok()) {
      request_.release();
      return false;
    }
    link.in_flight.push({.correlation_id = id, .kind = RequestKind::kDescribeCluster, .sent = now});
    routes_wanted_ = false;
    routes_asked_ = true;
    return true;
  }
  if (p.metadata.request_due()) {
    // If it cannot be framed, its topics are asked again next round.
    if (p.metadata.write_request(request_, id).ok()) {
      link.in_flight.push({.correlation_id = id, .kind = RequestKind::kMetadata, .sent = now});
      return true;
    }
    request_.release();
  }
  return false;
}

void Sender::want_routes(Clock::time_point at) {
  if (routes_asked_) return;  // the answer on its way will do
  routes_at_ = routes_wanted_ ? std::min(routes_at_, at) : at;
  routes_wanted_ = true;
}

void Sender::handle_routes(const Status& request_error, std::span<const std::byte> body) {
  routes_asked_ = false;
  Result<wire::ClusterRoutes> routes = wire::routes_from_answer(request_error, body);
  if (!routes.ok()) {
    want_routes(Clock::now() + producer_.options.retry_backoff);
    return;
  }
  routes_ = std::move(*routes);
  ++routes_version_;
}

Sender::Link& Sender::link_to(int32_t broker, const std::string& address) {
  for (std::unique_ptr<Link>& l : links_) {
    if (l->broker == broker) return *l;
  }
  links_.push_back(std::make_unique<Link>(
      broker, address, static_cast<std::size_t>(producer_.options.max_in_flight)));
  return *links_.back();
}

void Sender::apply_routes(Batch** done) {
  Producer::Impl& p = producer_;
  p.accumulator.for_each_topic([&](TopicQueues& t) {
    if (t.routes_version == routes_version_) return;
    t.routes_version = routes_version_;
    for (int32_t i = 0; i < t.partition_count(); ++i) {
      const int32_t leader = routes_.leader(t.name, i);
      t.queue(PartitionId(i)).leader = leader;
      if (leader < 0) continue;
      const std::string& address = *routes_.address(leader);
      Link& link = link_to(leader, address);
      if (link.address != address) {
        // The broker came back elsewhere.
        link.address = address;
        if (link.channel.is_open()) {
          disconnect(link, Status(ErrorCode::kNotConnected, "broker moved to " + address), done);
        }
      }
    }
  });
  // A partition with records and no leader: ask again until it has one.
  if (routes_.cluster() && !routes_wanted_ && !routes_asked_ &&
      p.accumulator.has_batches_for(wire::kNoLeader)) {
    want_routes(Clock::now() + std::max(p.options.retry_backoff, std::chrono::milliseconds(100)));
  }
}

void Sender::wait_and_read(Clock::time_point due, Batch** done) {
  const ProducerOptions& o = producer_.options;
  auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(due - Clock::now());
  wait = std::clamp(wait, std::chrono::milliseconds(0), std::chrono::milliseconds(100));
  pollfds_.clear();
  polled_.clear();
  bool buffered = false;
  for (std::unique_ptr<Link>& l : links_) {
    if (!l->channel.is_open()) continue;
    buffered = buffered || l->channel.has_buffered_input();
    pollfds_.push_back({l->channel.native_handle(), POLLIN, 0});
    polled_.push_back(l.get());
  }
  pollfds_.push_back({producer_.wake_fd, POLLIN, 0});
  ::poll(pollfds_.data(), pollfds_.size(), buffered ? 0 : static_cast<int>(wait.count()));
  uint64_t drained;
  [[maybe_unused]] ssize_t r = ::read(producer_.wake_fd, &drained, sizeof(drained));
  const Clock::time_point now = Clock::now();
  for (std::size_t i = 0; i < polled_.size(); ++i) {
    Link& link = *polled_[i];
    // Readable with nothing in flight means the broker closed an idle
    // connection (EOF); reading it notices and closes our side.
    const bool readable = (pollfds_[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0 ||
                          link.channel.has_buffered_input();
    if (!readable) {
      // Under the mutex: a caller may be adding a request (send_from_caller()).
      std::lock_guard lk(producer_.mu);
      if (now >= link.in_flight.next_timeout(o.request_timeout)) {
        disconnect(
            link,
            Status(ErrorCode::kTimeout, link.address + ": no response within " +
                                            std::to_string(o.request_timeout.count()) + " ms"),
            done);
      }
      continue;
    }
    std::unique_lock wire(wire_mu_);
    Result<wire::Response> response = link.channel.read_response();
    wire.unlock();
    std::lock_guard lk(producer_.mu);
    if (!response.ok()) {
      disconnect(link, response.status(), done);
    } else {
      handle_response(link, *response, done);
    }
  }
}

void Sender::disconnect(Link& link, Status why, Batch** done) {
  link.channel.close();
  link.reconnect_at = Clock::now() + producer_.options.retry_backoff;
  while (!link.in_flight.empty()) {
    const InFlight f = link.in_flight.pop_oldest();
    if (f.kind == RequestKind::kMetadata) producer_.metadata.request_lost();
    if (f.kind == RequestKind::kInitProducerId) producer_id_requested_ = false;
    if (f.kind == RequestKind::kDescribeCluster) {
      routes_asked_ = false;
      routes_wanted_ = true;
    }
    for (Batch* b = f.batches; b;) {
      Batch* next = b->next;
      producer_.accumulator.finished(b);
      complete(b, why, kNoOffset, done);
      b = next;
    }
  }
  // In a cluster a lost broker may have lost its leadership too.
  if (routes_.cluster()) want_routes(link.reconnect_at);
  producer_.last_transport_error = std::move(why);
}

void Sender::handle_response(Link& link, const wire::Response& response, Batch** done) {
  InFlight f;
  if (!link.in_flight.take_answered(response.correlation_id, &f)) {
    disconnect(link,
               Status(ErrorCode::kCorruptMessage,
                      link.address + ": response to an unknown request (correlation id " +
                          std::to_string(response.correlation_id) + ")"),
               done);
    return;
  }
  Status request_error;
  if (response.error != ErrorCode::kOk) {
    request_error = frame::decode_error_body(response.error, response.body);
  }
  if (f.kind == RequestKind::kMetadata) {
    producer_.metadata.apply(std::move(request_error), response.body);
    producer_.cv.notify_all();
    return;
  }
  if (f.kind == RequestKind::kInitProducerId) {
    handle_producer_id(std::move(request_error), response.body);
    return;
  }
  if (f.kind == RequestKind::kDescribeCluster) {
    handle_routes(request_error, response.body);
    return;
  }
  Batch* b = f.batches;
  Status st = request_error;
  if (st.ok()) {
    Result<messages::ProduceResponse> decoded = messages::decode_produce_response(response.body);
    st = decoded.status();
    if (st.ok()) {
      for (const messages::ProduceTopicResult& t : decoded->topics) {
        for (const messages::ProducePartitionResult& r : t.results) {
          if (!b) break;
          if (t.name != b->topic->name || PartitionId(r.partition) != b->partition) continue;
          Batch* next = b->next;
          producer_.accumulator.finished(b);
          if (r.error_code == ErrorCode::kOk) {
            complete(b, Status::Ok(),
                     producer_.options.acks == Acks::kNone ? kNoOffset : Offset(r.base_offset),
                     done);
          } else {
            if (wire::needs_new_routes(r.error_code)) want_routes(Clock::now());
            complete(b,
                     Status(r.error_code, r.error_message.empty()
                                              ? std::string(error_code_name(r.error_code))
                                              : std::string(r.error_message)),
                     kNoOffset, done);
          }
          b = next;
        }
      }
    }
    if (st.ok() && b)
      st = Status(ErrorCode::kCorruptMessage, "produce response is missing results");
  }
  while (b) {  // what the response did not answer fails with its error
    Batch* next = b->next;
    producer_.accumulator.finished(b);
    complete(b, st, kNoOffset, done);
    b = next;
  }
}

Batch* Sender::take_ready(Link& link, Clock::time_point now, Linger linger) {
  Batch* batches =
      producer_.accumulator.drain_ready(now, linger, kMaxRequestBytes, link.broker, producer_id_);
  if (!batches) return nullptr;
  assign_sequences(batches);
  link.in_flight.push({.correlation_id = link.channel.next_correlation_id(),
                       .kind = RequestKind::kProduce,
                       .batches = batches,
                       .sent = now});
  return batches;
}

bool Sender::send_from_caller() {
  Producer::Impl& p = producer_;
  if (!callers_send_ || p.stop || (idempotent_ && producer_id_ < 0)) return false;
  const Clock::time_point now = Clock::now();
  // Control requests (metadata, routes) are this thread's to send.
  if (p.metadata.request_due() || (routes_wanted_ && !routes_asked_ && now >= routes_at_)) {
    return false;
  }
  std::unique_lock wire(wire_mu_, std::try_to_lock);
  if (!wire.owns_lock()) return false;  // this thread is on the wire: it sends
  bool sent_all = true;
  bool sent_any = false;
  for (std::unique_ptr<Link>& l : links_) {
    Link& link = *l;
    if (!link.channel.is_open() || link.channel.encrypted() || link.in_flight.full() ||
        !link.send_failed.ok()) {
      continue;
    }
    Batch* to_send = take_ready(link, now, Linger::kWait);
    if (!to_send) continue;
    sent_any = true;
    if (Status st = frame_produce_request(link, to_send); !st.ok()) {
      request_.release();
      fail_unframed(link, to_send, st, &caller_done_);
      sent_all = false;
      continue;
    }
    Status sent = link.channel.send(request_, /*close_on_failure=*/false);
    request_.release();
    if (!sent.ok()) {
      link.send_failed = std::move(sent);
      sent_all = false;
    }
  }
  return sent_any && sent_all;
}

void Sender::build_produce_request(Link& link, Batch* batches, Batch** done) {
  Status st = frame_produce_request(link, batches);
  if (st.ok()) return;
  request_.release();
  std::lock_guard lk(producer_.mu);
  fail_unframed(link, batches, st, done);
}

void Sender::fail_unframed(Link& link, Batch* batches, const Status& st, Batch** done) {
  // Cannot frame the request (no pooled memory): fail its batches rather
  // than send a partial one.
  link.in_flight.drop_newest();
  for (Batch* b = batches; b;) {
    Batch* next = b->next;
    producer_.accumulator.finished(b);
    complete(b, Status(st.code(), "cannot build the produce request: " + std::string(st.message())),
             kNoOffset, done);
    b = next;
  }
}

Status Sender::frame_produce_request(Link& link, Batch* batches) {
  const ProducerOptions& o = producer_.options;
  batch::BuilderOptions bo;
  bo.compression = o.compression == ProducerCompression::kZstd ? batch::Compression::kZstd
                                                               : batch::Compression::kNone;
  bo.zstd_level = o.zstd_level;
  Status st = wire::write_frame(request_, frame::ApiKey::kProduce, messages::kProduceVersion,
                                link.in_flight.newest().correlation_id, [&](WriteBuffer& out) {
                                  // Each batch is built straight into the request, between the
                                  // writer's begin_partition() and end_partition().
                                  messages::ProduceRequestWriter w(
                                      out, static_cast<messages::Acks>(static_cast<int8_t>(o.acks)),
                                      static_cast<int32_t>(o.request_timeout.count()));
                                  const TopicQueues* topic = nullptr;
                                  for (Batch* b = batches; b; b = b->next) {
                                    if (b->topic != topic) {
                                      topic = b->topic;
                                      w.begin_topic(topic->name);
                                    }
                                    w.begin_partition(b->partition.value());
                                    SPILLWAY_RETURN_IF_ERROR(w.status());
                                    bo.producer_id = b->producer_id;
                                    bo.producer_epoch = b->producer_epoch;
                                    bo.base_sequence = b->base_sequence;
                                    SPILLWAY_RETURN_IF_ERROR(builder_.start(out, bo));
                                    Status appended;
                                    for_each_entry(b->staging, [&](const Entry& e) {
                                      if (appended.ok()) appended = builder_.append(e.record);
                                    });
                                    SPILLWAY_RETURN_IF_ERROR(appended);
                                    Result<std::size_t> size = builder_.finish();
                                    if (!size.ok()) return size.status();
                                    w.end_partition();
                                  }
                                  return w.finish();
                                });
  return st;
}

void Sender::handle_producer_id(Status request_error, std::span<const std::byte> body) {
  producer_id_requested_ = false;
  Status st = std::move(request_error);
  if (st.ok()) {
    Result<messages::InitProducerIdResponse> r = messages::decode_init_producer_id_response(body);
    if (r.ok() && r->producer_id >= 0 && r->producer_epoch >= 0) {
      producer_id_ = r->producer_id;
      producer_epoch_ = r->producer_epoch;
      // The broker now refuses a batch behind a gap in its partition's
      // sequence, so several of a partition may be in flight.
      producer_.accumulator.set_in_flight_per_partition(
          static_cast<uint32_t>(producer_.options.max_in_flight));
      return;
    }
    st = r.ok() ? Status(ErrorCode::kCorruptMessage, "InitProducerId: no producer id") : r.status();
  }
  if (retriable(st.code())) return;  // asked again next round
  // A broker that hands out no producer ids (one older than idempotence):
  // the producer carries on at least once rather than not at all.
  idempotent_ = false;
  producer_.accumulator.set_in_flight_per_partition(1);
}

void Sender::assign_sequences(Batch* batches) {
  if (!idempotent_) return;
  for (Batch* b = batches; b; b = b->next) {
    if (b->base_sequence >= 0) continue;  // a retry keeps its numbers
    PartitionQueue& q = b->topic->queue(b->partition);
    if (q.sequence_producer_id != producer_id_) {
      q.sequence_producer_id = producer_id_;
      q.next_sequence = 0;
    }
    b->producer_id = producer_id_;
    b->producer_epoch = producer_epoch_;
    b->base_sequence = q.next_sequence;
    // Sequences wrap from INT32_MAX to 0, as the broker counts them.
    const int64_t next = int64_t{q.next_sequence} + b->count;
    q.next_sequence = static_cast<int32_t>(next > INT32_MAX ? next - INT32_MAX - 1 : next);
  }
}

void Sender::complete(Batch* b, const Status& st, Offset base_offset, Batch** done) {
  const ProducerOptions& o = producer_.options;
  const Clock::time_point now = Clock::now();
  if ((st.code() == ErrorCode::kOutOfOrderSequence ||
       st.code() == ErrorCode::kUnknownProducerId) &&
      now < b->deadline && producer_.accumulator.earlier_batch_queued(b)) {
    // Sent behind a batch of its partition that failed and waits to be
    // sent again: the broker refused the gap (a producer it has no state
    // for yet must start at sequence 0). It follows that batch with its
    // numbers (answers come in request order, so every batch sent before
    // `b` has been answered by now). Not an attempt of its own.
    b->retry_at = now + o.retry_backoff;
    producer_.accumulator.requeue(b);
    return;
  }
  if (st.code() == ErrorCode::kUnknownProducerId && now < b->deadline) {
    // The partition has no state for this producer (expired, or a leader
    // that never got the earlier batches, which then all failed). Nothing
    // of the partition was stored under this id after what the broker
    // forgot, so `b` goes again under a new producer id, numbered from 0
    // (the batches in flight behind it are refused too and follow it, above).
    if (b->producer_id == producer_id_) producer_id_ = -1;
    b->producer_id = -1;
    b->base_sequence = -1;
    b->retry_at = now + o.retry_backoff;
    producer_.accumulator.requeue(b);
    return;
  }
  if (!st.ok() && retriable(st.code()) && b->attempts < o.retries && now < b->deadline &&
      !(producer_.stop && now >= producer_.stop_deadline)) {
    ++b->attempts;
    b->retry_at = now + o.retry_backoff;
    producer_.accumulator.requeue(b);
    return;
  }
  b->error = st;  // copies (allocates) only on failure
  b->base_offset = base_offset;
  if (!st.ok() && b->base_sequence >= 0 && b->producer_id == producer_id_) {
    // Whether the broker stored it is unknown (or it refused it): the
    // partition's next sequence cannot be known either, so later batches
    // go out under a new producer id, numbered from 0.
    producer_id_ = -1;
  }
  push_front(done, b);
  // Everything queued for the partition was sent after `b`: no holes.
  if (!st.ok()) producer_.accumulator.fence(*b->topic, b->partition, st, done);
}

Clock::time_point Sender::next_due(Clock::time_point now) {
  const Producer::Impl& p = producer_;
  Clock::time_point due = now + std::chrono::milliseconds(100);
  sendable_.clear();
  for (const std::unique_ptr<Link>& l : links_) {
    if (!l->channel.is_open()) {
      if (has_work(*l)) due = std::min(due, l->reconnect_at);
      continue;
    }
    due = std::min(due, l->in_flight.next_timeout(p.options.request_timeout));
    if (!l->in_flight.full()) sendable_.push_back(l->broker);
  }
  const Link& control = *links_.front();
  if (control.channel.is_open() && !control.in_flight.full()) {
    if ((idempotent_ && producer_id_ < 0 && !producer_id_requested_) || p.metadata.request_due()) {
      return now;
    }
    if (routes_wanted_ && !routes_asked_) due = std::min(due, std::max(now, routes_at_));
  }
  // Nothing is produced before the producer id is known.
  if (idempotent_ && producer_id_ < 0) sendable_.clear();
  return p.accumulator.next_due(due, p.flushing > 0 || p.stop ? Linger::kSkip : Linger::kWait,
                                sendable_);
}

void Sender::run_callbacks(Batch* done) {
  if (!done) return;
  Batch* ordered = nullptr;  // oldest first
  while (done) push_front(&ordered, std::exchange(done, done->next));
  uint64_t records = 0;
  for (Batch* b = ordered; b; b = b->next) {
    Offset offset = b->base_offset;  // of each record in turn, when known
    for_each_entry(b->staging, [&](const Entry& e) {
      if (e.cb.fn) {
        e.cb.fn(e.cb.context, b->error,
                RecordMetadata{.topic = b->topic->name,
                               .partition = b->partition.value(),
                               .offset = offset.value(),
                               .timestamp = e.timestamp});
      }
      if (offset != kNoOffset) offset = offset.next();
    });
    records += static_cast<uint64_t>(b->count);
  }
  std::lock_guard lk(producer_.mu);
  while (ordered) {
    Batch* b = std::exchange(ordered, ordered->next);
    if (!b->error.ok()) producer_.tally.note_failure(b->error);
    producer_.accumulator.release(b);
  }
  producer_.tally.completed += records;
  producer_.cv.notify_all();
}

}  // namespace spillway::producer_internal
