// libFuzzer target for the bytes consumer groups take from untrusted peers:
// the native group requests the broker decodes (JoinGroup, SyncGroup,
// Heartbeat, LeaveGroup, ListGroups, DescribeGroups, DeleteGroups), the
// responses the client decodes, and the consumer-protocol subscription and
// assignment bytes that a group leader decodes from every other member's
// JoinGroup metadata (and `spillway group describe` from SyncGroup
// assignments). The broker passes those last bytes on unread, so they reach
// a client from any member of the group.
//
// Input layout: byte 0 picks the message, the rest is its bytes. Besides
// "no crash, no sanitizer report", whatever decodes must re-encode to
// exactly encoded_size bytes; for requests and the consumer protocol's
// bytes, those decode again to the same encoding. Responses carry error
// texts, which every encode rewrites in their safe form (wire::ErrorText:
// paths shortened, bytes escaped), so a response's bytes are not a fixed
// point of decode and encode, by design.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "spillway/common/kafka/consumer_protocol.h"
#include "spillway/common/messages/group_admin.h"
#include "spillway/common/messages/groups.h"
#include "spillway/common/write_buffer.h"

namespace {

using namespace spillway;

void check(bool ok) {
  if (!ok) std::abort();  // an invariant broke: libFuzzer reports the input
}

std::vector<std::byte> copy_out(WriteBuffer& out) {
  std::vector<std::byte> bytes(out.bytes_written());
  out.copy_to(bytes);
  return bytes;
}

template <typename M>
std::vector<std::byte> encode_native(const M& message) {
  std::array<std::byte, 256> scratch;
  WriteBuffer out{std::span<std::byte>(scratch)};
  check(wire::encode(message, messages::kNative, out).ok());
  check(out.bytes_written() == wire::encoded_size(message, messages::kNative));
  return copy_out(out);
}

template <typename M>
void native_round_trip(std::span<const std::byte> body) {
  Result<M> decoded = wire::decode<M>(body, messages::kNative, "fuzz");
  if (!decoded.ok()) return;
  const std::vector<std::byte> once = encode_native(*decoded);
  Result<M> again = wire::decode<M>(once, messages::kNative, "fuzz again");
  check(again.ok());
  check(encode_native(*again) == once);
}

// The consumer protocol's messages carry their own version; one above the
// known ones is read as the newest, so it re-encodes at that one.
template <typename Decode, typename Encode>
void consumer_round_trip(std::span<const std::byte> bytes, Decode decode, Encode encode,
                         int16_t newest) {
  auto decoded = decode(bytes);
  if (!decoded.ok()) return;
  const int16_t version = decoded->version < newest ? decoded->version : newest;
  std::array<std::byte, 256> scratch;
  WriteBuffer out{std::span<std::byte>(scratch)};
  check(encode(decoded->message, version, out).ok());
  const std::vector<std::byte> once = copy_out(out);
  auto again = decode(once);
  check(again.ok());
  WriteBuffer out2{std::span<std::byte>(scratch)};
  check(encode(again->message, version, out2).ok());
  check(copy_out(out2) == once);
}

template <typename M>
void native_reencode(std::span<const std::byte> body) {
  Result<M> decoded = wire::decode<M>(body, messages::kNative, "fuzz");
  if (decoded.ok()) encode_native(*decoded);
}

using Decoder = void (*)(std::span<const std::byte>);

constexpr Decoder kDecoders[] = {
    &native_round_trip<messages::JoinGroupRequest>,
    &native_reencode<messages::JoinGroupResponse>,
    &native_round_trip<messages::SyncGroupRequest>,
    &native_reencode<messages::SyncGroupResponse>,
    &native_round_trip<messages::HeartbeatRequest>,
    &native_round_trip<messages::LeaveGroupRequest>,
    &native_reencode<messages::LeaveGroupResponse>,
    &native_round_trip<messages::ListGroupsRequest>,
    &native_reencode<messages::ListGroupsResponse>,
    &native_round_trip<messages::DescribeGroupsRequest>,
    &native_reencode<messages::DescribeGroupsResponse>,
    &native_round_trip<messages::DeleteGroupsRequest>,
    &native_reencode<messages::DeleteGroupsResponse>,
    [](std::span<const std::byte> b) {
      consumer_round_trip(b, kafka::decode_consumer_subscription,
                          kafka::encode_consumer_subscription, kafka::kConsumerSubscriptionVersion);
    },
    [](std::span<const std::byte> b) {
      consumer_round_trip(b, kafka::decode_consumer_assignment, kafka::encode_consumer_assignment,
                          kafka::kConsumerAssignmentVersion);
    },
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);
  kDecoders[data[0] % std::size(kDecoders)](input.subspan(1));
  return 0;
}
