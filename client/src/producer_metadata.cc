// Partition lookup for the producer: the first send to a topic waits for its
// partition count; the I/O thread asks the broker in one Metadata request for
// every topic wanted, and applies the answer (count, first sticky partition,
// or the topic's error) to the topics it asked for.
#include <string>
#include <vector>

#include "metadata.h"
#include "producer_impl.h"
#include "spillway/common/key_partitioner.h"
#include "spillway/common/messages/metadata.h"

namespace spillway {

Status Producer::Impl::await_partitions(std::unique_lock<std::mutex>& lk, TopicState* t) {
  const uint64_t generation = t->metadata_generation;
  t->metadata_wanted = true;
  wake();
  cv.wait_until(lk, Clock::now() + options.delivery_timeout,
                [&] { return t->partitions >= 0 || t->metadata_generation != generation || stop; });
  if (t->partitions >= 0) return Status::Ok();
  Status st = !t->metadata_error.ok()
                  ? t->metadata_error
                  : Status(ErrorCode::kTimeout,
                           "no metadata for topic '" + t->name + "' from " + options.bootstrap);
  if (!last_transport_error.ok() && t->metadata_error.ok()) {
    st = Status(ErrorCode::kTimeout,
                std::string(st.message()) + ": " + std::string(last_transport_error.message()));
  }
  return st;
}

void Producer::Impl::build_metadata_request() {
  std::vector<std::string_view> names;
  for (auto& [name, t] : topics) {
    if (t->metadata_wanted && !t->metadata_in_flight) {
      names.push_back(t->name);
      t->metadata_in_flight = true;
    }
  }
  const producer_internal::InFlight& f = ring.push(
      producer_internal::InFlight{channel.next_correlation_id(), true, nullptr, Clock::now()});
  const Status st = wire::write_frame(
      request, frame::ApiKey::kMetadata, messages::kMetadataVersion, f.correlation_id,
      [&](WriteBuffer& out) { return wire::write_metadata_request(out, names); });
  if (!st.ok()) {
    request.release();   // the send of an empty request is skipped; the
    ring.drop_newest();  // topics are asked again on the next round
    for (auto& [name, t] : topics) t->metadata_in_flight = false;
  }
}

void Producer::Impl::apply_metadata(Status request_error, std::span<const std::byte> body) {
  std::vector<wire::TopicMetadata> answer;
  if (request_error.ok()) {
    Result<std::vector<wire::TopicMetadata>> decoded = wire::decode_metadata(body);
    if (decoded.ok()) {
      answer = std::move(decoded).value();
    } else {
      request_error = decoded.status();
    }
  }
  for (auto& [name, t] : topics) {
    if (!t->metadata_in_flight) continue;
    t->metadata_in_flight = false;
    t->metadata_wanted = false;
    ++t->metadata_generation;
    if (!request_error.ok()) {
      t->metadata_error = request_error;
      continue;
    }
    Result<TopicDescription> m = wire::take_topic(answer, t->name);
    if (!m.ok()) {
      t->metadata_error = m.status();
    } else if (m->partitions.empty()) {
      t->metadata_error =
          Status(ErrorCode::kUnknownTopic, "topic '" + t->name + "' has no partitions");
    } else {
      t->metadata_error = Status::Ok();
      t->partitions = static_cast<int32_t>(m->partitions.size());
      t->parts.resize(m->partitions.size());
      t->sticky = static_cast<int32_t>(
          murmur2(std::as_bytes(std::span<const char>(t->name.data(), t->name.size()))) %
          static_cast<uint32_t>(t->partitions));
    }
  }
  cv.notify_all();
}

}  // namespace spillway
