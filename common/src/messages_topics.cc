// CreateTopics and DeleteTopics body codecs; the layouts are specified in
// docs/protocol.md ("CreateTopics", "DeleteTopics").
#include "spillway/common/messages/topics.h"

namespace spillway::messages {

Result<CreateTopicsRequest> decode_create_topics_request(std::span<const std::byte> body) {
  WireReader r(body);
  CreateTopicsRequest req;
  req.name = r.string();
  req.partitions = r.i32();
  req.flush_policy = r.string();
  req.retention_bytes = r.i64();
  req.retention_ms = r.i64();
  req.segment_bytes = r.i64();
  if (!r.ok() || r.remaining() != 0) {
    return Status(ErrorCode::kCorruptMessage, "malformed CreateTopics request body");
  }
  return req;
}

Status encode_create_topics_request(const CreateTopicsRequest& request, WriteBuffer& out) noexcept {
  WireWriter w(out);
  w.string(request.name);
  w.i32(request.partitions);
  w.string(request.flush_policy);
  w.i64(request.retention_bytes);
  w.i64(request.retention_ms);
  w.i64(request.segment_bytes);
  return w.status();
}

Result<DeleteTopicsRequest> decode_delete_topics_request(std::span<const std::byte> body) {
  WireReader r(body);
  DeleteTopicsRequest req;
  req.name = r.string();
  if (!r.ok() || r.remaining() != 0) {
    return Status(ErrorCode::kCorruptMessage, "malformed DeleteTopics request body");
  }
  return req;
}

Status encode_delete_topics_request(const DeleteTopicsRequest& request, WriteBuffer& out) noexcept {
  WireWriter w(out);
  w.string(request.name);
  return w.status();
}

}  // namespace spillway::messages
