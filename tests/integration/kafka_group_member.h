// Test helper for the group tests over the raw Kafka wire: one group member
// on its own connection, speaking JoinGroup, SyncGroup, Heartbeat,
// LeaveGroup and OffsetCommit through the message descriptions, with the
// answers copied out of the response frames. A join or sync that the broker
// parks can be sent first and read later (send_join / read_join), so a test
// drives several members from one thread.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "broker_wire_client.h"  // bytes_of, string_of
#include "kafka_wire_client.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/heartbeat.h"
#include "spillway/common/kafka/join_group.h"
#include "spillway/common/kafka/leave_group.h"
#include "spillway/common/kafka/offset_commit.h"
#include "spillway/common/kafka/sync_group.h"

namespace spillway::testing {

struct JoinOutcome {
  int16_t error = -1;
  int32_t generation = -1;
  std::string protocol_name;
  std::string leader;
  std::string member_id;
  // The leader's view: member id -> subscription metadata.
  std::vector<std::pair<std::string, std::string>> members;
};

struct SyncOutcome {
  int16_t error = -1;
  std::string assignment;
};

class GroupMember {
 public:
  GroupMember(uint16_t kafka_port, std::string group,
              std::optional<std::string> instance_id = std::nullopt)
      : client_(kafka_port), group_(std::move(group)), instance_id_(std::move(instance_id)) {}

  bool connected() const { return client_.connected(); }
  KafkaWireClient& client() { return client_; }
  const std::string& member_id() const { return member_id_; }
  void set_member_id(std::string id) { member_id_ = std::move(id); }
  int32_t generation() const { return generation_; }
  void set_generation(int32_t g) { generation_ = g; }

  int32_t session_timeout_ms = 10'000;
  int32_t rebalance_timeout_ms = 10'000;
  std::string protocol_type = "consumer";
  // Assignor name -> subscription metadata, in preference order.
  std::vector<std::pair<std::string, std::string>> protocols = {{"range", "sub"}};

  void send_join(int16_t version = 5) {
    std::vector<kafka::JoinGroupRequest::Protocol> ps;
    for (const auto& [name, meta] : protocols) ps.push_back({name, bytes_of(meta)});
    kafka::JoinGroupRequest r;
    r.group_id = group_;
    r.session_timeout_ms = session_timeout_ms;
    r.rebalance_timeout_ms = rebalance_timeout_ms;
    r.member_id = member_id_;
    if (instance_id_) r.group_instance_id = *instance_id_;
    r.protocol_type = protocol_type;
    r.protocols = ps;
    pending_version_ = version;
    ASSERT_TRUE(client_.send(r, version, ++correlation_id_));
  }

  // Reads the answer to send_join(); remembers the member id and generation.
  JoinOutcome read_join() {
    JoinOutcome out;
    auto reply = client_.read<kafka::JoinGroupResponse>(pending_version_);
    EXPECT_TRUE(reply.has_value()) << "no JoinGroup response";
    if (!reply) return out;
    auto r = wire::decode<kafka::JoinGroupResponse>(
        reply->body, kafka::context<kafka::JoinGroupResponse>(pending_version_), "join");
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (!r.ok()) return out;
    out.error = r->error_code;
    out.generation = r->generation_id;
    out.protocol_name = std::string(r->protocol_name.value_or(""));
    out.leader = r->leader;
    out.member_id = r->member_id;
    for (const auto& m : r->members) out.members.emplace_back(m.member_id, string_of(m.metadata));
    if (!out.member_id.empty()) member_id_ = out.member_id;
    if (out.error == 0) generation_ = out.generation;
    return out;
  }

  JoinOutcome join(int16_t version = 5) {
    send_join(version);
    return read_join();
  }

  // A first join as a v4+ client makes it: MEMBER_ID_REQUIRED, then again
  // with the id. Returns the second answer (or the first, if another error).
  JoinOutcome join_fresh(int16_t version = 5) {
    JoinOutcome first = join(version);
    if (first.error != kafka::errors::kMemberIdRequired) return first;
    return join(version);
  }
  // The same, but only sends the second join (the broker may park it).
  void send_join_fresh(int16_t version = 5) {
    JoinOutcome first = join(version);
    ASSERT_EQ(first.error, kafka::errors::kMemberIdRequired);
    send_join(version);
  }

  void send_sync(const std::vector<std::pair<std::string, std::string>>& assignments = {},
                 int16_t version = 3) {
    std::vector<kafka::SyncGroupRequest::Assignment> as;
    for (const auto& [member, a] : assignments) as.push_back({member, bytes_of(a)});
    kafka::SyncGroupRequest r;
    r.group_id = group_;
    r.generation_id = generation_;
    r.member_id = member_id_;
    if (instance_id_) r.group_instance_id = *instance_id_;
    r.assignments = as;
    pending_version_ = version;
    ASSERT_TRUE(client_.send(r, version, ++correlation_id_));
  }

  SyncOutcome read_sync() {
    SyncOutcome out;
    auto reply = client_.read<kafka::SyncGroupResponse>(pending_version_);
    EXPECT_TRUE(reply.has_value()) << "no SyncGroup response";
    if (!reply) return out;
    auto r = wire::decode<kafka::SyncGroupResponse>(
        reply->body, kafka::context<kafka::SyncGroupResponse>(pending_version_), "sync");
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (!r.ok()) return out;
    out.error = r->error_code;
    out.assignment = string_of(r->assignment);
    return out;
  }

  SyncOutcome sync(const std::vector<std::pair<std::string, std::string>>& assignments = {},
                   int16_t version = 3) {
    send_sync(assignments, version);
    return read_sync();
  }

  int16_t heartbeat(int16_t version = 3) {
    kafka::HeartbeatRequest r;
    r.group_id = group_;
    r.generation_id = generation_;
    r.member_id = member_id_;
    if (instance_id_ && version >= 3) r.group_instance_id = *instance_id_;
    auto got = client_.try_call<kafka::HeartbeatResponse>(r, version);
    EXPECT_TRUE(got.ok()) << got.status().to_string();
    return got.ok() ? got->error_code : int16_t{-1};
  }

  // Heartbeats (as a consumer does, every 20 ms) until the answer is not
  // `while_error`, and returns that answer; the guard only stops a broken
  // broker from hanging the test.
  int16_t heartbeat_until_not(int16_t while_error) {
    const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    int16_t e = heartbeat();
    while (e == while_error && std::chrono::steady_clock::now() < guard) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      e = heartbeat();
    }
    return e;
  }

  // LeaveGroup v0-2 (this member; the response's error) or v3+ (this member
  // in a batch of one; its own error).
  int16_t leave(int16_t version = 3) {
    kafka::LeaveGroupRequest r;
    r.group_id = group_;
    std::vector<kafka::LeaveGroupRequest::Member> members;
    if (version < 3) {
      r.member_id = member_id_;
    } else {
      kafka::LeaveGroupRequest::Member m;
      m.member_id = member_id_;
      if (instance_id_) m.group_instance_id = *instance_id_;
      members.push_back(m);
      r.members = members;
    }
    auto got = client_.try_call<kafka::LeaveGroupResponse>(r, version);
    EXPECT_TRUE(got.ok()) << got.status().to_string();
    if (!got.ok()) return -1;
    if (version < 3 || got->error_code != 0) return got->error_code;
    for (const auto& m : got->members) return m.error_code;
    return -1;
  }

  // OffsetCommit v7 of one partition as this member (generation and id as
  // given); the partition's error.
  int16_t commit(std::string_view topic, int32_t partition, int64_t offset, int32_t generation,
                 std::string_view member_id) {
    kafka::OffsetCommitRequest r;
    r.group_id = group_;
    r.generation_id_or_member_epoch = generation;
    r.member_id = member_id;
    if (instance_id_) r.group_instance_id = *instance_id_;
    std::vector<kafka::OffsetCommitRequest::Partition> ps(1);
    ps[0].partition_index = partition;
    ps[0].committed_offset = offset;
    std::vector<kafka::OffsetCommitRequest::Topic> ts(1);
    ts[0].name = topic;
    ts[0].partitions = ps;
    r.topics = ts;
    auto got = client_.try_call<kafka::OffsetCommitResponse>(r, 7);
    EXPECT_TRUE(got.ok()) << got.status().to_string();
    if (!got.ok()) return -1;
    for (const auto& t : got->topics) {
      for (const auto& p : t.partitions) return p.error_code;
    }
    return -1;
  }

 private:
  KafkaWireClient client_;
  std::string group_;
  std::optional<std::string> instance_id_;
  std::string member_id_;
  int32_t generation_ = -1;
  int32_t correlation_id_ = 1000;
  int16_t pending_version_ = 5;
};

}  // namespace spillway::testing
