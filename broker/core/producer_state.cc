// ProducerStateTable: Kafka's sequence rules, expiry and the snapshot blob.
#include "producer_state.h"

#include <cstring>

#include "spillway/common/crc32c.h"
#include "spillway/common/endian.h"

namespace spillway::broker {

namespace {

// next == last + 1, where INT32_MAX is followed by 0 (Kafka's inSequence).
bool in_sequence(int32_t last, int32_t next) {
  return (last == INT32_MAX && next == 0) || (last != INT32_MAX && next == last + 1);
}

// Snapshot layout (big-endian): "SPPS", u16 version, i64 next_offset, u32
// entries, then per entry i64 producer id, i16 epoch, i64 last_update_ms, u8
// batches and per batch (oldest first) i32 first_seq, i32 last_seq, i64
// base_offset, i64 last_offset; last a u32 CRC-32C of all the bytes before.
constexpr char kMagic[4] = {'S', 'P', 'P', 'S'};
constexpr uint16_t kVersion = 1;
constexpr size_t kFixedSize = 4 + 2 + 8 + 4;
constexpr size_t kEntrySize = 8 + 2 + 8 + 1;
constexpr size_t kBatchSize = 4 + 4 + 8 + 8;
constexpr size_t kCrcSize = 4;

template <typename T>
void put(std::string& out, T v) {
  std::byte b[sizeof(T)];
  store_be<T>(b, v);
  out.append(reinterpret_cast<const char*>(b), sizeof(T));
}

// Reads big-endian integers from a span whose size the caller checked.
struct Cursor {
  const std::byte* p;
  template <typename T>
  T get() {
    T v = load_be<T>(p);
    p += sizeof(T);
    return v;
  }
};

}  // namespace

int32_t ProducerStateTable::last_sequence(int32_t first_seq, int32_t record_count) {
  const int32_t increment = record_count > 0 ? record_count - 1 : 0;
  if (first_seq > INT32_MAX - increment) return increment - (INT32_MAX - first_seq) - 1;
  return first_seq + increment;
}

const ProducerStateTable::Entry* ProducerStateTable::find(int64_t producer_id) const {
  auto it = producers_.find(producer_id);
  return it == producers_.end() ? nullptr : &it->second;
}

Result<SequenceCheck> ProducerStateTable::check(const batch::BatchHeader& h) const {
  if (h.producer_id == kNoProducerId) return SequenceCheck{};
  if (h.producer_id < 0 || h.producer_epoch < 0 || h.base_sequence < 0) {
    return Status(ErrorCode::kInvalidArgument,
                  "a batch with producer id " + std::to_string(h.producer_id) +
                      " needs a producer epoch and a base sequence >= 0 (got " +
                      std::to_string(h.producer_epoch) + ", " + std::to_string(h.base_sequence) +
                      ")");
  }
  const Entry* entry = find(h.producer_id);
  if (entry == nullptr) {
    // A producer this partition has no state for starts at sequence 0.
    // Anything else means batches before it are not here: a leader elected
    // without them while they were in flight to the old one. Taking it
    // (as Kafka >= 2.5 does) lets librdkafka count the earlier records as
    // acknowledged ("implicitly acked") although no log has them; the
    // client must learn instead (librdkafka bumps its epoch, or fails when
    // records are outstanding; the native producer takes a new producer id).
    // An expired producer gets the same answer and starts afresh.
    if (h.base_sequence != 0) {
      return Status(ErrorCode::kUnknownProducerId,
                    "producer " + std::to_string(h.producer_id) + " is unknown here; sequence " +
                        std::to_string(h.base_sequence) + " does not start it (0 does)");
    }
    return SequenceCheck{};
  }
  const std::string pid = std::to_string(h.producer_id);
  if (h.producer_epoch < entry->epoch) {
    return Status(ErrorCode::kInvalidProducerEpoch,
                  "producer " + pid + " has epoch " + std::to_string(entry->epoch) +
                      "; a batch with the older epoch " + std::to_string(h.producer_epoch) +
                      " is fenced");
  }
  if (h.producer_epoch != entry->epoch) {
    if (h.base_sequence != 0) {
      return Status(ErrorCode::kOutOfOrderSequence,
                    "producer " + pid + " starts epoch " + std::to_string(h.producer_epoch) +
                        " at sequence " + std::to_string(h.base_sequence) + ", not 0");
    }
    return SequenceCheck{};
  }
  const int32_t last_seq = last_sequence(h.base_sequence, h.record_count);
  for (uint8_t i = 0; i < entry->count; ++i) {
    const ProducerBatch& b = entry->batches[i];
    if (b.first_seq == h.base_sequence && b.last_seq == last_seq) {
      return SequenceCheck{.duplicate = true, .original = b};
    }
  }
  if (entry->count == 0) return SequenceCheck{};
  const int32_t expected_after = entry->last().last_seq;
  if (!in_sequence(expected_after, h.base_sequence)) {
    return Status(ErrorCode::kOutOfOrderSequence, "producer " + pid + " sent sequence " +
                                                      std::to_string(h.base_sequence) + " after " +
                                                      std::to_string(expected_after) + " (epoch " +
                                                      std::to_string(h.producer_epoch) + ")");
  }
  return SequenceCheck{};
}

void ProducerStateTable::record(const batch::BatchHeader& h, Offset base, Offset last,
                                int64_t now_ms) {
  if (h.producer_id < 0) return;
  Entry& entry = producers_[h.producer_id];
  if (h.producer_epoch != entry.epoch) {
    // A new epoch starts the producer afresh (sequence 0); its old batches
    // can no longer be retried.
    entry.epoch = h.producer_epoch;
    entry.count = 0;
    entry.next = 0;
  }
  entry.batches[entry.next] =
      ProducerBatch{.first_seq = h.base_sequence,
                    .last_seq = last_sequence(h.base_sequence, h.record_count),
                    .base_offset = base.value(),
                    .last_offset = last.value()};
  entry.next = static_cast<uint8_t>((entry.next + 1) % kCachedBatches);
  if (entry.count < kCachedBatches) ++entry.count;
  entry.last_update_ms = now_ms;
}

size_t ProducerStateTable::expire(int64_t now_ms, int64_t expiration_ms) {
  return std::erase_if(producers_, [&](const auto& kv) {
    return now_ms - kv.second.last_update_ms >= expiration_ms;
  });
}

std::string ProducerStateTable::serialize(Offset next_offset) const {
  std::string out;
  out.reserve(kFixedSize + producers_.size() * (kEntrySize + kCachedBatches * kBatchSize) +
              kCrcSize);
  out.append(kMagic, sizeof(kMagic));
  put<uint16_t>(out, kVersion);
  put<int64_t>(out, next_offset.value());
  put<uint32_t>(out, static_cast<uint32_t>(producers_.size()));
  for (const auto& [pid, entry] : producers_) {
    put<int64_t>(out, pid);
    put<int16_t>(out, entry.epoch);
    put<int64_t>(out, entry.last_update_ms);
    put<uint8_t>(out, entry.count);
    // Oldest first, so parse() can record them in order.
    const size_t first = (entry.next + kCachedBatches - entry.count) % kCachedBatches;
    for (size_t i = 0; i < entry.count; ++i) {
      const ProducerBatch& b = entry.batches[(first + i) % kCachedBatches];
      put<int32_t>(out, b.first_seq);
      put<int32_t>(out, b.last_seq);
      put<int64_t>(out, b.base_offset);
      put<int64_t>(out, b.last_offset);
    }
  }
  const uint32_t crc = crc32c(std::as_bytes(std::span(out.data(), out.size())));
  put<uint32_t>(out, crc);
  return out;
}

Result<Offset> ProducerStateTable::parse(std::string_view bytes) {
  auto corrupt = [](const char* why) {
    return Status(ErrorCode::kCorruptMessage, std::string("producer state snapshot: ") + why);
  };
  if (bytes.size() < kFixedSize + kCrcSize) return corrupt("too short");
  const auto* data = reinterpret_cast<const std::byte*>(bytes.data());
  const size_t body = bytes.size() - kCrcSize;
  if (load_be<uint32_t>(data + body) != crc32c(std::span(data, body))) {
    return corrupt("CRC mismatch");
  }
  if (std::memcmp(data, kMagic, sizeof(kMagic)) != 0) return corrupt("bad magic");
  Cursor c{data + sizeof(kMagic)};
  if (c.get<uint16_t>() != kVersion) return corrupt("unknown version");
  const int64_t next_offset = c.get<int64_t>();
  const uint32_t count = c.get<uint32_t>();
  // Each entry takes at least kEntrySize bytes: bound the count before
  // anything is sized by it.
  if (next_offset < 0 || count > (body - kFixedSize) / kEntrySize) return corrupt("bad counts");
  std::unordered_map<int64_t, Entry> producers;
  producers.reserve(count);
  const std::byte* end = data + body;
  for (uint32_t i = 0; i < count; ++i) {
    if (static_cast<size_t>(end - c.p) < kEntrySize) return corrupt("truncated entry");
    const int64_t pid = c.get<int64_t>();
    Entry entry;
    entry.epoch = c.get<int16_t>();
    entry.last_update_ms = c.get<int64_t>();
    const uint8_t batches = c.get<uint8_t>();
    if (pid < 0 || batches > kCachedBatches ||
        static_cast<size_t>(end - c.p) < batches * kBatchSize) {
      return corrupt("bad entry");
    }
    for (uint8_t b = 0; b < batches; ++b) {
      ProducerBatch& batch = entry.batches[b];
      batch.first_seq = c.get<int32_t>();
      batch.last_seq = c.get<int32_t>();
      batch.base_offset = c.get<int64_t>();
      batch.last_offset = c.get<int64_t>();
    }
    entry.count = batches;
    entry.next = static_cast<uint8_t>(batches % kCachedBatches);
    if (!producers.emplace(pid, entry).second) return corrupt("duplicate producer id");
  }
  if (c.p != end) return corrupt("trailing bytes");
  producers_ = std::move(producers);
  return Offset(next_offset);
}

}  // namespace spillway::broker
