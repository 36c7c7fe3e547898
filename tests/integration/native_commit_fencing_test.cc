// Native offset commits fenced by the group coordinator, on the wire against
// the real broker (docs/protocol.md, "CommitOffsets" and
// "CommitMemberOffsets"): a simple commit (CommitOffsets, no member) is
// refused while the group has a member, a member's commit
// (CommitMemberOffsets) is stored only in the group's current generation,
// and a refused commit leaves the committed offset as it was.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "spillway/common/messages/groups.h"

namespace spillway::testing {
namespace {

using namespace messages;

struct Joined {
  ErrorCode code = ErrorCode::kUnknown;
  std::string member_id;
  std::string leader_id;
  int32_t generation = -1;
};

class NativeCommitFencing : public ::testing::Test {
 protected:
  void SetUp() override {
    BrokerProcess::Options options;
    options.args = {"--group-min-session-timeout-ms", "100", "--group-initial-rebalance-delay-ms",
                    "0"};
    auto broker = BrokerProcess::start(options);
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(*broker);
    client_ = std::make_unique<WireClient>(broker_->port());
    ASSERT_TRUE(client_->connected());
    ASSERT_EQ(client_->create_topic("t", 2), ErrorCode::kOk) << client_->last_error();
  }

  // JoinGroup on `client` for group "g"; waits for the rebalance. A long
  // session, so that the member stays without heartbeats.
  static Joined join(WireClient& client, std::string_view member) {
    const std::array<JoinGroupProtocol, 1> protocols = {
        JoinGroupProtocol{"range", bytes_of("sub")}};
    const JoinGroupRequest req{.group_id = "g",
                               .member_id = member,
                               .group_instance_id = std::nullopt,
                               .session_timeout_ms = 60'000,
                               .rebalance_timeout_ms = 60'000,
                               .protocol_type = "consumer",
                               .protocols = protocols};
    auto r = client.call(frame::ApiKey::kJoinGroup,
                         encode_body([&](WriteBuffer& b) { return encode_join_group_request(req, b); }));
    if (!r) return {ErrorCode::kNotConnected};
    if (r->header.error_code != ErrorCode::kOk) return {r->header.error_code};
    auto j = decode_join_group_response(r->body);
    if (!j.ok()) return {j.status().code()};
    return {ErrorCode::kOk, std::string(j->member_id), std::string(j->leader_id), j->generation_id};
  }

  // SyncGroup of the leader, giving itself everything.
  ErrorCode sync_alone(const Joined& j) {
    const std::array<SyncGroupAssignment, 1> assignments = {
        SyncGroupAssignment{j.member_id, bytes_of("all")}};
    const SyncGroupRequest sync{.group_id = "g",
                                .member_id = j.member_id,
                                .generation_id = j.generation,
                                .group_instance_id = std::nullopt,
                                .assignments = assignments};
    auto r = client_->call(frame::ApiKey::kSyncGroup, encode_body([&](WriteBuffer& b) {
                             return encode_sync_group_request(sync, b);
                           }));
    return r ? r->header.error_code : ErrorCode::kNotConnected;
  }

  ErrorCode heartbeat(const Joined& j) {
    const HeartbeatRequest req{.group_id = "g",
                               .member_id = j.member_id,
                               .generation_id = j.generation,
                               .group_instance_id = std::nullopt};
    auto r = client_->call(frame::ApiKey::kHeartbeat, encode_body([&](WriteBuffer& b) {
                             return encode_heartbeat_request(req, b);
                           }));
    return r ? r->header.error_code : ErrorCode::kNotConnected;
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<WireClient> client_;
};

TEST_F(NativeCommitFencing, SimpleCommitsOnlyWhileTheGroupHasNoMembers) {
  EXPECT_EQ(client_->commit("g", "t", 0, 5).code, ErrorCode::kOk);

  const Joined a = join(*client_, "");
  ASSERT_EQ(a.code, ErrorCode::kOk) << client_->last_error();
  ASSERT_EQ(sync_alone(a), ErrorCode::kOk) << client_->last_error();

  // A simple commit, as `spillway group reset-offsets` or an assign()ed
  // consumer sends it: refused by the broker itself.
  CommitResult simple = client_->commit("g", "t", 0, 7);
  EXPECT_EQ(simple.code, ErrorCode::kUnknownMember) << simple.message;
  EXPECT_EQ(client_->committed("g", "t", 0), 5);

  // The member's own commit in its generation is stored.
  CommitResult mine = client_->commit_as("g", a.member_id, a.generation, "t", 0, 8);
  EXPECT_EQ(mine.code, ErrorCode::kOk) << mine.message;
  EXPECT_EQ(client_->committed("g", "t", 0), 8);

  // Another generation, or a member the group does not know: refused.
  CommitResult wrong = client_->commit_as("g", a.member_id, a.generation + 1, "t", 0, 9);
  EXPECT_EQ(wrong.code, ErrorCode::kIllegalGeneration) << wrong.message;
  CommitResult ghost = client_->commit_as("g", "ghost", a.generation, "t", 0, 9);
  EXPECT_EQ(ghost.code, ErrorCode::kUnknownMember) << ghost.message;
  EXPECT_EQ(client_->committed("g", "t", 0), 8);
  // Per partition: an unknown partition keeps its own error, not the
  // coordinator's.
  EXPECT_EQ(client_->commit_as("g", "ghost", a.generation, "t", 9, 1).code,
            ErrorCode::kUnknownPartition);

  // Once the member left, simple commits are allowed again.
  const std::array<LeaveGroupMember, 1> leaving = {LeaveGroupMember{a.member_id, std::nullopt}};
  auto left = client_->call(frame::ApiKey::kLeaveGroup, encode_body([&](WriteBuffer& b) {
                              return encode_leave_group_request({"g", leaving}, b);
                            }));
  ASSERT_TRUE(left.has_value());
  ASSERT_EQ(left->header.error_code, ErrorCode::kOk);
  EXPECT_EQ(client_->commit("g", "t", 0, 9).code, ErrorCode::kOk);
  EXPECT_EQ(client_->committed("g", "t", 0), 9);
  // And a commit in the generation the member had is not.
  EXPECT_EQ(client_->commit_as("g", a.member_id, a.generation, "t", 0, 10).code,
            ErrorCode::kUnknownMember);
  EXPECT_EQ(client_->committed("g", "t", 0), 9);
}

TEST_F(NativeCommitFencing, AStaleGenerationIsRefusedAfterARebalance) {
  const Joined a = join(*client_, "");
  ASSERT_EQ(a.code, ErrorCode::kOk) << client_->last_error();
  ASSERT_EQ(sync_alone(a), ErrorCode::kOk) << client_->last_error();
  ASSERT_EQ(client_->commit_as("g", a.member_id, a.generation, "t", 1, 3).code, ErrorCode::kOk);

  // B joins; its join is answered once A has rejoined too.
  Joined b;
  WireClient other(broker_->port());
  ASSERT_TRUE(other.connected());
  std::thread joiner([&] { b = join(other, ""); });
  // A learns of the rebalance from its heartbeat (the deadline only turns
  // a hang into a failure).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  ErrorCode beat = ErrorCode::kOk;
  while (beat == ErrorCode::kOk && std::chrono::steady_clock::now() < deadline) {
    beat = heartbeat(a);
  }
  EXPECT_EQ(beat, ErrorCode::kRebalanceInProgress);
  // While the group prepares the rebalance, A's generation is still the
  // group's: it may commit what it processed before giving it up.
  EXPECT_EQ(client_->commit_as("g", a.member_id, a.generation, "t", 1, 4).code, ErrorCode::kOk);
  const Joined a2 = join(*client_, a.member_id);
  joiner.join();
  ASSERT_EQ(a2.code, ErrorCode::kOk) << client_->last_error();
  ASSERT_EQ(b.code, ErrorCode::kOk);
  ASSERT_EQ(a2.generation, b.generation);
  ASSERT_GT(a2.generation, a.generation);

  // The zombie's commit: the partition may be B's now.
  CommitResult stale = client_->commit_as("g", a.member_id, a.generation, "t", 1, 10);
  EXPECT_EQ(stale.code, ErrorCode::kIllegalGeneration) << stale.message;
  EXPECT_EQ(client_->committed("g", "t", 1), 4);
  // The new generation waits for the leader's assignment before commits.
  CommitResult early = client_->commit_as("g", a2.member_id, a2.generation, "t", 1, 10);
  EXPECT_EQ(early.code, ErrorCode::kRebalanceInProgress) << early.message;
  EXPECT_EQ(client_->committed("g", "t", 1), 4);
}

}  // namespace
}  // namespace spillway::testing
