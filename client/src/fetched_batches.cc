// FetchedBatches: fetched batches, checked and decoded into records (see
// fetched_batches.h).
#include "fetched_batches.h"

#include <algorithm>
#include <cstdio>

#include "spillway/common/crc32c.h"

namespace spillway::consumer_internal {

FetchedBatches::FetchedBatches(std::size_t max_poll_records) : max_poll_records_(max_poll_records) {
  // Sized now so that the first polls do not grow it (whole batches may
  // pass max_poll_records).
  records_.reserve(max_poll_records + 4'096);
}

Result<std::span<const std::byte>> FetchedBatches::decompress(std::span<const std::byte> batch) {
  if (buffers_used_ == buffers_.size()) buffers_.emplace_back();
  Buffer& buf = buffers_[buffers_used_];
  for (;;) {
    if (buf.capacity == 0) {
      buf.capacity = 1u << 20;
      buf.data = std::make_unique_for_overwrite<std::byte[]>(buf.capacity);
    }
    Result<std::span<const std::byte>> r =
        batch::decompress_records(batch, {buf.data.get(), buf.capacity});
    if (r.ok()) {
      ++buffers_used_;
      return r;
    }
    if (r.status().code() != ErrorCode::kBatchTooLarge || buf.capacity >= batch::kMaxRecordsBytes) {
      return r.status();
    }
    buf.capacity = std::min(buf.capacity * 4, batch::kMaxRecordsBytes);
    buf.data = std::make_unique_for_overwrite<std::byte[]>(buf.capacity);
  }
}

namespace {

// "topic/partition offset N: " for errors about a batch.
std::string where(const AssignedPartition& a, Offset offset) {
  return a.topic + "/" + std::to_string(a.partition.value()) + " offset " +
         std::to_string(offset.value()) + ": ";
}

}  // namespace

// The CRC-32C covers everything from the attributes on (records included),
// so it is checked before any of those fields is believed: a flipped bit in
// last_offset_delta could otherwise make a batch look already consumed.
Status FetchedBatches::take_batch(AssignedPartition& a, const batch::BatchHeader& h,
                                  std::span<const std::byte> bytes) {
  const uint32_t crc = crc32c(bytes.subspan(batch::kAttributesPos));
  if (crc != h.crc) {
    char detail[128];
    std::snprintf(detail, sizeof(detail),
                  "corrupt batch, CRC-32C %08x but the batch says %08x; none of its records "
                  "is returned",
                  static_cast<unsigned>(crc), static_cast<unsigned>(h.crc));
    return Status(ErrorCode::kCorruptMessage, where(a, Offset(h.base_offset)) + detail);
  }
  const Offset position = a.position.offset();  // resolved before anything was fetched
  if (Offset(h.last_offset()) < position) return Status::Ok();  // entirely before it
  std::span<const std::byte> block = batch::records_block(bytes);
  if (h.compression() != batch::Compression::kNone) {
    // Any codec a Kafka client may have written (gzip, snappy, lz4, zstd);
    // an unknown one is an error naming it.
    Result<std::span<const std::byte>> d = decompress(bytes);
    if (!d.ok()) {
      return Status(d.status().code(),
                    where(a, Offset(h.base_offset)) + std::string(d.status().message()));
    }
    block = *d;
  }
  const std::size_t mark = records_.size();
  const bool log_append_time = (h.attributes & batch::kTimestampTypeLogAppend) != 0;
  batch::RecordReader reader(block, h.record_count);
  batch::RecordView v;
  while (reader.next(&v)) {
    const Offset offset = Offset(h.base_offset) + v.offset_delta;
    if (offset < position) continue;
    ConsumerRecord& r = records_.emplace_back();
    r.topic = a.topic;
    r.partition = a.partition.value();
    r.offset = offset.value();
    r.timestamp = log_append_time ? h.max_timestamp : h.base_timestamp + v.timestamp_delta;
    r.key = v.key;
    r.has_key = !v.key_is_null;
    r.value = v.value;
    r.has_value = !v.value_is_null;
    r.header_count = v.header_count;
    r.encoded_headers = v.headers;
  }
  if (!reader.status().ok()) {
    records_.resize(mark);  // all of a batch or nothing
    return Status(reader.status().code(),
                  where(a, Offset(h.base_offset)) + std::string(reader.status().message()));
  }
  a.position = Position::at(Offset(h.last_offset()).next());
  return Status::Ok();
}

Offset FetchedBatches::end_of(std::span<const std::byte> batches) noexcept {
  Offset end = kNoOffset;
  while (!batches.empty()) {
    Result<batch::BatchHeader> h = batch::parse_header(batches);
    if (!h.ok() || h->total_size() > batches.size()) break;
    end = Offset(h->last_offset()).next();
    batches = batches.subspan(h->total_size());
  }
  return end;
}

Status FetchedBatches::take(Assignment& assignment) {
  std::size_t p = 0;
  Status error;
  for (; p < pending_.size() && records_.size() < max_poll_records_; ++p) {
    Pending& pend = pending_[p];
    AssignedPartition& a = assignment.partitions()[pend.index];
    while (!pend.batches.empty() && records_.size() < max_poll_records_) {
      Result<batch::BatchHeader> h = batch::parse_header(pend.batches);
      if (!h.ok()) {
        error = Status(h.status().code(),
                       where(a, a.position.offset()) + std::string(h.status().message()));
        break;
      }
      if (h->total_size() > pend.batches.size()) {  // a cut-off batch: fetch it again
        pend.batches = {};
        break;
      }
      error = take_batch(a, *h, pend.batches.first(h->total_size()));
      if (!error.ok()) break;
      pend.batches = pend.batches.subspan(h->total_size());
    }
    if (!error.ok() || !pend.batches.empty()) break;
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(p));
  return records_.empty() ? error : Status::Ok();
}

}  // namespace spillway::consumer_internal
