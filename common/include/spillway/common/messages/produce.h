// Body codec of Produce (api key 1, version 0): batches for partitions of
// topics, and a result per partition written to. Layout and semantics in
// docs/protocol.md ("Produce").
//
// The same structs serve both directions: decode_* fills them with views into
// the body (valid as long as the body), and encode_* reads them from views of
// caller-owned data (WireArray over a span).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "spillway/common/messages/wire.h"

namespace spillway::messages {

inline constexpr int16_t kProduceVersion = 0;

// Request acks levels.
enum class Acks : int8_t {
  kNone = 0,     // answered once validated, before the append (base_offset -1)
  kLeader = 1,   // answered after the append
  kDurable = 2,  // answered after an fdatasync covers the append
};

// Partition -1: the broker routes each record by key.
inline constexpr int32_t kRouteByKey = -1;

struct ProducePartitionData {
  int32_t partition = kRouteByKey;
  std::span<const std::byte> record_batch;  // exactly one RecordBatch v2

  static constexpr size_t kMinWireBytes = 4 + kBytesHeaderBytes;
  static bool read(WireReader& r, ProducePartitionData* out) noexcept;
  static void write(WireWriter& w, const ProducePartitionData& v) noexcept;
};

struct ProduceTopicData {
  std::string_view name;
  WireArray<ProducePartitionData> partitions;

  static constexpr size_t kMinWireBytes = kStringHeaderBytes + kArrayHeaderBytes;
  static bool read(WireReader& r, ProduceTopicData* out) noexcept;
  static void write(WireWriter& w, const ProduceTopicData& v) noexcept;
};

struct ProduceRequest {
  Acks acks = Acks::kLeader;
  int32_t timeout_ms = 0;
  WireArray<ProduceTopicData> topics;
};

// Errors: kCorruptMessage naming what is malformed (a count or length beyond
// the body, trailing bytes, an acks value outside 0..2).
Result<ProduceRequest> decode_produce_request(std::span<const std::byte> body);
// Appends the body to `out`; the status of the first failed write.
Status encode_produce_request(const ProduceRequest& request, WriteBuffer& out) noexcept;

struct ProducePartitionResult {
  int32_t partition = 0;  // the actual partition
  ErrorCode error_code = ErrorCode::kOk;
  std::string_view error_message;
  int64_t base_offset = -1;  // -1 with acks none or on error
  int32_t record_count = 0;
  int64_t log_start_offset = -1;

  static constexpr size_t kMinWireBytes = 4 + 2 + kStringHeaderBytes + 8 + 4 + 8;
  static bool read(WireReader& r, ProducePartitionResult* out) noexcept;
  static void write(WireWriter& w, const ProducePartitionResult& v) noexcept;
};

struct ProduceTopicResult {
  std::string_view name;
  WireArray<ProducePartitionResult> results;

  static constexpr size_t kMinWireBytes = kStringHeaderBytes + kArrayHeaderBytes;
  static bool read(WireReader& r, ProduceTopicResult* out) noexcept;
  static void write(WireWriter& w, const ProduceTopicResult& v) noexcept;
};

struct ProduceResponse {
  WireArray<ProduceTopicResult> topics;
};

Result<ProduceResponse> decode_produce_response(std::span<const std::byte> body);
Status encode_produce_response(const ProduceResponse& response, WriteBuffer& out) noexcept;

}  // namespace spillway::messages
