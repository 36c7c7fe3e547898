// PartitionLog::append_replicated: a follower's append of the leader's
// batches, stored exactly as the leader stored them (docs/replication-storage.md).
#include <string>

#include "spillway/common/record_batch.h"
#include "spillway/storage/partition_log.h"

namespace spillway::storage {

Result<AppendResult> PartitionLog::check_replicated(std::span<const std::byte> batches) const {
  if (batches.empty()) {
    return Status(ErrorCode::kInvalidArgument, "append_replicated: no batches");
  }
  // Everything is checked before anything is written, so a bad fetch
  // response leaves the log as it was.
  int64_t expected = next_offset_;
  std::size_t pos = 0;
  while (pos < batches.size()) {
    const std::span<const std::byte> rest = batches.subspan(pos);
    const std::string where = "replicated batch at byte " + std::to_string(pos);
    Result<batch::BatchHeader> header = batch::parse_header(rest);
    if (!header.ok()) {
      return Status(ErrorCode::kCorruptMessage,
                    where + ": " + std::string(header.status().message()));
    }
    if (header->total_size() > rest.size()) {
      return Status(ErrorCode::kCorruptMessage, where + " runs past the end of the data");
    }
    if (header->total_size() > config_.max_batch_bytes) {
      return Status(ErrorCode::kBatchTooLarge, where + " exceeds max_batch_bytes");
    }
    if (header->last_offset_delta < 0) {
      return Status(ErrorCode::kCorruptMessage, where + " has a negative last offset delta");
    }
    if (header->base_offset != expected) {
      return Status(ErrorCode::kInvalidArgument,
                    where + " starts at offset " + std::to_string(header->base_offset) +
                        ", expected " + std::to_string(expected) +
                        (header->base_offset > expected ? " (a gap)" : " (an overlap)"));
    }
    const std::span<const std::byte> one = rest.first(header->total_size());
    if (Status valid = batch::validate(one, config_.max_batch_bytes); !valid.ok()) {
      return Status(valid.code(), where + ": " + std::string(valid.message()));
    }
    expected = header->last_offset() + 1;
    pos += header->total_size();
  }
  return AppendResult{.base_offset = Offset(next_offset_), .last_offset = Offset(expected - 1)};
}

Result<AppendResult> PartitionLog::append_replicated(std::span<const std::byte> batches) {
  if (closed_ || read_only()) return read_only_error();
  if (corrupt()) return corrupt_error();
  Result<AppendResult> range = check_replicated(batches);
  if (!range.ok()) return range;
  if (Status st = before_first_write(); !st.ok()) {
    enter_read_only(st);
    return st;
  }
  const int64_t now = clock_();
  std::size_t pos = 0;
  while (pos < batches.size()) {
    // Checked above: the header parses and the batch is whole.
    const batch::BatchHeader header = *batch::parse_header(batches.subspan(pos));
    const std::span<const std::byte> one = batches.subspan(pos, header.total_size());
    // The same roll rule as append(), batch by batch, so a follower's
    // segments hold what the leader's would.
    const Segment& active = *segments_.back();
    if (active.size() > 0 && (active.size() + one.size() > config_.segment_bytes ||
                              now - active.created_ms() >= config_.segment_ms)) {
      SPILLWAY_RETURN_IF_ERROR(roll(now));
    }
    SPILLWAY_RETURN_IF_ERROR(
        segments_.back()->append(one, header.base_offset, header.last_offset(), now));
    next_offset_ = header.last_offset() + 1;
    unflushed_bytes_ += one.size();
    pos += one.size();
  }
  if (config_.flush_policy == FlushPolicy::kInterval &&
      (unflushed_bytes_ >= config_.flush_interval_bytes ||
       now - last_flush_ms_ >= config_.flush_interval_ms)) {
    SPILLWAY_RETURN_IF_ERROR(flush());
  }
  return range;
}

}  // namespace spillway::storage
