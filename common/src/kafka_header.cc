// Kafka request and response headers (kafka/header.h).
#include <string>

#include "spillway/common/endian.h"
#include "spillway/common/kafka/header.h"

namespace spillway::kafka {
namespace {

// A struct without fields: in a flexible context, just a tag buffer.
struct TagBuffer {
  static constexpr auto fields() { return std::tuple<>{}; }
};

Status malformed(std::string_view what, int16_t version, const wire::WireReader& r) {
  std::string message = "malformed " + std::string(what) + " v" + std::to_string(version);
  if (!r.blamed().empty()) message += " (field " + std::string(r.blamed()) + ")";
  return Status(ErrorCode::kCorruptMessage, std::move(message));
}

}  // namespace

Result<RequestFrame> decode_request_header(std::span<const std::byte> frame) {
  RequestFrame out;
  // Every header version starts with the api key and version, which pick
  // the version of the rest.
  if (frame.size() >= 4) {
    out.header_version =
        request_header_version(load_be<int16_t>(frame.data()), load_be<int16_t>(frame.data() + 2));
  }
  wire::WireReader r(frame);
  if (!wire::read_struct(r, out.header, Context{out.header_version, false})) {
    return malformed("request header", out.header_version, r);
  }
  if (out.header_version >= 2) {
    TagBuffer tags;
    if (!wire::read_struct(r, tags, Context{out.header_version, true})) {
      return malformed("request header", out.header_version, r);
    }
  }
  out.body = frame.subspan(frame.size() - r.remaining());
  return out;
}

namespace {

// The header's fields after the correlation id.
struct HeaderTail {
  std::optional<std::string_view> client_id;  // v1+

  static constexpr auto fields() {
    return std::tuple{Field<&HeaderTail::client_id>{"client_id", since(1), since(1)}};
  }
};

}  // namespace

Result<RequestFrame> decode_request_header_tail(const RequestHeader& start, int16_t header_version,
                                                std::span<const std::byte> rest) {
  RequestFrame out;
  out.header = start;
  out.header_version = header_version;
  wire::WireReader r(rest);
  HeaderTail tail;
  if (!wire::read_struct(r, tail, Context{header_version, false})) {
    return malformed("request header", header_version, r);
  }
  if (header_version >= 2) {
    TagBuffer tags;
    if (!wire::read_struct(r, tags, Context{header_version, true})) {
      return malformed("request header", header_version, r);
    }
  }
  out.header.client_id = tail.client_id;
  out.body = rest.subspan(rest.size() - r.remaining());
  return out;
}

Status encode_request_header(const RequestHeader& header, int16_t header_version,
                             WriteBuffer& out) noexcept {
  if (header_version < 0 || header_version > 2) {
    return Status(ErrorCode::kInvalidArgument, "no such request header version");
  }
  wire::MessageWriter w(out);
  wire::write_struct(w, header, Context{header_version, false});
  if (header_version >= 2) w.uvarint(0);  // an empty tag buffer
  return w.status();
}

Status encode_response_header(int32_t correlation_id, int16_t header_version,
                              WriteBuffer& out) noexcept {
  if (header_version < 0 || header_version > 1) {
    return Status(ErrorCode::kInvalidArgument, "no such response header version");
  }
  return wire::encode(ResponseHeader{correlation_id}, Context{header_version, header_version >= 1},
                      out);
}

Result<ResponseHeader> decode_response_header(std::span<const std::byte> frame,
                                              int16_t header_version,
                                              std::span<const std::byte>* body) {
  wire::WireReader r(frame);
  ResponseHeader header;
  if (!wire::read_struct(r, header, Context{header_version, header_version >= 1})) {
    return malformed("response header", header_version, r);
  }
  *body = frame.subspan(frame.size() - r.remaining());
  return header;
}

}  // namespace spillway::kafka
