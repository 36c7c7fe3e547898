// CreateTopics and DeleteTopics: their descriptions (messages/topics.h) run
// both ways.
#include "spillway/common/messages/topics.h"

namespace spillway::messages {

Result<CreateTopicsRequest> decode_create_topics_request(std::span<const std::byte> body,
                                                         int16_t version) {
  return wire::decode<CreateTopicsRequest>(body, wire::Context{version, false},
                                           "CreateTopics request");
}
Status encode_create_topics_request(const CreateTopicsRequest& request, WriteBuffer& out,
                                    int16_t version) noexcept {
  return wire::encode(request, wire::Context{version, false}, out);
}
Result<DeleteTopicsRequest> decode_delete_topics_request(std::span<const std::byte> body) {
  return wire::decode<DeleteTopicsRequest>(body, kNative, "DeleteTopics request");
}
Status encode_delete_topics_request(const DeleteTopicsRequest& request, WriteBuffer& out) noexcept {
  return wire::encode(request, kNative, out);
}

}  // namespace spillway::messages
