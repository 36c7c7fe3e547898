// ApiVersions body codec; the layout is specified in docs/protocol.md.
#include "spillway/common/api_versions.h"

#include "spillway/common/frame.h"

namespace spillway {

namespace {
constexpr size_t kApiRangeBytes = 6;  // i16 key, i16 min, i16 max
}

void encode_api_versions_request(std::string_view client_version, std::vector<std::byte>& out) {
  frame::BodyWriter writer(out);
  writer.short_string(client_version);
}

Result<std::string_view> decode_api_versions_request(std::span<const std::byte> body) {
  frame::BodyReader reader(body);
  std::string_view client = reader.short_string();
  if (!reader.ok() || reader.remaining() != 0) {
    return Status(ErrorCode::kCorruptMessage, "malformed ApiVersions request body");
  }
  return client;
}

void encode_api_versions_response(const ApiVersionsResponse& response,
                                  std::vector<std::byte>& out) {
  frame::BodyWriter writer(out);
  writer.short_string(response.broker_version);
  writer.i32(static_cast<int32_t>(response.apis.size()));
  for (const ApiVersionRange& api : response.apis) {
    writer.i16(api.api_key);
    writer.i16(api.min_version);
    writer.i16(api.max_version);
  }
}

Result<ApiVersionsResponse> decode_api_versions_response(std::span<const std::byte> body) {
  frame::BodyReader reader(body);
  ApiVersionsResponse response;
  response.broker_version = std::string(reader.short_string());
  const int32_t count = reader.i32();
  if (!reader.ok() || count < 0 ||
      static_cast<size_t>(count) != reader.remaining() / kApiRangeBytes ||
      reader.remaining() % kApiRangeBytes != 0) {
    return Status(ErrorCode::kCorruptMessage, "malformed ApiVersions response body");
  }
  response.apis.reserve(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    ApiVersionRange api;
    api.api_key = reader.i16();
    api.min_version = reader.i16();
    api.max_version = reader.i16();
    response.apis.push_back(api);
  }
  return response;
}

}  // namespace spillway
