// Fetch: its description (messages/fetch.h) run both ways.
#include "spillway/common/messages/fetch.h"

namespace spillway::messages {

Result<FetchRequest> decode_fetch_request(std::span<const std::byte> body) {
  return wire::decode<FetchRequest>(body, kNative, "Fetch request");
}
Status encode_fetch_request(const FetchRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<FetchResponse> decode_fetch_response(std::span<const std::byte> body) {
  return wire::decode<FetchResponse>(body, kNative, "Fetch response");
}
Status encode_fetch_response(const FetchResponse& response, WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

}  // namespace spillway::messages
