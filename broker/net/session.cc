// One client connection: reader, writer and the ring of in-flight exchanges,
// as callback-driven state machines on the session's thread.
#include "session.h"

#include <spdlog/spdlog.h>

#include <asio/read.hpp>
#include <asio/write.hpp>

#include "spillway/common/buffer_pool.h"

namespace spillway::broker {

namespace {
constexpr size_t kMaxBuffersPerWrite = 64;
// How long a closing connection waits for the client to close its side
// (see close_gracefully()), and the reads that discard its input meanwhile.
constexpr std::chrono::milliseconds kLingerTime{500};
constexpr size_t kDrainBytes = 4096;
}  // namespace

Session::Session(asio::ip::tcp::socket socket, asio::ip::address address, SessionHost& host)
    : socket_(std::move(socket)),
      host_(host),
      address_(std::move(address)),
      memory_(*host.memory, host.connection_memory_bytes),
      idle_timer_(socket_.get_executor()) {
  asio::error_code ec;
  auto endpoint = socket_.remote_endpoint(ec);
  peer_ = ec ? std::string("?")
             : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  ring_.resize(host_.queue_depth > 0 ? host_.queue_depth : 1);
  host_.sessions.insert(this);
}

Session::~Session() {
  free_body();
  host_.sessions.erase(this);
  if (!evicted_) host_.limits->release(address_);
  spdlog::debug("connection from {} closed", peer_);
}

void wake_memory_waiters(void* ctx) {
  auto& host = *static_cast<SessionHost*>(ctx);
  // Swapped out first: a session that still finds no room puts itself back.
  std::vector<std::shared_ptr<Session>> waiters;
  waiters.swap(host.memory_waiters);
  for (const auto& session : waiters) session->retry_memory();
}

void Session::start() {
  spdlog::debug("connection from {}", peer_);
  last_read_ = std::chrono::steady_clock::now();
  read_header();
  if (host_.idle_timeout.count() > 0) watch_idle();
}

void Session::stop() {
  if (stopping_) return;
  stopping_ = true;
  // Only the pending header/body read is cancelled; exchanges in flight are
  // still answered.
  stop_reading_.emit(asio::cancellation_type::terminal);
  idle_timer_.cancel();
  if (!reading_) reader_done();
}

void Session::abandon() {
  closed_ = true;  // nothing is written any more
  stop_waiting_for_memory();
  stop_waiting_for_writes();
  set_reader_paused(false);
  for (auto& exchange : ring_) {
    if (exchange) exchange->recycle();
  }
}

bool Session::evictable() const {
  return in_flight_ == 0 && !reading_body_ && !waiting_memory_ && !waiting_writes_ && !stopping_ &&
         !reader_done_;
}

void Session::evict() {
  evicted_ = true;
  spdlog::debug("connection from {}: closing it, the longest idle, to make room", peer_);
  stop();
}

std::byte* Session::body_buffer(size_t n) {
  free_body();
  if (n <= BufferPool::kMaxBufferSize) {
    std::span<std::byte> pooled = BufferPool::global().rent(n);
    if (!pooled.empty()) {
      body_ = pooled.data();
      return body_;
    }
  }
  body_heap_ = std::make_unique_for_overwrite<std::byte[]>(n);
  body_ = body_heap_.get();
  return body_;
}

void Session::free_body() {
  if (body_ != nullptr && !body_heap_) BufferPool::global().give_back(body_);
  body_heap_.reset();
  body_ = nullptr;
}

Exchange& Session::next_exchange() {
  std::unique_ptr<Exchange>& slot = ring_[(head_ + in_flight_) % ring_.size()];
  if (!slot) slot = std::make_unique<Exchange>();
  ++in_flight_;
  return *slot;
}

void Session::on_finished(Exchange&, void* owner) {
  static_cast<Session*>(owner)->kick_writer();
}

void Session::read_header() {
  if (reader_done_) return;
  if (stopping_) {
    reader_done();
    return;
  }
  // The in-flight bound: with every exchange taken, read nothing more until
  // the writer has sent the oldest response.
  if (in_flight_ == ring_.size()) {
    set_reader_paused(true);
    return;
  }
  reading_ = true;
  asio::async_read(
      socket_, asio::buffer(header_bytes_),
      bind_memory(
          read_memory_,
          [self = shared_from_this()](const asio::error_code& ec, size_t) { self->on_header(ec); },
          stop_reading_.slot()));
}

void Session::on_header(const asio::error_code& ec) {
  reading_ = false;
  last_read_ = std::chrono::steady_clock::now();
  if (ec) {
    if (ec != asio::error::eof && ec != asio::error::operation_aborted) {
      spdlog::debug("connection from {}: read failed: {}", peer_, ec.message());
    }
    reader_done();
    return;
  }
  Status st = frame::decode_request_header(header_bytes_, host_.max_frame_bytes, &header_);
  if (!st.ok()) {
    // The body's length cannot be trusted (or is too large to read), so the
    // stream cannot be resynchronised: answer, then close. A client can do
    // this in a loop, so the log line is rate-limited.
    if (uint64_t held_back = 0; host_.bad_frame_log.allow(&held_back)) {
      spdlog::warn("connection from {}: {}; closing it ({} more such frame(s) not logged)", peer_,
                   st.message(), held_back);
    }
    Exchange& exchange = next_exchange();
    exchange.reset(header_, {}, *host_.context, shared_from_this(), &Session::on_finished, this);
    reader_done_ = true;  // before finish(): the writer closes after this answer
    exchange.finish(st);
    return;
  }
  if (!take_body_memory()) return;  // resumed by retry_memory() or on_written()
  read_body();
}

bool Session::take_body_memory() {
  const uint64_t n = header_.body_bytes;
  if (!memory_.fits_share(n)) {
    // Over this connection's share: only its own writes free it.
    if (!waiting_writes_) memory_.global().add_over_share();
    waiting_writes_ = true;
    return false;
  }
  stop_waiting_for_writes();
  if (memory_.admit(n, &body_admitted_empty_)) {
    body_charge_ = n;
    stop_waiting_for_memory();
    return true;
  }
  MemoryBudget& budget = memory_.global();
  if (!waiting_memory_) {
    waiting_memory_ = true;
    budget.add_waiter();
    host_.memory_waiters.push_back(shared_from_this());
  }
  budget.arm(host_.shard);
  // Memory given back before the arm above woke nobody: look once more.
  if (memory_.admit(n, &body_admitted_empty_)) {
    body_charge_ = n;
    stop_waiting_for_memory();
    return true;
  }
  return false;
}

void Session::set_reader_paused(bool paused) {
  if (paused == reader_paused_) return;
  reader_paused_ = paused;
  host_.paused_at_max_in_flight->fetch_add(paused ? 1 : -1, std::memory_order_relaxed);
}

void Session::stop_waiting_for_writes() {
  if (!waiting_writes_) return;
  waiting_writes_ = false;
  memory_.global().remove_over_share();
}

void Session::stop_waiting_for_memory() {
  if (!waiting_memory_) return;
  waiting_memory_ = false;
  memory_.global().remove_waiter();
  // A stale entry left in host.memory_waiters is skipped by retry_memory().
}

void Session::retry_memory() {
  if (!waiting_memory_) return;
  if (stopping_ || reader_done_) {
    stop_waiting_for_memory();
    reader_done();
    return;
  }
  // take_body_memory() puts this session back on the list if it must wait.
  waiting_memory_ = false;
  memory_.global().remove_waiter();
  if (take_body_memory()) read_body();
}

void Session::read_body() {
  if (header_.body_bytes == 0) {
    on_body(asio::error_code());
    return;
  }
  if (stopping_) {
    memory_.release(std::exchange(body_charge_, 0));
    reader_done();
    return;
  }
  reading_ = true;
  reading_body_ = true;
  asio::async_read(
      socket_, asio::buffer(body_buffer(header_.body_bytes), header_.body_bytes),
      bind_memory(
          read_memory_,
          [self = shared_from_this()](const asio::error_code& ec, size_t) { self->on_body(ec); },
          stop_reading_.slot()));
}

void Session::on_body(const asio::error_code& ec) {
  reading_ = false;
  reading_body_ = false;
  last_read_ = std::chrono::steady_clock::now();
  const uint64_t charge = std::exchange(body_charge_, 0);
  if (ec) {
    memory_.release(charge);
    free_body();
    reader_done();
    return;
  }
  Exchange& exchange = next_exchange();
  exchange.reset(
      header_, std::span<const std::byte>(header_.body_bytes ? body_ : nullptr, header_.body_bytes),
      *host_.context, shared_from_this(), &Session::on_finished, this, &memory_, charge,
      body_admitted_empty_);
  host_.dispatcher->dispatch(exchange);
  free_body();  // handlers copy what they keep
  read_header();
}

void Session::reader_done() {
  if (reader_done_) return;
  reader_done_ = true;
  set_reader_paused(false);
  stop_waiting_for_writes();
  stop_waiting_for_memory();
  idle_timer_.cancel();
  kick_writer();
}

void Session::kick_writer() {
  if (writing_ || closed_) return;
  for (;;) {
    if (in_flight_ == 0) {
      head_ = 0;  // a client that waits for each answer keeps reusing one exchange
      if (reader_done_) close_gracefully();
      return;
    }
    Exchange& head = *ring_[head_];
    if (!head.finished()) return;
    if (!broken_) break;
    // A failed write: drain (every exchange must finish before the session
    // may end) without writing.
    head.recycle();
    head_ = (head_ + 1) % ring_.size();
    --in_flight_;
  }
  // Gather every finished response at the head, in order, into one write.
  if (write_buffers_.capacity() == 0) write_buffers_.reserve(kMaxBuffersPerWrite + 8);
  write_buffers_.clear();
  size_t exchanges = 0;
  while (exchanges < in_flight_) {
    Exchange& e = *ring_[(head_ + exchanges) % ring_.size()];
    if (!e.finished()) break;
    std::span<const iovec> segments = e.frame_segments();
    if (segments.empty()) {
      if (exchanges == 0) {
        // An error frame could not be built: nothing sane to send.
        broken_ = true;
        stop();
        kick_writer();
        return;
      }
      break;
    }
    if (exchanges > 0 && write_buffers_.size() + segments.size() > kMaxBuffersPerWrite) break;
    for (const iovec& v : segments) write_buffers_.emplace_back(v.iov_base, v.iov_len);
    ++exchanges;
  }
  writing_ = true;
  // A span, not the vector: the write operation copies its buffer sequence.
  asio::async_write(socket_, std::span<const asio::const_buffer>(write_buffers_),
                    bind_memory(write_memory_, [self = shared_from_this(), exchanges](
                                                   const asio::error_code& ec, size_t) {
                      self->on_written(ec, exchanges);
                    }));
}

void Session::on_written(const asio::error_code& ec, size_t exchanges) {
  writing_ = false;
  if (ec && !broken_) {
    spdlog::debug("connection from {}: write failed: {}", peer_, ec.message());
    broken_ = true;
    stop();
    asio::error_code ignored;
    socket_.shutdown(asio::socket_base::shutdown_receive, ignored);
  }
  for (size_t i = 0; i < exchanges; ++i) {
    ring_[head_]->recycle();
    head_ = (head_ + 1) % ring_.size();
    --in_flight_;
  }
  if (reader_paused_ && !reader_done_) {
    set_reader_paused(false);
    read_header();
  } else if (waiting_writes_ && !reader_done_ && take_body_memory()) {
    read_body();
  }
  kick_writer();
}

void Session::close_gracefully() {
  closed_ = true;
  asio::error_code ignored;
  socket_.shutdown(asio::socket_base::shutdown_send, ignored);
  if (broken_) {
    socket_closed_ = true;
    socket_.close(ignored);
    idle_timer_.cancel();
    return;
  }
  idle_timer_.cancel();
  idle_timer_.expires_after(kLingerTime);
  // Plain handlers from here on: a closing connection may allocate.
  idle_timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
    if (ec || self->socket_closed_) return;
    self->socket_closed_ = true;
    asio::error_code ignored;
    self->socket_.close(ignored);  // completes the pending drain read
  });
  drain_input();
}

void Session::drain_input() {
  // No read is pending once the reader is done, so the body buffer is free.
  if (body_ == nullptr) body_buffer(kDrainBytes);
  socket_.async_read_some(asio::buffer(body_, kDrainBytes),
                          [self = shared_from_this()](const asio::error_code& ec, size_t) {
                            if (!ec && !self->socket_closed_) {
                              self->drain_input();
                              return;
                            }
                            if (!self->socket_closed_) {
                              self->socket_closed_ = true;
                              asio::error_code ignored;
                              self->socket_.close(ignored);
                            }
                            self->idle_timer_.cancel();
                          });
}

void Session::watch_idle() {
  const auto timeout = host_.idle_timeout;
  const auto period = std::max(timeout / 4, std::chrono::milliseconds(10));
  idle_timer_.expires_after(period);
  idle_timer_.async_wait(bind_memory(idle_memory_, [self = shared_from_this(),
                                                    timeout](const asio::error_code& ec) {
    if (ec || self->reader_done_ || self->stopping_) return;
    // Waiting for our own responses (a long poll) or for memory is not
    // idleness.
    if (self->in_flight_ == 0 && !self->waiting_memory_ && !self->waiting_writes_ &&
        std::chrono::steady_clock::now() - self->last_read_ >= timeout) {
      spdlog::info("connection from {} idle for {} ms; closing it", self->peer_, timeout.count());
      self->stop();
      return;
    }
    self->watch_idle();
  }));
}

}  // namespace spillway::broker
