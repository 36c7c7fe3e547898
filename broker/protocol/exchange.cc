// Exchange: framing of one response in a reusable, pooled buffer.
#include "exchange.h"

#include <cassert>

#include "spillway/common/endian.h"

namespace spillway::broker {

namespace {
Exchange::FinishObserver g_observer = nullptr;
void* g_observer_ctx = nullptr;
}  // namespace

void Exchange::set_finish_observer(FinishObserver observer, void* ctx) noexcept {
  g_observer = observer;
  g_observer_ctx = ctx;
}

namespace {

size_t header_bytes(Exchange::Framing framing) {
  switch (framing) {
    case Exchange::Framing::kNative:
      return frame::kResponseHeaderBytes;
    case Exchange::Framing::kKafkaV0:
      return 8;  // length, correlation id
    case Exchange::Framing::kKafkaV1:
      return 9;  // and an empty tag buffer
  }
  return frame::kResponseHeaderBytes;
}

}  // namespace

void Exchange::reset(Start start) noexcept {
  out_.release();
  drop_file_ranges();
  assert(charged_ == 0);  // recycle() gave back the previous request's bytes
  memory_ = start.memory;
  charged_ = start.memory != nullptr ? start.charged : 0;
  connection_was_empty_ = start.connection_was_empty;
  framing_ = start.framing;
  header_ = start.header;
  body_ = start.body;
  pooled_body_ = start.pooled_body;
  body_adopted_ = false;
  client_id_ = {};
  peer_ = start.peer;
  security_ = start.security;
  context_ = start.context;
  keep_alive_ = std::move(start.keep_alive);
  on_finished_ = start.on_finished;
  owner_ = start.owner;
  ++generation_;
  finished_ = false;
  without_response_ = false;
  close_after_response_ = false;
  partition_owner_ = nullptr;
  mixed_owners_ = false;
  started_ = std::chrono::steady_clock::now();
  // Room for the response header, patched by finish(). The scratch always
  // has it, so this cannot fail.
  const size_t room_bytes = header_bytes(framing_);
  std::span<std::byte> room = out_.reserve(room_bytes);
  assert(!room.empty());
  (void)room;
  out_.advance(room_bytes);
}

void Exchange::finish(const Status& status) noexcept {
  assert(!finished_);
  finished_ = true;
  body_ = {};
  // The file ranges are part of the frame, sent between out()'s bytes.
  const uint64_t frame_bytes = out_.bytes_written() + file_bytes_;
  const bool fits = frame_bytes - frame::kLengthBytes <= INT32_MAX;
  if (!status.ok() || !fits) drop_file_ranges();
  if (framing_ != Framing::kNative) {
    if (status.ok() && fits) {
      std::array<std::byte, 9> header{};  // the tag buffer, if any, is empty: 0
      store_be<uint32_t>(header.data(), static_cast<uint32_t>(frame_bytes - 4));
      store_be<int32_t>(header.data() + 4, header_.correlation_id);
      out_.overwrite(0, std::span(header).first(header_bytes(framing_)));
    } else {
      out_.release();  // an empty frame: the connection closes after the ones before
    }
  } else if (status.ok() && fits) {
    std::array<std::byte, frame::kResponseHeaderBytes> header;
    frame::ResponseHeader h{header_.correlation_id, ErrorCode::kOk,
                            static_cast<uint32_t>(frame_bytes - frame::kResponseHeaderBytes)};
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
  notify_finished();
}

void Exchange::notify_finished() noexcept {
  if (g_observer) {
    g_observer(g_observer_ctx, framing_ != Framing::kNative, header_.api_key,
               std::chrono::steady_clock::now() - started_);
  }
  if (on_finished_) on_finished_(*this, owner_);
}

void Exchange::finish_without_response() noexcept {
  assert(!finished_);
  finished_ = true;
  without_response_ = true;
  body_ = {};
  out_.release();
  drop_file_ranges();
  notify_finished();
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

bool Exchange::add_file_range(int fd, uint64_t position, uint64_t length,
                              std::shared_ptr<const void> hold) noexcept {
  if (!sends_file_ranges_ || file_ranges_.size() >= kMaxFileRanges) return false;
  // Once per exchange; the vector never grows past it.
  if (file_ranges_.capacity() < kMaxFileRanges) file_ranges_.reserve(kMaxFileRanges);
  file_ranges_.push_back({.at = out_.bytes_written(),
                          .fd = fd,
                          .position = position,
                          .length = length,
                          .hold = std::move(hold)});
  file_bytes_ += length;
  return true;
}

void Exchange::drop_file_ranges() noexcept {
  file_ranges_.clear();  // lets go of the descriptors
  file_bytes_ = 0;
}

void Exchange::recycle() noexcept {
  out_.release();
  drop_file_ranges();
  if (memory_ != nullptr && charged_ > 0) memory_->release(charged_);
  charged_ = 0;
  keep_alive_.reset();
}

}  // namespace spillway::broker
