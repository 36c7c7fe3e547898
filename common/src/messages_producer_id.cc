// InitProducerId: its description (messages/producer_id.h) run both ways.
#include "spillway/common/messages/producer_id.h"

namespace spillway::messages {

Result<InitProducerIdRequest> decode_init_producer_id_request(std::span<const std::byte> body) {
  return wire::decode<InitProducerIdRequest>(body, kNative, "InitProducerId request");
}
Status encode_init_producer_id_request(const InitProducerIdRequest& request,
                                       WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}
Result<InitProducerIdResponse> decode_init_producer_id_response(std::span<const std::byte> body) {
  return wire::decode<InitProducerIdResponse>(body, kNative, "InitProducerId response");
}
Status encode_init_producer_id_response(const InitProducerIdResponse& response,
                                        WriteBuffer& out) noexcept {
  return wire::encode(response, kNative, out);
}

}  // namespace spillway::messages
