// The producer's staging entry: how send() copies one record, with its
// callback, into its batch's pooled WriteBuffer, and how the I/O thread reads
// it back to build the RecordBatch and to run the callback. One contiguous
// entry per record, big-endian:
//   [u32 size][i64 timestamp][callback fn][callback context]
//   [i32 key length (-1 none)][key][i32 value length][value]
//   [i32 header count]{[u16 key length][key][i32 value length][value]}*
// Inline: both directions run once per record on the hot path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "spillway/common/batch_builder.h"
#include "spillway/common/endian.h"
#include "spillway/common/write_buffer.h"
#include "spillway/producer.h"

namespace spillway::producer_internal {

// Entry bytes besides the key, value and headers.
constexpr std::size_t kEntryFixed = 4 + 8 + sizeof(void*) * 2 + 4 + 4 + 4;

// The size of the entry for this record (what write_entry() writes).
inline std::size_t entry_size(std::span<const std::byte> key, std::span<const std::byte> value,
                              std::span<const Header> headers) {
  std::size_t size = kEntryFixed + key.size() + value.size();
  for (const Header& h : headers) size += 6 + h.key.size() + h.value.size();
  return size;
}

// Writes one entry of `size` bytes (entry_size() of the same record) at `w`.
// The caller has checked the lengths against their wire limits.
inline void write_entry(std::byte* w, std::size_t size, int64_t timestamp, DeliveryCallback cb,
                        std::span<const std::byte> key, std::span<const std::byte> value,
                        std::span<const Header> headers) {
  store_be<uint32_t>(w, static_cast<uint32_t>(size));
  w += 4;
  store_be<uint64_t>(w, static_cast<uint64_t>(timestamp));
  w += 8;
  std::memcpy(w, &cb.fn, sizeof(void*));
  w += sizeof(void*);
  std::memcpy(w, &cb.context, sizeof(void*));
  w += sizeof(void*);
  store_be<uint32_t>(w, key.empty() ? UINT32_MAX : static_cast<uint32_t>(key.size()));
  w += 4;
  if (!key.empty()) std::memcpy(w, key.data(), key.size());
  w += key.size();
  store_be<uint32_t>(w, static_cast<uint32_t>(value.size()));
  w += 4;
  if (!value.empty()) std::memcpy(w, value.data(), value.size());
  w += value.size();
  store_be<uint32_t>(w, static_cast<uint32_t>(headers.size()));
  w += 4;
  for (const Header& h : headers) {
    store_be<uint16_t>(w, static_cast<uint16_t>(h.key.size()));
    w += 2;
    if (!h.key.empty()) std::memcpy(w, h.key.data(), h.key.size());
    w += h.key.size();
    store_be<uint32_t>(w, static_cast<uint32_t>(h.value.size()));
    w += 4;
    if (!h.value.empty()) std::memcpy(w, h.value.data(), h.value.size());
    w += h.value.size();
  }
}

// One decoded staging entry; its spans point into the staging buffer.
struct Entry {
  int64_t timestamp;
  DeliveryCallback cb;
  batch::RecordInput record;
  batch::RecordHeaderInput headers[Producer::kMaxHeaders];
};

// Decodes the entry at `p` (written by write_entry()); returns its size.
inline std::size_t decode_entry(const std::byte* p, Entry* e) {
  const uint32_t size = load_be<uint32_t>(p);
  const std::byte* q = p + 4;
  e->timestamp = static_cast<int64_t>(load_be<uint64_t>(q));
  q += 8;
  std::memcpy(&e->cb.fn, q, sizeof(void*));
  q += sizeof(void*);
  std::memcpy(&e->cb.context, q, sizeof(void*));
  q += sizeof(void*);
  batch::RecordInput& r = e->record;
  r = batch::RecordInput{};
  r.timestamp = e->timestamp;
  const int32_t klen = static_cast<int32_t>(load_be<uint32_t>(q));
  q += 4;
  r.key_is_null = klen < 0;
  if (klen > 0) r.key = {q, static_cast<std::size_t>(klen)};
  if (klen > 0) q += klen;
  const int32_t vlen = static_cast<int32_t>(load_be<uint32_t>(q));
  q += 4;
  r.value = {q, static_cast<std::size_t>(vlen)};
  q += vlen;
  const int32_t hcount = static_cast<int32_t>(load_be<uint32_t>(q));
  q += 4;
  for (int32_t i = 0; i < hcount; ++i) {
    const uint16_t hk = load_be<uint16_t>(q);
    q += 2;
    e->headers[i].key = {q, hk};
    q += hk;
    const int32_t hv = static_cast<int32_t>(load_be<uint32_t>(q));
    q += 4;
    e->headers[i].value = {q, static_cast<std::size_t>(hv)};
    e->headers[i].value_is_null = false;
    q += hv;
  }
  r.headers = {e->headers, static_cast<std::size_t>(hcount)};
  return size;
}

// Calls fn(const Entry&) for every entry staged in `staging`, in order.
template <typename Fn>
void for_each_entry(WriteBuffer& staging, Fn&& fn) {
  Entry e;
  for (const iovec& chunk : staging.segments()) {
    const auto* p = static_cast<const std::byte*>(chunk.iov_base);
    const auto* end = p + chunk.iov_len;
    while (p < end) {
      p += decode_entry(p, &e);
      fn(static_cast<const Entry&>(e));
    }
  }
}

}  // namespace spillway::producer_internal
