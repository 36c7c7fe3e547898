// One client connection: reader, writer and the ring of in-flight exchanges,
// as callback-driven state machines on the session's thread.
#include "session.h"

#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include <asio/post.hpp>
#include <asio/read.hpp>
#include <asio/write.hpp>
#include <cstring>

#include "spillway/common/buffer_pool.h"

namespace spillway::broker {

namespace {
constexpr size_t kMaxBuffersPerWrite = 64;
// How long a closing connection waits for the client to close its side
// (see close_gracefully()), and the reads that discard its input meanwhile.
constexpr std::chrono::milliseconds kLingerTime{500};
constexpr size_t kDrainBytes = 4096;
// Requests in a row that must name partitions of one other core before the
// connection moves there; doubled by each move, so a client whose partitions
// alternate between cores settles instead of moving back and forth.
constexpr unsigned kMoveAfterRequests = 8;
constexpr unsigned kMaxMoveDoublings = 12;
}  // namespace

Session::Session(asio::ip::tcp::socket socket, asio::ip::address address, SessionHost& host,
                 const SessionListener& listener)
    : stream_(std::move(socket)),
      host_(host),
      listener_(listener),
      dispatcher_(*listener.dispatcher),
      address_(std::move(address)),
      memory_(*host.memory, host.connection_memory_bytes),
      idle_timer_(stream_.get_executor()) {
  asio::error_code ec;
  auto endpoint = stream_.socket().remote_endpoint(ec);
  peer_ = ec ? std::string("?")
             : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  stream_.socket().set_option(asio::ip::tcp::no_delay(true), ec);
  security_.protocol = listener.security;
  security_.listener = listener.index;
  security_.host = address_.to_string();
  // A SASL listener serves nothing but ApiVersions and SASL until the client
  // has authenticated.
  security_.authenticated = !security::uses_sasl(listener.security);
  ring_.resize(host_.queue_depth > 0 ? host_.queue_depth : 1);
  host_.sessions.insert(this);
  host_.session_count.fetch_add(1, std::memory_order_relaxed);
}

Session::~Session() {
  free_body();
  release_inbox();
  host_.sessions.erase(this);
  host_.session_count.fetch_sub(1, std::memory_order_relaxed);
  if (!evicted_ && !moved_) host_.limits->release(address_);
  if (moved_) {
    spdlog::debug("connection from {} moved to another core", peer_);
  } else {
    spdlog::debug("connection from {} closed", peer_);
  }
  if (host_.sessions.empty() && host_.on_drained) std::exchange(host_.on_drained, nullptr)();
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
  if (security::uses_tls(listener_.security) && listener_.tls != nullptr) {
    stream_.use_tls(listener_.tls->current());
    start_handshake(listener_.handshake_timeout);
    return;
  }
  read_header();
  if (host_.idle_timeout.count() > 0) watch_idle();
}

void Session::start_moved(MovedConnection moved) {
  security_.principal = std::move(moved.principal);
  security_.authenticated = moved.authenticated;
  moves_ = moved.moves;
  last_read_ = moved.last_read;
  if (!moved.received.empty()) {
    if (!rent_inbox()) {
      reader_done();
      return;
    }
    // At most one inbox's worth: the old session's inbox held it.
    std::memcpy(inbox_, moved.received.data(), moved.received.size());
    inbox_end_ = moved.received.size();
  }
  read_header();
  if (host_.idle_timeout.count() > 0) watch_idle();
}

void Session::note_partition_owner(const Exchange& exchange) {
  asio::io_context* owner = exchange.partition_owner();
  if (exchange.mixed_partition_owners() || owner == host_.context) {
    affinity_ = nullptr;
    affinity_streak_ = 0;
    return;
  }
  if (owner == nullptr) return;  // no partition named (Metadata, heartbeats): no vote
  if (owner != affinity_) {
    affinity_ = owner;
    affinity_streak_ = 0;
  }
  ++affinity_streak_;
  if (affinity_streak_ < (kMoveAfterRequests << std::min(moves_, kMaxMoveDoublings)) ||
      !can_move()) {
    return;
  }
  // Many connections to one busy partition keep their reading, parsing and
  // checking spread over the cores: a connection moves only to a core with
  // no more connections than its own (itself included), and otherwise
  // counts again.
  SessionHost* target = nullptr;
  if (host_.peers != nullptr) {
    for (const auto& peer : *host_.peers) {
      if (peer->context == owner) target = peer.get();
    }
  }
  if (target == nullptr || target->session_count.load(std::memory_order_relaxed) >
                               host_.session_count.load(std::memory_order_relaxed)) {
    affinity_streak_ = 0;
    return;
  }
  move_to_ = target;
}

bool Session::can_move() const {
  // TLS state cannot change threads with the socket; a SASL exchange in
  // progress is not carried over.
  return host_.move_session && !stream_.tls() && !security::uses_tls(listener_.security) &&
         security_.sasl == nullptr && !stopping_ && !evicted_ && read_ != ReadState::kDone &&
         write_ == WriteState::kIdle;
}

bool Session::move_when_quiet() {
  if (move_to_ == nullptr || in_flight_ != 0 || !can_move()) return false;
  move_now();
  return true;
}

void Session::move_now() {
  SessionHost& target = *std::exchange(move_to_, nullptr);
  affinity_ = nullptr;
  affinity_streak_ = 0;
  MovedConnection moved{.fd = -1,
                        .address = address_,
                        .listener = &listener_,
                        .principal = security_.principal,
                        .authenticated = security_.authenticated,
                        .received = {},
                        .last_read = last_read_,
                        .moves = moves_ + 1};
  if (inbox_ != nullptr) moved.received.assign(inbox_ + inbox_begin_, inbox_ + inbox_end_);
  asio::error_code ec;
  // Pending operations were cancelled (or completed) before this: release()
  // only takes the descriptor out of this core's reactor.
  moved.fd = stream_.socket().release(ec);
  if (ec) {
    spdlog::debug("connection from {}: not moved: {}", peer_, ec.message());
    read_header();
    return;
  }
  moved_ = true;  // its place in host.limits goes with it
  set_read_state(ReadState::kDone);
  write_ = WriteState::kClosed;
  idle_timer_.cancel();
  release_inbox();
  free_body();
  host_.move_session(target, std::move(moved));
}

void Session::start_handshake(std::chrono::milliseconds timeout) {
  handshaking_ = true;
  // A client that stalls (or trickles) its handshake is cut at the
  // deadline; the handshake then fails with operation_aborted.
  idle_timer_.expires_after(timeout);
  idle_timer_.async_wait([self = shared_from_this(), timeout](const asio::error_code& ec) {
    if (ec || !self->handshaking_) return;
    if (uint64_t held_back = 0; self->host_.tls_handshake_log.allow(&held_back)) {
      spdlog::warn(
          "connection from {}: TLS handshake not finished within {} ms; closing it ({} more "
          "failed handshake(s) not logged)",
          self->peer_, timeout.count(), held_back);
    }
    self->close_socket();
  });
  stream_.tls_stream().async_handshake(
      asio::ssl::stream_base::server,
      [self = shared_from_this()](const asio::error_code& ec) { self->on_handshake(ec); });
}

void Session::on_handshake(const asio::error_code& ec) {
  handshaking_ = false;
  idle_timer_.cancel();
  if (ec || stopping_ || write_ == WriteState::kClosed) {
    if (ec && write_ != WriteState::kClosed) {
      // Scanners and misconfigured clients can do this in a loop: rate-limited.
      if (uint64_t held_back = 0; host_.tls_handshake_log.allow(&held_back)) {
        // The client certificate's own fault (expired, unknown CA), if any.
        const long verify = SSL_get_verify_result(stream_.tls_stream().native_handle());
        spdlog::warn(
            "connection from {}: TLS handshake failed: {}{}{}; closing it ({} more failed "
            "handshake(s) not logged)",
            peer_, ec.message(), verify != X509_V_OK ? ": client certificate: " : "",
            verify != X509_V_OK ? X509_verify_cert_error_string(verify) : "", held_back);
      }
    }
    set_read_state(ReadState::kDone);
    close_socket();
    return;
  }
  tls_up_ = true;
  // On an SSL listener a verified client certificate names the principal;
  // on SASL_SSL SASL does, later.
  if (listener_.security == security::SecurityProtocol::kSsl) {
    std::string subject = security::verified_peer_subject(stream_.tls_stream().native_handle());
    if (!subject.empty()) {
      security_.principal = "User:" + (listener_.principal_mapper != nullptr
                                           ? listener_.principal_mapper->map(subject)
                                           : subject);
      spdlog::info("connection from {}: TLS client certificate \"{}\", principal {}", peer_,
                   subject, security_.principal);
    }
  }
  last_read_ = std::chrono::steady_clock::now();
  read_header();
  if (host_.idle_timeout.count() > 0) watch_idle();
}

void Session::stop() {
  if (stopping_) return;
  stopping_ = true;
  if (handshaking_) {
    // Nothing was read yet: end the handshake, which ends the session.
    close_socket();
    return;
  }
  // Only the pending header/body read is cancelled; exchanges in flight are
  // still answered.
  stop_reading_.emit(asio::cancellation_type::terminal);
  idle_timer_.cancel();
  if (!reading()) reader_done();
}

void Session::abandon() {
  write_ = WriteState::kClosed;  // nothing is written any more
  set_read_state(ReadState::kDone);
  for (auto& exchange : ring_) {
    if (exchange) exchange->recycle();
  }
}

bool Session::evictable() const {
  return in_flight_ == 0 && (read_ == ReadState::kHeader || read_ == ReadState::kBetween) &&
         !stopping_;
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
  if (!slot) {
    slot = std::make_unique<Exchange>();
    // Fetch data goes out by sendfile where no user-space encryption is in
    // the way (the stream is settled before the first request).
    if (!stream_.tls()) {
      SendfileWriter::ignore_sigpipe();
      // SendfileWriter writes to the descriptor itself and relies on
      // EAGAIN, so the socket must not block (Asio's own operations set this
      // internally only once they first run).
      asio::error_code ec;
      stream_.socket().non_blocking(true, ec);
      if (!ec) slot->set_sends_file_ranges(true);
    }
  }
  ++in_flight_;
  return *slot;
}

void Session::on_finished(Exchange& exchange, void* owner) {
  auto* self = static_cast<Session*>(owner);
  self->note_partition_owner(exchange);
  self->kick_writer();
  if (self->read_ == ReadState::kWaitEarlier && self->earlier_finished()) {
    // Not from inside finish(): the waiting request's handler may finish
    // its own exchange at once.
    asio::post(self->host_.context->get_executor(),
               [keep = self->shared_from_this()] { keep->resume_after_earlier(); });
  }
}

void Session::set_read_state(ReadState next) {
  if (next == read_) return;
  // The gauges of paused connections (metrics) count the waits.
  switch (read_) {
    case ReadState::kRingFull:
      host_.paused_at_max_in_flight->fetch_sub(1, std::memory_order_relaxed);
      break;
    case ReadState::kOverShare:
      memory_.global().remove_over_share();
      break;
    case ReadState::kWaitBudget:
      // A stale entry left in host.memory_waiters is skipped by retry_memory().
      memory_.global().remove_waiter();
      break;
    default:
      break;
  }
  switch (next) {
    case ReadState::kRingFull:
      host_.paused_at_max_in_flight->fetch_add(1, std::memory_order_relaxed);
      break;
    case ReadState::kOverShare:
      memory_.global().add_over_share();
      break;
    case ReadState::kWaitBudget:
      memory_.global().add_waiter();
      host_.memory_waiters.push_back(shared_from_this());
      break;
    default:
      break;
  }
  read_ = next;
}

void Session::read_header() {
  // Called again from inside the loop (a frame dispatched, the next one
  // wanted): the loop takes it, so a full inbox never deepens the stack.
  if (in_read_loop_) {
    read_again_ = true;
    return;
  }
  in_read_loop_ = true;
  do {
    read_again_ = false;
    next_frame();
  } while (read_again_);
  in_read_loop_ = false;
}

void Session::next_frame() {
  if (read_ == ReadState::kDone) return;
  if (stopping_) {
    reader_done();
    return;
  }
  // The in-flight bound: with every exchange taken, read nothing more until
  // the writer has sent the oldest response.
  if (in_flight_ == ring_.size()) {
    set_read_state(ReadState::kRingFull);
    return;
  }
  if (inbox_bytes() >= header_bytes_.size()) {
    std::memcpy(header_bytes_.data(), inbox_ + inbox_begin_, header_bytes_.size());
    inbox_begin_ += header_bytes_.size();
    on_header();
    return;
  }
  // Nothing in flight and no read pending: the moment to move, if asked.
  if (move_when_quiet()) return;
  set_read_state(ReadState::kHeader);
  fill_inbox();
}

bool Session::rent_inbox() {
  std::span<std::byte> rented = BufferPool::global().rent(kInboxBytes);
  if (rented.empty()) {
    spdlog::error("connection from {}: no memory for its read buffer; closing it", peer_);
    return false;
  }
  inbox_ = rented.data();
  inbox_begin_ = inbox_end_ = 0;
  return true;
}

void Session::fill_inbox() {
  if (inbox_ == nullptr) {
    if (!rent_inbox()) {
      set_read_state(ReadState::kBetween);
      reader_done();
      return;
    }
  } else if (inbox_begin_ > 0) {
    // The part of a frame received so far moves to the front (a few bytes:
    // a header, or a body that fits the inbox).
    std::memmove(inbox_, inbox_ + inbox_begin_, inbox_bytes());
    inbox_end_ -= inbox_begin_;
    inbox_begin_ = 0;
  }
  stream_.async_read_some(
      asio::buffer(inbox_ + inbox_end_, kInboxBytes - inbox_end_),
      bind_memory(
          read_memory_,
          [self = shared_from_this()](const asio::error_code& ec, size_t n) {
            self->on_inbox(ec, n);
          },
          stop_reading_.slot()));
}

void Session::on_inbox(const asio::error_code& ec, size_t n) {
  const bool body = read_ == ReadState::kBody;
  if (move_to_ != nullptr && !stopping_ && !body &&
      (!ec || ec == asio::error::operation_aborted)) {
    // The header read was cancelled for a move (on_written()), or it
    // completed first: what it received goes along.
    if (!ec) {
      inbox_end_ += n;
      last_read_ = std::chrono::steady_clock::now();
    }
    set_read_state(ReadState::kBetween);
    // Not quiet after all (a request arrived before the last answer was
    // written): serve it here and move at the next quiet moment.
    if (!move_when_quiet()) read_header();
    return;
  }
  if (ec) {
    set_read_state(ReadState::kBetween);
    if (body) memory_.release(std::exchange(body_charge_, 0));
    if (ec != asio::error::eof && ec != asio::error::operation_aborted) {
      spdlog::debug("connection from {}: read failed: {}", peer_, ec.message());
    }
    reader_done();
    return;
  }
  inbox_end_ += n;
  last_read_ = std::chrono::steady_clock::now();
  set_read_state(ReadState::kBetween);
  if (body) {
    read_body();
  } else {
    read_header();
  }
}

void Session::release_inbox() {
  if (inbox_ != nullptr) BufferPool::global().give_back(inbox_);
  inbox_ = nullptr;
  inbox_begin_ = inbox_end_ = 0;
}

void Session::on_header() {
  set_read_state(ReadState::kBetween);
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
    exchange.reset({.header = header_,
                    .context = host_.context,
                    .keep_alive = shared_from_this(),
                    .on_finished = &Session::on_finished,
                    .owner = this,
                    .framing = dispatcher_.framing(header_),
                    .peer = peer_,
                    .security = &security_});
    set_read_state(ReadState::kDone);  // before finish(): the writer closes after this answer
    exchange.finish(st);
    return;
  }
  if (in_flight_ > 0 && dispatcher_.waits_for_earlier(header_) && !earlier_finished()) {
    set_read_state(ReadState::kWaitEarlier);
    return;  // resumed when the last of them finishes (on_finished)
  }
  if (!take_body_memory()) return;  // resumed by retry_memory() or on_written()
  read_body();
}

bool Session::earlier_finished() const {
  for (size_t i = 0; i < in_flight_; ++i) {
    if (!ring_[(head_ + i) % ring_.size()]->finished()) return false;
  }
  return true;
}

void Session::resume_after_earlier() {
  if (read_ != ReadState::kWaitEarlier || !earlier_finished()) return;
  set_read_state(ReadState::kBetween);
  if (stopping_) {
    reader_done();
    return;
  }
  if (!take_body_memory()) return;
  read_body();
}

bool Session::take_body_memory() {
  const uint64_t n = header_.body_bytes;
  if (!memory_.fits_share(n)) {
    // Over this connection's share: only its own writes free it.
    set_read_state(ReadState::kOverShare);
    return false;
  }
  if (memory_.admit(n, &body_admitted_empty_)) {
    body_charge_ = n;
    set_read_state(ReadState::kBetween);
    return true;
  }
  set_read_state(ReadState::kWaitBudget);
  memory_.global().arm(host_.core);
  // Memory given back before the arm above woke nobody: look once more.
  if (memory_.admit(n, &body_admitted_empty_)) {
    body_charge_ = n;
    set_read_state(ReadState::kBetween);
    return true;
  }
  return false;
}

void Session::retry_memory() {
  if (read_ != ReadState::kWaitBudget) return;  // a stale entry, or already resumed
  if (stopping_) {
    reader_done();
    return;
  }
  // take_body_memory() puts this session back on the list if it must wait.
  set_read_state(ReadState::kBetween);
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
  const size_t n = header_.body_bytes;
  if (inbox_bytes() >= n) {
    body_in_inbox_ = true;
    on_body(asio::error_code());
    return;
  }
  set_read_state(ReadState::kBody);
  if (n <= kInboxBytes) {
    fill_inbox();  // on_inbox() comes back here
    return;
  }
  // Larger than the inbox: what arrived with the header is copied, the rest
  // is read straight into the body's own buffer.
  std::byte* body = body_buffer(n);
  const size_t have = inbox_bytes();
  std::memcpy(body, inbox_ + inbox_begin_, have);
  inbox_begin_ = inbox_end_ = 0;
  asio::async_read(
      stream_, asio::buffer(body + have, n - have),
      bind_memory(
          read_memory_,
          [self = shared_from_this()](const asio::error_code& ec, size_t) {
            if (!ec) self->last_read_ = std::chrono::steady_clock::now();
            self->on_body(ec);
          },
          stop_reading_.slot()));
}

void Session::on_body(const asio::error_code& ec) {
  set_read_state(ReadState::kBetween);
  const uint64_t charge = std::exchange(body_charge_, 0);
  if (ec) {
    memory_.release(charge);
    free_body();
    reader_done();
    return;
  }
  const bool in_inbox = std::exchange(body_in_inbox_, false);
  const std::byte* body = header_.body_bytes == 0 ? nullptr
                          : in_inbox              ? inbox_ + inbox_begin_
                                                  : body_;
  Exchange& exchange = next_exchange();
  exchange.reset({.header = header_,
                  .body = std::span<const std::byte>(body, header_.body_bytes),
                  .pooled_body = in_inbox || body_heap_ ? nullptr : body_,
                  .context = host_.context,
                  .keep_alive = shared_from_this(),
                  .on_finished = &Session::on_finished,
                  .owner = this,
                  .memory = &memory_,
                  .charged = charge,
                  .connection_was_empty = body_admitted_empty_,
                  .framing = dispatcher_.framing(header_),
                  .peer = peer_,
                  .security = &security_});
  dispatcher_.dispatch(exchange);
  // Handlers copy what they keep, or adopt the body's own buffer.
  if (in_inbox) {
    inbox_begin_ += header_.body_bytes;
  } else if (exchange.body_adopted()) {
    body_ = nullptr;
  } else {
    free_body();
  }
  if (exchange.closes_after_response()) {
    // Read nothing more: the writer closes after this response.
    reader_done();
    return;
  }
  read_header();
}

void Session::reader_done() {
  if (read_ == ReadState::kDone) return;
  set_read_state(ReadState::kDone);
  release_inbox();
  idle_timer_.cancel();
  kick_writer();
}

void Session::kick_writer() {
  if (write_ != WriteState::kIdle && write_ != WriteState::kBroken) return;
  for (;;) {
    if (in_flight_ == 0) {
      head_ = 0;  // a client that waits for each answer keeps reusing one exchange
      if (read_ == ReadState::kDone) close_gracefully();
      return;
    }
    Exchange& head = *ring_[head_];
    if (!head.finished()) return;
    if (write_ != WriteState::kBroken) break;
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
  bool files = false;  // some response holds file ranges
  while (exchanges < in_flight_) {
    Exchange& e = *ring_[(head_ + exchanges) % ring_.size()];
    if (!e.finished()) break;
    std::span<const iovec> segments = e.frame_segments();
    files = files || !e.file_ranges().empty();
    if (e.without_response()) {
      // Nothing to write for it (Kafka acks=0); it is recycled with the
      // ones written around it (an empty write completes at once).
      ++exchanges;
      continue;
    }
    if (segments.empty()) {
      if (exchanges == 0) {
        // An error frame could not be built: nothing sane to send.
        write_ = WriteState::kBroken;
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
  write_ = WriteState::kWriting;
  if (files) {
    send_with_files(exchanges);
    return;
  }
  // A span, not the vector: the write operation copies its buffer sequence.
  asio::async_write(stream_, std::span<const asio::const_buffer>(write_buffers_),
                    bind_memory(write_memory_, [self = shared_from_this(), exchanges](
                                                   const asio::error_code& ec, size_t) {
                      self->on_written(ec, exchanges);
                    }));
}

void Session::send_with_files(size_t exchanges) {
  sendfile_writer_.clear();
  for (size_t i = 0; i < exchanges; ++i) {
    Exchange& e = *ring_[(head_ + i) % ring_.size()];
    if (!e.without_response()) sendfile_writer_.add(e.frame_segments(), e.file_ranges());
  }
  continue_with_files(exchanges);
}

void Session::continue_with_files(size_t exchanges) {
  const int socket = stream_.socket().native_handle();
  switch (sendfile_writer_.write(socket)) {
    case SendfileWriter::Outcome::kDone:
      // Completed as asio's writes do, never inside the call that started
      // it: on_written() may start the next write.
      asio::post(stream_.get_executor(),
                 bind_memory(write_memory_, [self = shared_from_this(), exchanges] {
                   self->on_written(asio::error_code(), exchanges);
                 }));
      return;
    case SendfileWriter::Outcome::kWouldBlock:
      stream_.socket().async_wait(
          asio::socket_base::wait_write,
          bind_memory(write_memory_,
                      [self = shared_from_this(), exchanges](const asio::error_code& ec) {
                        if (ec) {
                          self->on_written(ec, exchanges);
                        } else {
                          self->continue_with_files(exchanges);
                        }
                      }));
      return;
    case SendfileWriter::Outcome::kFailed:
      on_written(asio::error_code(sendfile_writer_.error(), asio::error::get_system_category()),
                 exchanges);
      return;
    case SendfileWriter::Outcome::kFileCutShort:
      // The frame's length is on the wire and its bytes are gone: only
      // closing the connection keeps the client from reading wrong bytes.
      SendfileCounters::global().cut_short.fetch_add(1, std::memory_order_relaxed);
      spdlog::warn(
          "connection from {}: a segment file ended inside a fetch response being sent (the "
          "log was truncated meanwhile); closing the connection",
          peer_);
      on_written(asio::error::make_error_code(asio::error::connection_aborted), exchanges);
      return;
  }
}

void Session::on_written(const asio::error_code& ec, size_t exchanges) {
  write_ = WriteState::kIdle;
  if (ec) {
    spdlog::debug("connection from {}: write failed: {}", peer_, ec.message());
    write_ = WriteState::kBroken;
    stop();
    asio::error_code ignored;
    stream_.socket().shutdown(asio::socket_base::shutdown_receive, ignored);
  }
  for (size_t i = 0; i < exchanges; ++i) {
    ring_[head_]->recycle();
    head_ = (head_ + 1) % ring_.size();
    --in_flight_;
  }
  if (read_ == ReadState::kRingFull) {
    set_read_state(ReadState::kBetween);
    read_header();
  } else if (read_ == ReadState::kOverShare && take_body_memory()) {
    read_body();
  }
  kick_writer();
  if (move_to_ != nullptr && in_flight_ == 0 && read_ == ReadState::kHeader &&
      write_ == WriteState::kIdle) {
    // Nothing in flight: stop waiting for the next header (on_inbox() then
    // moves the connection, with whatever that read received).
    stop_reading_.emit(asio::cancellation_type::terminal);
  }
}

void Session::close_gracefully() {
  if (write_ == WriteState::kClosed) return;
  asio::error_code ignored;
  idle_timer_.cancel();
  if (write_ == WriteState::kBroken || (stream_.tls() && !tls_up_)) {
    close_socket();
    return;
  }
  write_ = WriteState::kLingering;
  idle_timer_.expires_after(kLingerTime);
  // Plain handlers from here on: a closing connection may allocate.
  idle_timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
    if (!ec) self->close_socket();  // completes the pending drain read or TLS shutdown
  });
  if (stream_.tls()) {
    // close_notify, then wait (at most kLingerTime) for the client's: the
    // TLS form of FIN-then-drain below. A client that never answers does
    // not hold the shutdown up.
    stream_.tls_stream().async_shutdown(
        [self = shared_from_this()](const asio::error_code&) { self->close_socket(); });
    return;
  }
  stream_.socket().shutdown(asio::socket_base::shutdown_send, ignored);
  drain_input();
}

void Session::close_socket() {
  if (write_ == WriteState::kClosed) return;
  write_ = WriteState::kClosed;
  asio::error_code ignored;
  stream_.socket().close(ignored);
  idle_timer_.cancel();
}

void Session::drain_input() {
  // No read is pending once the reader is done, so the body buffer is free.
  if (body_ == nullptr) body_buffer(kDrainBytes);
  stream_.socket().async_read_some(asio::buffer(body_, kDrainBytes),
                                   [self = shared_from_this()](const asio::error_code& ec, size_t) {
                                     if (!ec && self->write_ == WriteState::kLingering) {
                                       self->drain_input();
                                       return;
                                     }
                                     self->close_socket();
                                   });
}

void Session::watch_idle() {
  const auto timeout = host_.idle_timeout;
  const auto period = std::max(timeout / 4, std::chrono::milliseconds(10));
  idle_timer_.expires_after(period);
  idle_timer_.async_wait(bind_memory(idle_memory_, [self = shared_from_this(),
                                                    timeout](const asio::error_code& ec) {
    if (ec || self->read_ == ReadState::kDone || self->stopping_) return;
    // Waiting for our own responses (a long poll) or for memory is not
    // idleness; a client stalled in the middle of a frame is.
    const bool waiting_for_us = self->in_flight_ > 0 || self->read_ == ReadState::kOverShare ||
                                self->read_ == ReadState::kWaitBudget;
    if (!waiting_for_us && std::chrono::steady_clock::now() - self->last_read_ >= timeout) {
      spdlog::info("connection from {} idle for {} ms; closing it", self->peer_, timeout.count());
      self->stop();
      return;
    }
    self->watch_idle();
  }));
}

}  // namespace spillway::broker
