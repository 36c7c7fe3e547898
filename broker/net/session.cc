// One client connection: reader, writer and the ring of in-flight exchanges.
#include "session.h"

#include <spdlog/spdlog.h>

#include <array>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/read.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

namespace spillway::broker {

namespace {
constexpr auto kAsTuple = asio::experimental::as_tuple(asio::use_awaitable);
}

Session::Session(asio::ip::tcp::socket socket, SessionHost& host)
    : socket_(std::move(socket)),
      host_(host),
      reader_wake_(socket_.get_executor()),
      writer_wake_(socket_.get_executor()),
      idle_timer_(socket_.get_executor()) {
  asio::error_code ec;
  auto endpoint = socket_.remote_endpoint(ec);
  peer_ = ec ? std::string("?")
             : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  const size_t depth = host_.queue_depth > 0 ? host_.queue_depth : 1;
  ring_.reserve(depth);
  for (size_t i = 0; i < depth; ++i) ring_.push_back(std::make_unique<Exchange>());
  write_buffers_.reserve(64);
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
  asio::co_spawn(socket_.get_executor(), read_loop(), asio::detached);
  asio::co_spawn(socket_.get_executor(), write_loop(), asio::detached);
  if (host_.idle_timeout.count() > 0) {
    asio::co_spawn(socket_.get_executor(), idle_watch(), asio::detached);
  }
}

void Session::stop() {
  if (stopping_) return;
  stopping_ = true;
  // Only the pending header/body read is cancelled; exchanges in flight are
  // still answered. A reader waiting for a free slot sees stopping_ next.
  stop_reading_.emit(asio::cancellation_type::terminal);
  reader_wake_.cancel();
  idle_timer_.cancel();
}

std::byte* Session::body_buffer(size_t n) {
  if (n > body_capacity_) {
    body_ = std::make_unique_for_overwrite<std::byte[]>(n);
    body_capacity_ = n;
  }
  return body_.get();
}

asio::awaitable<bool> Session::read_exactly(std::byte* dst, size_t n) {
  if (stopping_) co_return false;
  auto [ec, read] = co_await asio::async_read(
      socket_, asio::buffer(dst, n), asio::bind_cancellation_slot(stop_reading_.slot(), kAsTuple));
  if (ec && ec != asio::error::eof && ec != asio::error::operation_aborted) {
    spdlog::debug("connection from {}: read failed: {}", peer_, ec.message());
  }
  last_read_ = std::chrono::steady_clock::now();
  co_return !ec;
}

asio::awaitable<void> Session::wait_on(asio::steady_timer& timer) {
  timer.expires_at(asio::steady_timer::time_point::max());
  co_await timer.async_wait(kAsTuple);
}

Exchange& Session::next_exchange() {
  Exchange& exchange = *ring_[(head_ + in_flight_) % ring_.size()];
  ++in_flight_;
  return exchange;
}

void Session::on_finished(Exchange&, void* owner) {
  static_cast<Session*>(owner)->writer_wake_.cancel();
}

asio::awaitable<void> Session::read_loop() {
  auto self = shared_from_this();
  std::array<std::byte, frame::kRequestHeaderBytes> header_bytes;
  for (;;) {
    // The in-flight bound: with every exchange taken, read nothing more
    // until the writer has sent the oldest response.
    while (in_flight_ == ring_.size() && !stopping_) co_await wait_on(reader_wake_);
    if (stopping_ || !co_await read_exactly(header_bytes.data(), header_bytes.size())) break;
    frame::RequestHeader header;
    Status st = frame::decode_request_header(header_bytes, host_.max_frame_bytes, &header);
    if (!st.ok()) {
      // The body's length cannot be trusted (or is too large to read), so the
      // stream cannot be resynchronised: answer, then close.
      spdlog::warn("connection from {}: {}; closing it", peer_, st.message());
      Exchange& exchange = next_exchange();
      exchange.reset(header, {}, socket_.get_executor(), self, &Session::on_finished, this);
      exchange.finish(st);
      break;
    }
    std::byte* body = body_buffer(header.body_bytes);
    if (header.body_bytes > 0 && !co_await read_exactly(body, header.body_bytes)) break;
    Exchange& exchange = next_exchange();
    exchange.reset(header, std::span<const std::byte>(body, header.body_bytes),
                   socket_.get_executor(), self, &Session::on_finished, this);
    host_.dispatcher->dispatch(exchange);
  }
  reader_done_ = true;
  idle_timer_.cancel();
  writer_wake_.cancel();
}

asio::awaitable<void> Session::write_loop() {
  auto self = shared_from_this();
  bool broken = false;
  for (;;) {
    if (in_flight_ == 0) {
      if (reader_done_) break;
      co_await wait_on(writer_wake_);
      continue;
    }
    Exchange& exchange = *ring_[head_];
    if (!exchange.finished()) {
      co_await wait_on(writer_wake_);
      continue;
    }
    if (!broken) {
      std::span<const iovec> segments = exchange.frame_segments();
      write_buffers_.clear();
      for (const iovec& v : segments) write_buffers_.emplace_back(v.iov_base, v.iov_len);
      asio::error_code write_ec;
      if (segments.empty()) {
        write_ec = asio::error::no_buffer_space;  // an error frame could not be built
      } else {
        auto [ec, written] = co_await asio::async_write(socket_, write_buffers_, kAsTuple);
        write_ec = ec;
      }
      if (write_ec) {
        // Keep draining (every exchange must finish before the session may
        // end) but stop reading and writing.
        spdlog::debug("connection from {}: write failed: {}", peer_, write_ec.message());
        broken = true;
        stop();
        asio::error_code ignored;
        socket_.shutdown(asio::socket_base::shutdown_receive, ignored);
      }
    }
    exchange.recycle();
    head_ = (head_ + 1) % ring_.size();
    --in_flight_;
    reader_wake_.cancel();
  }
  asio::error_code ignored;
  socket_.shutdown(asio::socket_base::shutdown_both, ignored);
  socket_.close(ignored);
}

asio::awaitable<void> Session::idle_watch() {
  auto self = shared_from_this();
  const auto timeout = host_.idle_timeout;
  const auto period = std::max(timeout / 4, std::chrono::milliseconds(10));
  while (!reader_done_ && !stopping_) {
    idle_timer_.expires_after(period);
    co_await idle_timer_.async_wait(kAsTuple);
    if (reader_done_ || stopping_) break;
    // Waiting for our own responses (a long poll) is not idleness.
    if (in_flight_ == 0 && std::chrono::steady_clock::now() - last_read_ >= timeout) {
      spdlog::info("connection from {} idle for {} ms; closing it", peer_, timeout.count());
      stop();
    }
  }
}

}  // namespace spillway::broker
