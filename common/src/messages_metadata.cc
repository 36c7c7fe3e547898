// Metadata: its description (messages/metadata.h) run both ways.
#include "spillway/common/messages/metadata.h"

namespace spillway::messages {

Result<MetadataRequest> decode_metadata_request(std::span<const std::byte> body) {
  Result<MetadataRequestBody> decoded =
      wire::decode<MetadataRequestBody>(body, kNative, "Metadata request");
  if (!decoded.ok()) return decoded.status();
  return MetadataRequest{decoded->topics.is_null(), decoded->topics};
}

Status encode_metadata_request(const MetadataRequest& request, WriteBuffer& out) noexcept {
  const MetadataRequestBody body{request.all_topics ? Array<std::string_view>::null()
                                                    : request.topics};
  return wire::encode(body, kNative, out);
}

Result<MetadataResponse> decode_metadata_response(std::span<const std::byte> body,
                                                  int16_t version) {
  return wire::decode<MetadataResponse>(body, wire::Context{version, false}, "Metadata response");
}
Status encode_metadata_response(const MetadataResponse& response, WriteBuffer& out,
                                int16_t version) noexcept {
  return wire::encode(response, wire::Context{version, false}, out);
}

}  // namespace spillway::messages
