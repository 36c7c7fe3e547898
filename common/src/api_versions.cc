// ApiVersions: its description (api_versions.h) run both ways.
#include "spillway/common/api_versions.h"

namespace spillway {

namespace {

template <typename T>
void encode_to_vector(const T& body, std::vector<std::byte>& out) {
  const uint64_t size = wire::encoded_size(body, messages::kNative);
  const size_t at = out.size();
  out.resize(at + size);
  WriteBuffer buffer(std::span<std::byte>(out).subspan(at));
  const Status st = wire::encode(body, messages::kNative, buffer);
  (void)st;  // sized exactly above: cannot spill or fail
}

}  // namespace

void encode_api_versions_request(std::string_view client_version, std::vector<std::byte>& out) {
  encode_to_vector(ApiVersionsRequestBody{client_version}, out);
}

Result<std::string_view> decode_api_versions_request(std::span<const std::byte> body) {
  Result<ApiVersionsRequestBody> decoded =
      wire::decode<ApiVersionsRequestBody>(body, messages::kNative, "ApiVersions request");
  if (!decoded.ok()) return decoded.status();
  return decoded->client_version;
}

void encode_api_versions_response(const ApiVersionsResponse& response,
                                  std::vector<std::byte>& out) {
  encode_to_vector(ApiVersionsResponseBody{response.broker_version, response.apis}, out);
}

Result<ApiVersionsResponse> decode_api_versions_response(std::span<const std::byte> body) {
  Result<ApiVersionsResponseBody> decoded =
      wire::decode<ApiVersionsResponseBody>(body, messages::kNative, "ApiVersions response");
  if (!decoded.ok()) return decoded.status();
  ApiVersionsResponse response;
  response.broker_version = std::string(decoded->broker_version);
  response.apis.assign(decoded->apis.begin(), decoded->apis.end());
  return response;
}

}  // namespace spillway
