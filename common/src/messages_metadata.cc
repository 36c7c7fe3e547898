// Metadata body codec; the layout is specified in docs/protocol.md
// ("Metadata").
#include "spillway/common/messages/metadata.h"

namespace spillway::messages {

namespace {
Status malformed(const char* what) {
  return Status(ErrorCode::kCorruptMessage, std::string("malformed ") + what);
}
}  // namespace

Result<MetadataRequest> decode_metadata_request(std::span<const std::byte> body) {
  WireReader r(body);
  MetadataRequest req;
  bool is_null = false;
  if (!WireArray<std::string_view>::read(r, &req.topics, &is_null) || r.remaining() != 0) {
    return malformed("Metadata request body");
  }
  req.all_topics = is_null;
  return req;
}

Status encode_metadata_request(const MetadataRequest& request, WriteBuffer& out) noexcept {
  WireWriter w(out);
  if (request.all_topics) {
    w.i32(-1);
  } else {
    write_array(w, request.topics);
  }
  return w.status();
}

bool MetadataPartition::read(WireReader& r, MetadataPartition* out) noexcept {
  out->partition = r.i32();
  out->log_start_offset = r.i64();
  out->high_watermark = r.i64();
  out->error_code = error_code_from_wire(r.i16());
  out->error_message = r.string();
  return r.ok();
}
void MetadataPartition::write(WireWriter& w, const MetadataPartition& v) noexcept {
  w.i32(v.partition);
  w.i64(v.log_start_offset);
  w.i64(v.high_watermark);
  w.i16(static_cast<int16_t>(v.error_code));
  w.string(v.error_message);
}

bool MetadataTopic::read(WireReader& r, MetadataTopic* out) noexcept {
  out->name = r.string();
  out->error_code = error_code_from_wire(r.i16());
  out->error_message = r.string();
  out->flush_policy = r.string();
  out->retention_bytes = r.i64();
  out->retention_ms = r.i64();
  return r.ok() && WireArray<MetadataPartition>::read(r, &out->partitions);
}
void MetadataTopic::write(WireWriter& w, const MetadataTopic& v) noexcept {
  w.string(v.name);
  w.i16(static_cast<int16_t>(v.error_code));
  w.error_message(v.error_message);
  w.string(v.flush_policy);
  w.i64(v.retention_bytes);
  w.i64(v.retention_ms);
  write_array(w, v.partitions);
}

Result<MetadataResponse> decode_metadata_response(std::span<const std::byte> body) {
  WireReader r(body);
  MetadataResponse resp;
  if (!WireArray<MetadataTopic>::read(r, &resp.topics) || r.remaining() != 0) {
    return malformed("Metadata response body");
  }
  return resp;
}

Status encode_metadata_response(const MetadataResponse& response, WriteBuffer& out) noexcept {
  WireWriter w(out);
  write_array(w, response.topics);
  return w.status();
}

}  // namespace spillway::messages
