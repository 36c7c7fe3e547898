// CommitOffsets and FetchOffsets body codecs; the layouts are specified in
// docs/protocol.md ("CommitOffsets", "FetchOffsets").
#include "spillway/common/messages/offsets.h"

namespace spillway::messages {

namespace {
Status malformed(const char* what) {
  return Status(ErrorCode::kCorruptMessage, std::string("malformed ") + what);
}
}  // namespace

bool CommitOffsetEntry::read(WireReader& r, CommitOffsetEntry* out) noexcept {
  out->partition = r.i32();
  out->offset = r.i64();
  return r.ok();
}
void CommitOffsetEntry::write(WireWriter& w, const CommitOffsetEntry& v) noexcept {
  w.i32(v.partition);
  w.i64(v.offset);
}

bool CommitOffsetsTopic::read(WireReader& r, CommitOffsetsTopic* out) noexcept {
  out->name = r.string();
  return r.ok() && WireArray<CommitOffsetEntry>::read(r, &out->entries);
}
void CommitOffsetsTopic::write(WireWriter& w, const CommitOffsetsTopic& v) noexcept {
  w.string(v.name);
  write_array(w, v.entries);
}

Result<CommitOffsetsRequest> decode_commit_offsets_request(std::span<const std::byte> body) {
  WireReader r(body);
  CommitOffsetsRequest req;
  req.group = r.string();
  if (!r.ok() || !WireArray<CommitOffsetsTopic>::read(r, &req.topics) || r.remaining() != 0) {
    return malformed("CommitOffsets request body");
  }
  return req;
}

Status encode_commit_offsets_request(const CommitOffsetsRequest& request,
                                     WriteBuffer& out) noexcept {
  WireWriter w(out);
  w.string(request.group);
  write_array(w, request.topics);
  return w.status();
}

bool PartitionError::read(WireReader& r, PartitionError* out) noexcept {
  out->partition = r.i32();
  out->error_code = error_code_from_wire(r.i16());
  out->error_message = r.string();
  return r.ok();
}
void PartitionError::write(WireWriter& w, const PartitionError& v) noexcept {
  w.i32(v.partition);
  w.i16(static_cast<int16_t>(v.error_code));
  w.error_message(v.error_message);
}

bool CommitOffsetsTopicResult::read(WireReader& r, CommitOffsetsTopicResult* out) noexcept {
  out->name = r.string();
  return r.ok() && WireArray<PartitionError>::read(r, &out->results);
}
void CommitOffsetsTopicResult::write(WireWriter& w, const CommitOffsetsTopicResult& v) noexcept {
  w.string(v.name);
  write_array(w, v.results);
}

Result<CommitOffsetsResponse> decode_commit_offsets_response(std::span<const std::byte> body) {
  WireReader r(body);
  CommitOffsetsResponse resp;
  if (!WireArray<CommitOffsetsTopicResult>::read(r, &resp.topics) || r.remaining() != 0) {
    return malformed("CommitOffsets response body");
  }
  return resp;
}

Status encode_commit_offsets_response(const CommitOffsetsResponse& response,
                                      WriteBuffer& out) noexcept {
  WireWriter w(out);
  write_array(w, response.topics);
  return w.status();
}

bool FetchOffsetsTopic::read(WireReader& r, FetchOffsetsTopic* out) noexcept {
  out->name = r.string();
  return r.ok() && WireArray<int32_t>::read(r, &out->partitions);
}
void FetchOffsetsTopic::write(WireWriter& w, const FetchOffsetsTopic& v) noexcept {
  w.string(v.name);
  write_array(w, v.partitions);
}

Result<FetchOffsetsRequest> decode_fetch_offsets_request(std::span<const std::byte> body) {
  WireReader r(body);
  FetchOffsetsRequest req;
  req.group = r.string();
  if (!r.ok() || !WireArray<FetchOffsetsTopic>::read(r, &req.topics) || r.remaining() != 0) {
    return malformed("FetchOffsets request body");
  }
  return req;
}

Status encode_fetch_offsets_request(const FetchOffsetsRequest& request, WriteBuffer& out) noexcept {
  WireWriter w(out);
  w.string(request.group);
  write_array(w, request.topics);
  return w.status();
}

bool FetchOffsetsResult::read(WireReader& r, FetchOffsetsResult* out) noexcept {
  out->partition = r.i32();
  out->offset = r.i64();
  out->error_code = error_code_from_wire(r.i16());
  out->error_message = r.string();
  return r.ok();
}
void FetchOffsetsResult::write(WireWriter& w, const FetchOffsetsResult& v) noexcept {
  w.i32(v.partition);
  w.i64(v.offset);
  w.i16(static_cast<int16_t>(v.error_code));
  w.error_message(v.error_message);
}

bool FetchOffsetsTopicResult::read(WireReader& r, FetchOffsetsTopicResult* out) noexcept {
  out->name = r.string();
  return r.ok() && WireArray<FetchOffsetsResult>::read(r, &out->results);
}
void FetchOffsetsTopicResult::write(WireWriter& w, const FetchOffsetsTopicResult& v) noexcept {
  w.string(v.name);
  write_array(w, v.results);
}

Result<FetchOffsetsResponse> decode_fetch_offsets_response(std::span<const std::byte> body) {
  WireReader r(body);
  FetchOffsetsResponse resp;
  if (!WireArray<FetchOffsetsTopicResult>::read(r, &resp.topics) || r.remaining() != 0) {
    return malformed("FetchOffsets response body");
  }
  return resp;
}

Status encode_fetch_offsets_response(const FetchOffsetsResponse& response,
                                     WriteBuffer& out) noexcept {
  WireWriter w(out);
  write_array(w, response.topics);
  return w.status();
}

}  // namespace spillway::messages
