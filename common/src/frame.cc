// Native frame header codec; the layout is specified in docs/protocol.md.
#include "spillway/common/frame.h"

#include <algorithm>
#include <cstring>

#include "spillway/common/endian.h"
#include "spillway/common/error_text.h"

namespace spillway::frame {

const char* api_name(int16_t api_key) noexcept {
  switch (static_cast<ApiKey>(api_key)) {
    case ApiKey::kApiVersions:
      return "ApiVersions";
    case ApiKey::kProduce:
      return "Produce";
    case ApiKey::kFetch:
      return "Fetch";
    case ApiKey::kMetadata:
      return "Metadata";
    case ApiKey::kCreateTopics:
      return "CreateTopics";
    case ApiKey::kDeleteTopics:
      return "DeleteTopics";
    case ApiKey::kListOffsets:
      return "ListOffsets";
    case ApiKey::kCommitOffsets:
      return "CommitOffsets";
    case ApiKey::kFetchOffsets:
      return "FetchOffsets";
  }
  return nullptr;
}

void encode_request_header(const RequestHeader& header,
                           std::span<std::byte, kRequestHeaderBytes> out) noexcept {
  store_be<uint32_t>(out.data(), kMinRequestLength + header.body_bytes);
  store_be<int16_t>(out.data() + 4, header.api_key);
  store_be<int16_t>(out.data() + 6, header.api_version);
  store_be<int32_t>(out.data() + 8, header.correlation_id);
}

Status decode_request_header(std::span<const std::byte, kRequestHeaderBytes> in,
                             uint32_t max_frame_bytes, RequestHeader* out) {
  const auto length = load_be<uint32_t>(in.data());
  out->api_key = load_be<int16_t>(in.data() + 4);
  out->api_version = load_be<int16_t>(in.data() + 6);
  out->correlation_id = load_be<int32_t>(in.data() + 8);
  out->body_bytes = 0;
  if (length < kMinRequestLength) {
    return Status(ErrorCode::kCorruptMessage, "frame length " + std::to_string(length) +
                                                  " is shorter than the request header (" +
                                                  std::to_string(kMinRequestLength) + ")");
  }
  if (length > max_frame_bytes) {
    return Status(ErrorCode::kFrameTooLarge, "frame length " + std::to_string(length) +
                                                 " exceeds max_frame_bytes " +
                                                 std::to_string(max_frame_bytes));
  }
  out->body_bytes = length - kMinRequestLength;
  return Status::Ok();
}

void encode_response_header(const ResponseHeader& header,
                            std::span<std::byte, kResponseHeaderBytes> out) noexcept {
  store_be<uint32_t>(out.data(), kMinResponseLength + header.body_bytes);
  store_be<int32_t>(out.data() + 4, header.correlation_id);
  store_be<int16_t>(out.data() + 8, static_cast<int16_t>(header.error_code));
}

Status decode_response_header(std::span<const std::byte, kResponseHeaderBytes> in,
                              uint32_t max_frame_bytes, ResponseHeader* out) {
  const auto length = load_be<uint32_t>(in.data());
  out->correlation_id = load_be<int32_t>(in.data() + 4);
  out->error_code = static_cast<ErrorCode>(load_be<int16_t>(in.data() + 8));
  out->body_bytes = 0;
  if (length < kMinResponseLength) {
    return Status(ErrorCode::kCorruptMessage, "response length " + std::to_string(length) +
                                                  " is shorter than the response header");
  }
  if (length > max_frame_bytes) {
    return Status(ErrorCode::kFrameTooLarge, "response length " + std::to_string(length) +
                                                 " exceeds the client's limit " +
                                                 std::to_string(max_frame_bytes));
  }
  out->body_bytes = length - kMinResponseLength;
  return Status::Ok();
}

size_t encode_error_response(int32_t correlation_id, ErrorCode code, std::string_view message,
                             std::span<std::byte, kMaxErrorFrameBytes> out) noexcept {
  static_assert(kMaxErrorTextBytes <= kMaxErrorMessageBytes);
  struct Cursor {
    std::byte* at;
  } cursor{out.data() + kResponseHeaderBytes + 2};
  const size_t message_bytes = write_error_text(
      message,
      [](void* ctx, std::string_view piece) {
        auto& c = *static_cast<Cursor*>(ctx);
        std::memcpy(c.at, piece.data(), piece.size());
        c.at += piece.size();
      },
      &cursor);
  ResponseHeader header{correlation_id, code, static_cast<uint32_t>(2 + message_bytes)};
  encode_response_header(header, out.first<kResponseHeaderBytes>());
  store_be<uint16_t>(out.data() + kResponseHeaderBytes, static_cast<uint16_t>(message_bytes));
  return kResponseHeaderBytes + 2 + message_bytes;
}

Status decode_error_body(ErrorCode code, std::span<const std::byte> body) {
  BodyReader reader(body);
  std::string_view message = reader.short_string();
  if (!reader.ok() || reader.remaining() != 0) {
    return Status(ErrorCode::kCorruptMessage,
                  std::string("malformed error body for code ") + error_code_name(code));
  }
  if (code == ErrorCode::kOk) {
    return Status(ErrorCode::kCorruptMessage, "error body with error code 0");
  }
  return Status(code, std::string(message));
}

const std::byte* BodyReader::take(size_t n) noexcept {
  if (!ok_ || rest_.size() < n) {
    fail();
    return nullptr;
  }
  const std::byte* p = rest_.data();
  rest_ = rest_.subspan(n);
  return p;
}

int16_t BodyReader::i16() noexcept {
  const std::byte* p = take(2);
  return p ? load_be<int16_t>(p) : 0;
}

int32_t BodyReader::i32() noexcept {
  const std::byte* p = take(4);
  return p ? load_be<int32_t>(p) : 0;
}

uint16_t BodyReader::u16() noexcept {
  const std::byte* p = take(2);
  return p ? load_be<uint16_t>(p) : 0;
}

std::string_view BodyReader::short_string() noexcept {
  const uint16_t n = u16();
  const std::byte* p = take(n);
  return p ? std::string_view(reinterpret_cast<const char*>(p), n) : std::string_view();
}

void BodyWriter::i16(int16_t v) {
  const size_t at = out_.size();
  out_.resize(at + 2);
  store_be<int16_t>(out_.data() + at, v);
}

void BodyWriter::i32(int32_t v) {
  const size_t at = out_.size();
  out_.resize(at + 4);
  store_be<int32_t>(out_.data() + at, v);
}

void BodyWriter::u16(uint16_t v) {
  const size_t at = out_.size();
  out_.resize(at + 2);
  store_be<uint16_t>(out_.data() + at, v);
}

void BodyWriter::short_string(std::string_view s) {
  const size_t n = std::min<size_t>(s.size(), UINT16_MAX);
  u16(static_cast<uint16_t>(n));
  const auto* bytes = reinterpret_cast<const std::byte*>(s.data());
  out_.insert(out_.end(), bytes, bytes + n);
}

}  // namespace spillway::frame
