// The native group membership calls over a Channel (docs/protocol.md,
// "Consumer groups"): one request each, answered into owned values. The
// coordinator's errors come back as a Status with its code (the channel
// stays open); transport errors are the Channel's.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "channel.h"

namespace spillway::wire {

struct JoinedMember {
  std::string member_id;
  std::vector<std::byte> metadata;
};

struct JoinAnswer {
  int32_t generation = -1;
  std::string protocol_name;
  std::string leader_id;
  std::string member_id;
  std::vector<JoinedMember> members;  // the leader's only
};

struct JoinCall {
  std::string_view group_id;
  std::string_view member_id;
  std::chrono::milliseconds session_timeout;
  std::chrono::milliseconds rebalance_timeout;
  std::string_view protocol_name;
  std::span<const std::byte> metadata;
};

// JoinGroup waits for the whole rebalance: up to the rebalance timeout
// (plus the request timeout) for the answer.
Result<JoinAnswer> join_group(Channel& channel, const JoinCall& call);
// The member's assignment bytes. `assignments`: the leader's, else empty.
Result<std::vector<std::byte>> sync_group(
    Channel& channel, std::string_view group_id, std::string_view member_id, int32_t generation,
    const std::vector<std::pair<std::string, std::vector<std::byte>>>& assignments,
    std::chrono::milliseconds timeout);
Status heartbeat(Channel& channel, std::string_view group_id, std::string_view member_id,
                 int32_t generation);
Status leave_group(Channel& channel, std::string_view group_id, std::string_view member_id);

}  // namespace spillway::wire
