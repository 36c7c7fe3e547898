// Produce body codec; the layout is specified in docs/protocol.md ("Produce").
#include "spillway/common/messages/produce.h"

namespace spillway::messages {

namespace {
Status malformed(const char* what) {
  return Status(ErrorCode::kCorruptMessage, std::string("malformed ") + what);
}
}  // namespace

bool ProducePartitionData::read(WireReader& r, ProducePartitionData* out) noexcept {
  out->partition = r.i32();
  out->record_batch = r.bytes();
  return r.ok();
}
void ProducePartitionData::write(WireWriter& w, const ProducePartitionData& v) noexcept {
  w.i32(v.partition);
  w.bytes(v.record_batch);
}

bool ProduceTopicData::read(WireReader& r, ProduceTopicData* out) noexcept {
  out->name = r.string();
  return r.ok() && WireArray<ProducePartitionData>::read(r, &out->partitions);
}
void ProduceTopicData::write(WireWriter& w, const ProduceTopicData& v) noexcept {
  w.string(v.name);
  write_array(w, v.partitions);
}

Result<ProduceRequest> decode_produce_request(std::span<const std::byte> body) {
  WireReader r(body);
  ProduceRequest req;
  const int8_t acks = r.i8();
  req.timeout_ms = r.i32();
  if (!r.ok()) return malformed("Produce request header");
  if (acks < 0 || acks > 2) {
    return Status(ErrorCode::kCorruptMessage, "Produce acks must be 0, 1 or 2");
  }
  req.acks = static_cast<Acks>(acks);
  if (!WireArray<ProduceTopicData>::read(r, &req.topics) || r.remaining() != 0) {
    return malformed("Produce request body");
  }
  return req;
}

Status encode_produce_request(const ProduceRequest& request, WriteBuffer& out) noexcept {
  WireWriter w(out);
  w.i8(static_cast<int8_t>(request.acks));
  w.i32(request.timeout_ms);
  write_array(w, request.topics);
  return w.status();
}

bool ProducePartitionResult::read(WireReader& r, ProducePartitionResult* out) noexcept {
  out->partition = r.i32();
  out->error_code = error_code_from_wire(r.i16());
  out->error_message = r.string();
  out->base_offset = r.i64();
  out->record_count = r.i32();
  out->log_start_offset = r.i64();
  return r.ok();
}
void ProducePartitionResult::write(WireWriter& w, const ProducePartitionResult& v) noexcept {
  w.i32(v.partition);
  w.i16(static_cast<int16_t>(v.error_code));
  w.error_message(v.error_message);
  w.i64(v.base_offset);
  w.i32(v.record_count);
  w.i64(v.log_start_offset);
}

bool ProduceTopicResult::read(WireReader& r, ProduceTopicResult* out) noexcept {
  out->name = r.string();
  return r.ok() && WireArray<ProducePartitionResult>::read(r, &out->results);
}
void ProduceTopicResult::write(WireWriter& w, const ProduceTopicResult& v) noexcept {
  w.string(v.name);
  write_array(w, v.results);
}

Result<ProduceResponse> decode_produce_response(std::span<const std::byte> body) {
  WireReader r(body);
  ProduceResponse resp;
  if (!WireArray<ProduceTopicResult>::read(r, &resp.topics) || r.remaining() != 0) {
    return malformed("Produce response body");
  }
  return resp;
}

Status encode_produce_response(const ProduceResponse& response, WriteBuffer& out) noexcept {
  WireWriter w(out);
  write_array(w, response.topics);
  return w.status();
}

}  // namespace spillway::messages
