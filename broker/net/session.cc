// One client connection: reader, writer and the ring of in-flight exchanges,
// as callback-driven state machines on the session's thread.
#include "session.h"

#include <spdlog/spdlog.h>

#include <asio/read.hpp>
#include <asio/write.hpp>

namespace spillway::broker {

namespace {
constexpr size_t kMaxBuffersPerWrite = 64;
// A body buffer grown past this for one large request is given back after
// it, so idle connections do not each keep max_frame_bytes.
constexpr size_t kKeepBodyBytes = 1 << 20;
// How long a closing connection waits for the client to close its side
// (see close_gracefully()), and the reads that discard its input meanwhile.
constexpr std::chrono::milliseconds kLingerTime{500};
constexpr size_t kDrainBytes = 4096;
}  // namespace

Session::Session(asio::ip::tcp::socket socket, SessionHost& host)
    : socket_(std::move(socket)), host_(host), idle_timer_(socket_.get_executor()) {
  asio::error_code ec;
  auto endpoint = socket_.remote_endpoint(ec);
  peer_ = ec ? std::string("?")
             : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  const size_t depth = host_.queue_depth > 0 ? host_.queue_depth : 1;
  ring_.reserve(depth);
  for (size_t i = 0; i < depth; ++i) ring_.push_back(std::make_unique<Exchange>());
  write_buffers_.reserve(kMaxBuffersPerWrite + 8);
  host_.sessions.insert(this);
}

Session::~Session() {
  host_.sessions.erase(this);
  host_.open_connections->fetch_sub(1, std::memory_order_relaxed);
  spdlog::debug("connection from {} closed", peer_);
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
  for (auto& exchange : ring_) exchange->recycle();
}

std::byte* Session::body_buffer(size_t n) {
  if (n > body_capacity_) {
    body_ = std::make_unique_for_overwrite<std::byte[]>(n);
    body_capacity_ = n;
  }
  return body_.get();
}

Exchange& Session::next_exchange() {
  Exchange& exchange = *ring_[(head_ + in_flight_) % ring_.size()];
  ++in_flight_;
  return exchange;
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
    reader_paused_ = true;
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
    // stream cannot be resynchronised: answer, then close.
    spdlog::warn("connection from {}: {}; closing it", peer_, st.message());
    Exchange& exchange = next_exchange();
    exchange.reset(header_, {}, *host_.context, shared_from_this(), &Session::on_finished, this);
    reader_done_ = true;  // before finish(): the writer closes after this answer
    exchange.finish(st);
    return;
  }
  if (header_.body_bytes == 0) {
    on_body(asio::error_code());
    return;
  }
  if (stopping_) {
    reader_done();
    return;
  }
  reading_ = true;
  asio::async_read(
      socket_, asio::buffer(body_buffer(header_.body_bytes), header_.body_bytes),
      bind_memory(
          read_memory_,
          [self = shared_from_this()](const asio::error_code& ec, size_t) { self->on_body(ec); },
          stop_reading_.slot()));
}

void Session::on_body(const asio::error_code& ec) {
  reading_ = false;
  last_read_ = std::chrono::steady_clock::now();
  if (ec) {
    reader_done();
    return;
  }
  Exchange& exchange = next_exchange();
  exchange.reset(
      header_,
      std::span<const std::byte>(header_.body_bytes ? body_.get() : nullptr, header_.body_bytes),
      *host_.context, shared_from_this(), &Session::on_finished, this);
  host_.dispatcher->dispatch(exchange);
  if (body_capacity_ > kKeepBodyBytes) {
    body_.reset();
    body_capacity_ = 0;
  }
  read_header();
}

void Session::reader_done() {
  if (reader_done_) return;
  reader_done_ = true;
  reader_paused_ = false;
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
    reader_paused_ = false;
    read_header();
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
  socket_.async_read_some(asio::buffer(body_buffer(kDrainBytes), kDrainBytes),
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
    // Waiting for our own responses (a long poll) is not idleness.
    if (self->in_flight_ == 0 && std::chrono::steady_clock::now() - self->last_read_ >= timeout) {
      spdlog::info("connection from {} idle for {} ms; closing it", self->peer_, timeout.count());
      self->stop();
      return;
    }
    self->watch_idle();
  }));
}

}  // namespace spillway::broker
