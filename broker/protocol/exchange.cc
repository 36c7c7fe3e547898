// Exchange: framing of one response in a reusable, pooled buffer.
#include "exchange.h"

#include <cassert>

namespace spillway::broker {

namespace {
Exchange::FinishObserver g_observer = nullptr;
void* g_observer_ctx = nullptr;
}  // namespace

void Exchange::set_finish_observer(FinishObserver observer, void* ctx) noexcept {
  g_observer = observer;
  g_observer_ctx = ctx;
}

void Exchange::reset(const frame::RequestHeader& header, std::span<const std::byte> body,
                     asio::io_context& context, std::shared_ptr<void> keep_alive,
                     OnFinished on_finished, void* owner, ConnectionMemory* memory,
                     uint64_t charged, bool connection_was_empty) noexcept {
  out_.release();
  assert(charged_ == 0);  // recycle() gave back the previous request's bytes
  memory_ = memory;
  charged_ = memory != nullptr ? charged : 0;
  connection_was_empty_ = connection_was_empty;
  header_ = header;
  body_ = body;
  context_ = &context;
  keep_alive_ = std::move(keep_alive);
  on_finished_ = on_finished;
  owner_ = owner;
  ++generation_;
  finished_ = false;
  started_ = std::chrono::steady_clock::now();
  // Room for the response header, patched by finish(). The scratch always
  // has it, so this cannot fail.
  std::span<std::byte> room = out_.reserve(frame::kResponseHeaderBytes);
  assert(!room.empty());
  (void)room;
  out_.advance(frame::kResponseHeaderBytes);
}

void Exchange::finish(const Status& status) noexcept {
  assert(!finished_);
  finished_ = true;
  body_ = {};
  if (status.ok() && out_.bytes_written() - frame::kLengthBytes <= UINT32_MAX) {
    std::array<std::byte, frame::kResponseHeaderBytes> header;
    frame::ResponseHeader h{
        header_.correlation_id, ErrorCode::kOk,
        static_cast<uint32_t>(out_.bytes_written() - frame::kResponseHeaderBytes)};
    frame::encode_response_header(h, header);
    out_.overwrite(0, header);
  } else {
    out_.release();
    std::array<std::byte, frame::kMaxErrorFrameBytes> error;
    const ErrorCode code = status.ok() ? ErrorCode::kUnknown : status.code();
    const size_t n = frame::encode_error_response(
        header_.correlation_id, code, status.ok() ? "response too large" : status.message(), error);
    // The scratch (512 bytes) may be too small for a long message; a refused
    // spill leaves an empty frame, which the connection treats as fatal.
    (void)out_.write(std::span(error).first(n));
  }
  if (g_observer) {
    g_observer(g_observer_ctx, header_.api_key, std::chrono::steady_clock::now() - started_);
  }
  if (on_finished_) on_finished_(*this, owner_);
}

uint64_t Exchange::grant_response_bytes(uint64_t want) noexcept {
  if (memory_ == nullptr) return want;
  const uint64_t n = memory_->grant(want, connection_was_empty_);
  charged_ += n;
  return n;
}

void Exchange::settle_response_bytes(uint64_t granted, uint64_t used) noexcept {
  if (memory_ == nullptr) return;
  if (used > granted) {
    memory_->force(used - granted);
    charged_ += used - granted;
  } else if (used < granted) {
    memory_->release(granted - used);
    charged_ -= granted - used;
  }
}

void Exchange::recycle() noexcept {
  out_.release();
  if (memory_ != nullptr && charged_ > 0) memory_->release(charged_);
  charged_ = 0;
  keep_alive_.reset();
}

}  // namespace spillway::broker
