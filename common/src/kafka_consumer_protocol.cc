// Kafka's consumer protocol bytes (kafka/consumer_protocol.h): a version
// prefix, then the description run in a non-flexible context.
#include <algorithm>
#include <array>
#include <string>

#include "spillway/common/kafka/consumer_protocol.h"

namespace spillway::kafka {
namespace {

template <typename T>
Status encode_versioned(const T& v, int16_t version, WriteBuffer& out) noexcept {
  if (version < 0) return Status(ErrorCode::kInvalidArgument, "negative consumer protocol version");
  wire::WireWriter w(out);
  w.i16(version);
  if (!w.ok()) return w.status();
  return wire::encode(v, wire::Context{version, false}, out);
}

template <typename T>
Result<std::vector<std::byte>> to_bytes(const T& v, int16_t version) {
  std::array<std::byte, 256> scratch;
  WriteBuffer buf(scratch);
  if (Status st = encode_versioned(v, version, buf); !st.ok()) return st;
  std::vector<std::byte> out(buf.bytes_written());
  buf.copy_to(out);
  return out;
}

template <typename T>
Result<VersionedConsumerMessage<T>> decode_versioned(std::span<const std::byte> bytes,
                                                     int16_t newest, std::string_view what) {
  wire::WireReader r(bytes);
  const int16_t version = r.i16();
  if (!r.ok() || version < 0) {
    return Status(ErrorCode::kCorruptMessage,
                  "malformed " + std::string(what) + " (no valid version)");
  }
  const wire::Context c{std::min(version, newest), false};
  VersionedConsumerMessage<T> out;
  out.version = version;
  const bool read = wire::read_struct(r, out.message, c);
  // A newer version only appends fields: what follows the known ones is
  // theirs.
  if (!read || (version <= newest && r.remaining() != 0)) {
    std::string message = "malformed " + std::string(what) + " v" + std::to_string(version);
    if (!r.blamed().empty()) message += " (field " + std::string(r.blamed()) + ")";
    if (read) message += " (" + std::to_string(r.remaining()) + " bytes left over)";
    return Status(ErrorCode::kCorruptMessage, std::move(message));
  }
  return out;
}

}  // namespace

Status encode_consumer_subscription(const ConsumerProtocolSubscription& s, int16_t version,
                                    WriteBuffer& out) noexcept {
  return encode_versioned(s, version, out);
}
Status encode_consumer_assignment(const ConsumerProtocolAssignment& a, int16_t version,
                                  WriteBuffer& out) noexcept {
  return encode_versioned(a, version, out);
}
Result<std::vector<std::byte>> consumer_subscription_bytes(const ConsumerProtocolSubscription& s,
                                                           int16_t version) {
  return to_bytes(s, version);
}
Result<std::vector<std::byte>> consumer_assignment_bytes(const ConsumerProtocolAssignment& a,
                                                         int16_t version) {
  return to_bytes(a, version);
}
Result<VersionedConsumerMessage<ConsumerProtocolSubscription>> decode_consumer_subscription(
    std::span<const std::byte> bytes) {
  return decode_versioned<ConsumerProtocolSubscription>(bytes, kConsumerSubscriptionVersion,
                                                        "consumer protocol subscription");
}
Result<VersionedConsumerMessage<ConsumerProtocolAssignment>> decode_consumer_assignment(
    std::span<const std::byte> bytes) {
  return decode_versioned<ConsumerProtocolAssignment>(bytes, kConsumerAssignmentVersion,
                                                      "consumer protocol assignment");
}

}  // namespace spillway::kafka
