// Fetch body codec; the layout is specified in docs/protocol.md ("Fetch").
#include "spillway/common/messages/fetch.h"

namespace spillway::messages {

namespace {
Status malformed(const char* what) {
  return Status(ErrorCode::kCorruptMessage, std::string("malformed ") + what);
}
}  // namespace

bool FetchPartitionRequest::read(WireReader& r, FetchPartitionRequest* out) noexcept {
  out->partition = r.i32();
  out->fetch_offset = r.i64();
  out->partition_max_bytes = r.i32();
  return r.ok();
}
void FetchPartitionRequest::write(WireWriter& w, const FetchPartitionRequest& v) noexcept {
  w.i32(v.partition);
  w.i64(v.fetch_offset);
  w.i32(v.partition_max_bytes);
}

bool FetchTopicRequest::read(WireReader& r, FetchTopicRequest* out) noexcept {
  out->name = r.string();
  return r.ok() && WireArray<FetchPartitionRequest>::read(r, &out->partitions);
}
void FetchTopicRequest::write(WireWriter& w, const FetchTopicRequest& v) noexcept {
  w.string(v.name);
  write_array(w, v.partitions);
}

Result<FetchRequest> decode_fetch_request(std::span<const std::byte> body) {
  WireReader r(body);
  FetchRequest req;
  req.max_wait_ms = r.i32();
  req.min_bytes = r.i32();
  req.max_bytes = r.i32();
  if (!r.ok() || !WireArray<FetchTopicRequest>::read(r, &req.topics) || r.remaining() != 0) {
    return malformed("Fetch request body");
  }
  return req;
}

Status encode_fetch_request(const FetchRequest& request, WriteBuffer& out) noexcept {
  WireWriter w(out);
  w.i32(request.max_wait_ms);
  w.i32(request.min_bytes);
  w.i32(request.max_bytes);
  write_array(w, request.topics);
  return w.status();
}

bool FetchPartitionResult::read(WireReader& r, FetchPartitionResult* out) noexcept {
  out->partition = r.i32();
  out->error_code = error_code_from_wire(r.i16());
  out->error_message = r.string();
  out->high_watermark = r.i64();
  out->log_start_offset = r.i64();
  out->records = r.bytes();
  return r.ok();
}

void write_fetch_partition_header(WireWriter& w, const FetchPartitionResult& v,
                                  int32_t records_bytes) noexcept {
  w.i32(v.partition);
  w.i16(static_cast<int16_t>(v.error_code));
  w.error_message(v.error_message);
  w.i64(v.high_watermark);
  w.i64(v.log_start_offset);
  w.bytes_header(records_bytes);
}

void FetchPartitionResult::write(WireWriter& w, const FetchPartitionResult& v) noexcept {
  write_fetch_partition_header(w, v, static_cast<int32_t>(v.records.size()));
  w.raw(v.records);
}

bool FetchTopicResult::read(WireReader& r, FetchTopicResult* out) noexcept {
  out->name = r.string();
  return r.ok() && WireArray<FetchPartitionResult>::read(r, &out->results);
}
void FetchTopicResult::write(WireWriter& w, const FetchTopicResult& v) noexcept {
  w.string(v.name);
  write_array(w, v.results);
}

Result<FetchResponse> decode_fetch_response(std::span<const std::byte> body) {
  WireReader r(body);
  FetchResponse resp;
  if (!WireArray<FetchTopicResult>::read(r, &resp.topics) || r.remaining() != 0) {
    return malformed("Fetch response body");
  }
  return resp;
}

Status encode_fetch_response(const FetchResponse& response, WriteBuffer& out) noexcept {
  WireWriter w(out);
  write_array(w, response.topics);
  return w.status();
}

}  // namespace spillway::messages
