// Test helpers for the broker_*_test.cc integration tests: a RawClient plus
// the native codecs, so a test can create topics, produce batches, fetch and
// commit without the client library. Results are copied into owning structs.
#pragma once

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "broker_process.h"
#include "raw_client.h"
#include "spillway/common/batch_builder.h"
#include "spillway/common/messages/fetch.h"
#include "spillway/common/messages/metadata.h"
#include "spillway/common/messages/offsets.h"
#include "spillway/common/messages/produce.h"
#include "spillway/common/messages/topics.h"
#include "spillway/common/record_batch.h"

namespace spillway::testing {

inline std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}
inline std::string string_of(std::span<const std::byte> b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

// Encodes with fn(WriteBuffer&) -> Status and returns the bytes.
template <typename Fn>
std::vector<std::byte> encode_body(Fn&& fn) {
  std::array<std::byte, 256> scratch;
  WriteBuffer buf(scratch);
  Status st = fn(buf);
  if (!st.ok()) return {};
  std::vector<std::byte> out(buf.bytes_written());
  buf.copy_to(out);
  return out;
}

// A batch of records; an empty optional key means a null key.
inline std::vector<std::byte> make_batch(
    const std::vector<std::pair<std::optional<std::string>, std::string>>& records,
    batch::Compression compression = batch::Compression::kNone) {
  std::array<std::byte, 256> scratch;
  WriteBuffer buf(scratch);
  batch::BatchBuilder builder;
  batch::BuilderOptions options;
  options.compression = compression;
  if (!builder.start(buf, options).ok()) return {};
  int64_t ts = 1'700'000'000'000;
  for (const auto& [key, value] : records) {
    batch::RecordInput r;
    r.timestamp = ts++;
    r.key_is_null = !key.has_value();
    if (key) r.key = bytes_of(*key);
    r.value = bytes_of(value);
    if (!builder.append(r).ok()) return {};
  }
  if (!builder.finish().ok()) return {};
  std::vector<std::byte> out(buf.bytes_written());
  buf.copy_to(out);
  return out;
}

struct Record {
  int64_t offset;
  std::optional<std::string> key;
  std::string value;
};

// Every record of the whole batches in `bytes` at or above `from`.
inline std::vector<Record> records_in(std::span<const std::byte> bytes, int64_t from = 0) {
  std::vector<Record> out;
  while (bytes.size() >= batch::kHeaderSize) {
    auto header = batch::parse_header(bytes);
    if (!header.ok() || header->total_size() > bytes.size()) break;
    std::span<const std::byte> whole = bytes.first(header->total_size());
    std::vector<std::byte> decompressed;
    std::span<const std::byte> block = batch::records_block(whole);
    if (header->compression() == batch::Compression::kZstd) {
      decompressed.resize(8 << 20);
      auto d = batch::decompress_records(whole, decompressed);
      if (!d.ok()) break;
      block = *d;
    }
    batch::RecordReader reader(block, header->record_count);
    batch::RecordView r;
    while (reader.next(&r)) {
      const int64_t offset = header->base_offset + r.offset_delta;
      if (offset < from) continue;
      out.push_back({offset, r.key_is_null ? std::nullopt : std::optional(string_of(r.key)),
                     string_of(r.value)});
    }
    bytes = bytes.subspan(header->total_size());
  }
  return out;
}

struct ProduceResult {
  int32_t partition;
  ErrorCode code;
  std::string message;
  int64_t base_offset;
  int32_t record_count;
};

// One topic of a Metadata response.
struct TopicInfo {
  ErrorCode code;
  std::string message;
  std::string flush_policy;
  int64_t retention_bytes;
  std::vector<std::pair<int64_t, int64_t>> partitions;  // (log start, high watermark)
};

struct CommitResult {
  ErrorCode code = ErrorCode::kUnknown;
  std::string message;
};

struct FetchResult {
  ErrorCode code = ErrorCode::kUnknown;
  std::string message;
  int64_t high_watermark = -1;
  int64_t log_start_offset = -1;
  std::vector<std::byte> records;
};

class WireClient : public RawClient {
 public:
  using RawClient::RawClient;

  // One request/response round trip; nullopt when the connection failed.
  std::optional<Response> call(frame::ApiKey api, std::span<const std::byte> body) {
    const int32_t id = next_id_++;
    if (!send_request(static_cast<int16_t>(api), 0, id, static_cast<uint32_t>(body.size()), body)) {
      return std::nullopt;
    }
    auto response = read_response();
    if (response && response->header.correlation_id != id) return std::nullopt;
    last_error_.clear();
    if (response && response->header.error_code != ErrorCode::kOk) {
      last_error_ = std::string(
          frame::decode_error_body(response->header.error_code, response->body).message());
    }
    return response;
  }

  // The message of the last response that carried an error in its frame
  // header (CreateTopics, DeleteTopics, malformed requests); empty after a
  // success.
  const std::string& last_error() const { return last_error_; }

  // The frame header's error code of CreateTopics; kNotConnected on failure.
  ErrorCode create_topic(std::string_view name, int32_t partitions,
                         std::string_view flush_policy = "",
                         int64_t segment_bytes = messages::kUseBrokerDefault,
                         int64_t retention_bytes = messages::kUseBrokerDefault) {
    messages::CreateTopicsRequest req{
        name,         partitions, flush_policy, retention_bytes, messages::kUseBrokerDefault,
        segment_bytes};
    auto body = encode_body([&](WriteBuffer& b) { return encode_create_topics_request(req, b); });
    auto r = call(frame::ApiKey::kCreateTopics, body);
    return r ? r->header.error_code : ErrorCode::kNotConnected;
  }

  ErrorCode delete_topic(std::string_view name) {
    messages::DeleteTopicsRequest req{name};
    auto body = encode_body([&](WriteBuffer& b) { return encode_delete_topics_request(req, b); });
    auto r = call(frame::ApiKey::kDeleteTopics, body);
    return r ? r->header.error_code : ErrorCode::kNotConnected;
  }

  std::vector<std::byte> produce_body(std::string_view topic, int32_t partition,
                                      std::span<const std::byte> batch,
                                      messages::Acks acks = messages::Acks::kLeader) {
    const messages::ProducePartitionData part{partition, batch};
    const messages::ProduceTopicData t{topic, std::span(&part, 1)};
    messages::ProduceRequest req{acks, 5000, std::span(&t, 1)};
    return encode_body([&](WriteBuffer& b) { return encode_produce_request(req, b); });
  }

  // Produce of one batch; the per-partition results (empty on a request-wide
  // error, whose code goes to *request_error).
  std::vector<ProduceResult> produce(std::string_view topic, int32_t partition,
                                     std::span<const std::byte> batch,
                                     messages::Acks acks = messages::Acks::kLeader,
                                     ErrorCode* request_error = nullptr) {
    auto r = call(frame::ApiKey::kProduce, produce_body(topic, partition, batch, acks));
    if (request_error) *request_error = r ? r->header.error_code : ErrorCode::kNotConnected;
    std::vector<ProduceResult> out;
    if (!r || r->header.error_code != ErrorCode::kOk) return out;
    return decode_produce(r->body);
  }

  static std::vector<ProduceResult> decode_produce(std::span<const std::byte> body) {
    std::vector<ProduceResult> out;
    auto decoded = messages::decode_produce_response(body);
    if (!decoded.ok()) return out;
    for (const auto& t : decoded->topics) {
      for (const auto& p : t.results) {
        out.push_back({p.partition, p.error_code, std::string(p.error_message), p.base_offset,
                       p.record_count});
      }
    }
    return out;
  }

  // Metadata of every topic (`all`) or of `names`, by name; empty when the
  // request failed.
  std::map<std::string, TopicInfo> metadata(bool all, std::vector<std::string_view> names = {}) {
    messages::MetadataRequest req{all, std::span<const std::string_view>(names)};
    auto body = encode_body([&](WriteBuffer& b) { return encode_metadata_request(req, b); });
    auto r = call(frame::ApiKey::kMetadata, body);
    std::map<std::string, TopicInfo> out;
    if (!r || r->header.error_code != ErrorCode::kOk) return out;
    auto decoded = messages::decode_metadata_response(r->body);
    if (!decoded.ok()) return out;
    for (const auto& t : decoded->topics) {
      TopicInfo info{t.error_code,
                     std::string(t.error_message),
                     std::string(t.flush_policy),
                     t.retention_bytes,
                     {}};
      for (const auto& p : t.partitions) {
        info.partitions.emplace_back(p.log_start_offset, p.high_watermark);
      }
      out[std::string(t.name)] = info;
    }
    return out;
  }

  // Commits `offset` for (`group`, `topic`, `partition`); the partition's
  // result, or the frame header's error for a request-wide one.
  CommitResult commit(std::string_view group, std::string_view topic, int32_t partition,
                      int64_t offset) {
    const messages::CommitOffsetEntry e{partition, offset};
    const messages::CommitOffsetsTopic t{topic, std::span(&e, 1)};
    messages::CommitOffsetsRequest req{group, std::span(&t, 1)};
    auto body = encode_body([&](WriteBuffer& b) { return encode_commit_offsets_request(req, b); });
    return commit_result(call(frame::ApiKey::kCommitOffsets, body));
  }

  // The same as a group member (CommitMemberOffsets).
  CommitResult commit_as(std::string_view group, std::string_view member_id, int32_t generation,
                         std::string_view topic, int32_t partition, int64_t offset) {
    const messages::CommitOffsetEntry e{partition, offset};
    const messages::CommitOffsetsTopic t{topic, std::span(&e, 1)};
    const messages::CommitMemberOffsetsRequest req{.group = group,
                                                   .member_id = member_id,
                                                   .generation_id = generation,
                                                   .group_instance_id = std::nullopt,
                                                   .topics = std::span(&t, 1)};
    auto body =
        encode_body([&](WriteBuffer& b) { return encode_commit_member_offsets_request(req, b); });
    return commit_result(call(frame::ApiKey::kCommitMemberOffsets, body));
  }

  // The offset `group` committed for `topic`/`partition`: -1 when none,
  // -2 when the call failed.
  int64_t committed(std::string_view group, std::string_view topic, int32_t partition) {
    const messages::FetchOffsetsTopic t{topic, std::span(&partition, 1)};
    const messages::FetchOffsetsRequest req{group, std::span(&t, 1)};
    auto body = encode_body([&](WriteBuffer& b) { return encode_fetch_offsets_request(req, b); });
    auto r = call(frame::ApiKey::kFetchOffsets, body);
    if (!r || r->header.error_code != ErrorCode::kOk) return -2;
    auto decoded = messages::decode_fetch_offsets_response(r->body);
    if (!decoded.ok()) return -2;
    for (const auto& dt : decoded->topics) {
      for (const auto& res : dt.results) return res.error_code == ErrorCode::kOk ? res.offset : -2;
    }
    return -2;
  }

  CommitResult commit_result(const std::optional<Response>& r) {
    if (!r) return {ErrorCode::kNotConnected, ""};
    if (r->header.error_code != ErrorCode::kOk) return {r->header.error_code, last_error_};
    auto decoded = messages::decode_commit_offsets_response(r->body);
    if (!decoded.ok()) return {};
    for (const auto& t : decoded->topics) {
      for (const auto& res : t.results) return {res.error_code, std::string(res.error_message)};
    }
    return {};
  }

  std::vector<std::byte> fetch_body(std::string_view topic, int32_t partition, int64_t offset,
                                    int32_t max_wait_ms, int32_t max_bytes = 1 << 20) {
    const messages::FetchPartitionRequest part{partition, offset, max_bytes};
    const messages::FetchTopicRequest t{topic, std::span(&part, 1)};
    messages::FetchRequest req{max_wait_ms, 1, max_bytes, std::span(&t, 1)};
    return encode_body([&](WriteBuffer& b) { return encode_fetch_request(req, b); });
  }

  static FetchResult decode_fetch(std::span<const std::byte> body) {
    FetchResult out;
    auto decoded = messages::decode_fetch_response(body);
    if (!decoded.ok()) return out;
    for (const auto& t : decoded->topics) {
      for (const auto& p : t.results) {
        out.code = p.error_code;
        out.message = std::string(p.error_message);
        out.high_watermark = p.high_watermark;
        out.log_start_offset = p.log_start_offset;
        out.records.assign(p.records.bytes.begin(), p.records.bytes.end());
      }
    }
    return out;
  }

  FetchResult fetch(std::string_view topic, int32_t partition, int64_t offset,
                    int32_t max_wait_ms = 0, int32_t max_bytes = 1 << 20) {
    auto r =
        call(frame::ApiKey::kFetch, fetch_body(topic, partition, offset, max_wait_ms, max_bytes));
    if (!r || r->header.error_code != ErrorCode::kOk) return FetchResult{};
    return decode_fetch(r->body);
  }

 private:
  int32_t next_id_ = 1;
  std::string last_error_;
};

// Starts the real broker (--threads 2) on `data_dir`, which the caller keeps
// (so a test can restart a broker on the same data), with `args` appended;
// null, with a test failure, when it does not start.
inline std::unique_ptr<BrokerProcess> start_broker_on(const std::filesystem::path& data_dir,
                                                      std::vector<std::string> args = {}) {
  BrokerProcess::Options options;
  options.default_data_dir = false;
  options.args = {"--threads", "2", "--data-dir", data_dir.string()};
  options.args.insert(options.args.end(), args.begin(), args.end());
  auto broker = BrokerProcess::start(options);
  if (!broker.ok()) ADD_FAILURE() << broker.status().to_string();
  return broker.ok() ? std::move(*broker) : nullptr;
}

// The port of "metrics on HOST:PORT" in the broker's log; 0 if absent.
inline uint16_t metrics_port(const BrokerProcess& broker) {
  const std::string log = broker.log();
  const std::string marker = "metrics on 127.0.0.1:";
  const size_t at = log.find(marker);
  return at == std::string::npos ? 0
                                 : static_cast<uint16_t>(std::stoi(log.substr(at + marker.size())));
}

// One GET /metrics into `response`; what went wrong, or "" when the
// response arrived whole (as long as its Content-Length says).
inline std::string get_metrics(uint16_t port, std::string* response) {
  if (port == 0) return "no metrics port (no \"metrics on\" line in the broker's log)";
  RawClient http(port);
  if (!http.connected()) {
    return std::string("cannot connect: ") + std::strerror(http.connect_error());
  }
  const std::string request = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  if (!http.send_bytes(bytes_of(request))) {
    return std::string("sending the request failed: ") + std::strerror(errno);
  }
  int read_error = 0;
  *response = string_of(http.read_until_eof(&read_error));
  const std::string got = std::to_string(response->size()) + " bytes";
  if (read_error != 0) {
    return "reading the response ended in " +
           std::string(read_error == EAGAIN || read_error == EWOULDBLOCK
                           ? "the receive timeout"
                           : std::strerror(read_error)) +
           " after " + got;
  }
  const size_t head_end = response->find("\r\n\r\n");
  if (head_end == std::string::npos) return "no complete HTTP head in the " + got;
  const std::string head = response->substr(0, head_end);
  const std::string marker = "\r\nContent-Length: ";
  const size_t at = head.find(marker);
  if (at == std::string::npos) return "no Content-Length in the response head";
  const uint64_t declared = std::stoull(head.substr(at + marker.size()));
  const size_t body = response->size() - head_end - 4;
  if (body != declared) {
    return "Content-Length " + std::to_string(declared) + " but a body of " + std::to_string(body) +
           " bytes";
  }
  return "";
}

// One GET /metrics; the whole HTTP response. A scrape that goes wrong would
// otherwise only show as missing metrics (metric() == -2), so this fails the
// test at the caller's line (non-fatally, returning what arrived) and says
// why, with what arrived.
inline std::string scrape(uint16_t port,
                          std::source_location where = std::source_location::current()) {
  std::string response;
  const std::string problem = get_metrics(port, &response);
  if (!problem.empty()) {
    ADD_FAILURE_AT(where.file_name(), static_cast<int>(where.line()))
        << "scrape of /metrics on 127.0.0.1:" << port << ": " << problem << "; received:\n"
        << response;
  }
  return response;
}

// The value of an unlabelled metric; -2 when missing.
inline int64_t metric(const std::string& page, const std::string& name) {
  const size_t at = page.find("\n" + name + " ");
  if (at == std::string::npos) return -2;
  return std::stoll(page.substr(at + name.size() + 2));
}

}  // namespace spillway::testing
