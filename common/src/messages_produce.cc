// Produce: its description (messages/produce.h) run both ways.
#include "spillway/common/messages/produce.h"

namespace spillway::messages {

Result<ProduceRequest> decode_produce_request(std::span<const std::byte> body) {
  Result<ProduceRequest> request = wire::decode<ProduceRequest>(body, kNative, "Produce request");
  if (request.ok() &&
      (static_cast<int8_t>(request->acks) < -1 || static_cast<int8_t>(request->acks) > 2)) {
    return Status(ErrorCode::kCorruptMessage, "Produce acks must be -1, 0, 1 or 2");
  }
  return request;
}
Status encode_produce_request(const ProduceRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<ProduceResponse> decode_produce_response(std::span<const std::byte> body) {
  return wire::decode<ProduceResponse>(body, kNative, "Produce response");
}
Status encode_produce_response(const ProduceResponse& response, WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

}  // namespace spillway::messages
