// Kafka's request and response headers, the part of every frame before the
// body, and the rule for which header version goes with an api version.
//
//   request header v0  api_key:INT16 api_version:INT16 correlation_id:INT32
//                  v1  + client_id:NULLABLE_STRING (INT16 length, never compact)
//                  v2  + tag buffer
//   response header v0 correlation_id:INT32
//                   v1 + tag buffer
//
// A request whose body version is flexible has header v2, any other v1 (v0
// is only ControlledShutdown v0, which no client of ours sends). A response
// to a flexible version has header v1, any other v0, except ApiVersions:
// its response header is always v0, so that a client that does not yet know
// the broker's versions can read it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "spillway/common/kafka/api_keys.h"
#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"

namespace spillway::kafka {

struct RequestHeader {
  int16_t request_api_key = 0;
  int16_t request_api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string_view> client_id;  // v1+

  // The header's own fields, always in the non-flexible encoding: even in
  // v2 client_id keeps its INT16 length; v2's tag buffer follows them.
  static constexpr auto fields() {
    return std::tuple{
        Field<&RequestHeader::request_api_key>{"request_api_key"},
        Field<&RequestHeader::request_api_version>{"request_api_version"},
        Field<&RequestHeader::correlation_id>{"correlation_id"},
        Field<&RequestHeader::client_id>{"client_id", since(1), since(1)},
    };
  }
};

struct ResponseHeader {
  int32_t correlation_id = 0;

  static constexpr auto fields() {
    return std::tuple{Field<&ResponseHeader::correlation_id>{"correlation_id"}};
  }
};

// The header version of a request for `api_version` of `api_key`: 2 when
// that version is flexible, else 1 (also for api keys not in kApis).
constexpr int16_t request_header_version(int16_t api_key, int16_t api_version) noexcept {
  return is_flexible(api_key, api_version) ? 2 : 1;
}

// The header version of the response: 1 when the version is flexible, else
// 0; always 0 for ApiVersions.
constexpr int16_t response_header_version(int16_t api_key, int16_t api_version) noexcept {
  if (api_key == static_cast<int16_t>(ApiKey::kApiVersions)) return 0;
  return is_flexible(api_key, api_version) ? 1 : 0;
}

// A request frame (without its INT32 size prefix) split into header and
// body. Both view the frame.
struct RequestFrame {
  RequestHeader header;
  int16_t header_version = 1;
  std::span<const std::byte> body;
};

// Reads the header at the front of `frame`, choosing its version from the
// api key and version it starts with (request_header_version); unknown tags
// in a v2 header are skipped. Error: kCorruptMessage naming the field.
Result<RequestFrame> decode_request_header(std::span<const std::byte> frame);

// The part of a request header after the correlation id (client id, and
// in v2 the tag buffer), for a reader that already has the first eight
// bytes. `rest` is what follows the correlation id; the result's body views
// it. Error: kCorruptMessage naming the field.
Result<RequestFrame> decode_request_header_tail(const RequestHeader& start, int16_t header_version,
                                                std::span<const std::byte> rest);

// Appends `header` in header version `header_version` (0, 1 or 2).
Status encode_request_header(const RequestHeader& header, int16_t header_version,
                             WriteBuffer& out) noexcept;

// Appends a response header in version `header_version` (0 or 1).
Status encode_response_header(int32_t correlation_id, int16_t header_version,
                              WriteBuffer& out) noexcept;

// Reads a response header of version `header_version` at the front of
// `frame`; `*body` is set to the rest.
Result<ResponseHeader> decode_response_header(std::span<const std::byte> frame,
                                              int16_t header_version,
                                              std::span<const std::byte>* body);

}  // namespace spillway::kafka
