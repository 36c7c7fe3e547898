// One client connection: reader, writer and the bounded queue between them.
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
    : socket_(std::move(socket)), host_(host), queue_(socket_.get_executor(), host.queue_depth) {
  asio::error_code ec;
  auto endpoint = socket_.remote_endpoint(ec);
  peer_ = ec ? std::string("?")
             : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  host_.sessions.insert(this);
}

Session::~Session() {
  host_.sessions.erase(this);
  host_.open_connections->fetch_sub(1, std::memory_order_relaxed);
  spdlog::debug("connection from {} closed", peer_);
}

void Session::start() {
  spdlog::debug("connection from {}", peer_);
  asio::co_spawn(socket_.get_executor(), read_loop(), asio::detached);
  asio::co_spawn(socket_.get_executor(), write_loop(), asio::detached);
}

void Session::stop() {
  if (stopping_) return;
  stopping_ = true;
  // Only the pending header/body read is cancelled; queued responses are
  // still written. A reader blocked on a full queue sees stopping_ next.
  stop_reading_.emit(asio::cancellation_type::terminal);
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
  co_return !ec;
}

asio::awaitable<void> Session::read_loop() {
  auto self = shared_from_this();
  std::array<std::byte, frame::kRequestHeaderBytes> header_bytes;
  Frame response;
  while (co_await read_exactly(header_bytes.data(), header_bytes.size())) {
    frame::RequestHeader header;
    Status st = frame::decode_request_header(header_bytes, host_.max_frame_bytes, &header);
    if (!st.ok()) {
      // The body's length cannot be trusted (or is too large to read), so the
      // stream cannot be resynchronised: answer, then close.
      spdlog::warn("connection from {}: {}; closing it", peer_, st.message());
      encode_error_frame(header.correlation_id, st, response);
      co_await queue_.async_send(asio::error_code(), std::move(response), kAsTuple);
      break;
    }
    std::byte* body = body_buffer(header.body_bytes);
    if (header.body_bytes > 0 && !co_await read_exactly(body, header.body_bytes)) break;
    response = Frame();
    host_.dispatcher->dispatch(header, std::span(body, header.body_bytes), response);
    auto [ec] = co_await queue_.async_send(asio::error_code(), std::move(response), kAsTuple);
    if (ec) break;
  }
  // End of stream for the writer: it writes what is queued, then closes.
  co_await queue_.async_send(asio::error_code(), Frame(), kAsTuple);
}

asio::awaitable<void> Session::write_loop() {
  auto self = shared_from_this();
  bool broken = false;
  for (;;) {
    auto [ec, frame] = co_await queue_.async_receive(kAsTuple);
    if (ec || frame.empty()) break;
    if (broken) continue;  // keep draining so the reader never blocks forever
    auto [write_ec, written] = co_await asio::async_write(socket_, asio::buffer(frame), kAsTuple);
    if (write_ec) {
      spdlog::debug("connection from {}: write failed: {}", peer_, write_ec.message());
      broken = true;
      stop();
      asio::error_code ignored;
      socket_.shutdown(asio::socket_base::shutdown_receive, ignored);
    }
  }
  asio::error_code ignored;
  socket_.shutdown(asio::socket_base::shutdown_both, ignored);
  socket_.close(ignored);
}

}  // namespace spillway::broker
