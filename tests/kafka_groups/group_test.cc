#include "group_test.h"

#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "spillway/admin.h"

namespace spillway::testing {

namespace {

// The broker's group settings for the tests: session timeouts down to a
// second allowed, and a short wait for more members before the first
// rebalance, so that the suite stays fast. Left out (the broker's
// defaults: 6000 ms and 3000 ms) by the default-timeouts measurement.
const std::vector<std::string> kShortGroupTimeouts = {"--group-min-session-timeout-ms", "1000",
                                                      "--group-initial-rebalance-delay-ms", "200"};

}  // namespace

void GroupTest::SetUp() {
  start_broker();
  if (HasFatalFailure()) return;
  create_topic();
}

void GroupTest::TearDown() {
  // Members first (they would otherwise retry against a dead broker), then
  // the producer, then the broker (its destructor kills it).
  for (auto& m : members_) {
    if (m->running() && !m->exited().empty()) {
      ADD_FAILURE() << "member " << m->name() << " exited on its own: " << m->exited();
    }
    if (m->running()) m->stop(SIGKILL);
  }
  // On a failure (or with SPILLWAY_GROUP_TEST_EVENTS set): what each member
  // saw, and the ends of the logs.
  if (HasFailure() || std::getenv("SPILLWAY_GROUP_TEST_EVENTS") != nullptr) {
    for (auto& m : members_) {
      std::cerr << "---- member " << m->name() << " events\n";
      for (const MemberEvent& e : m->events()) {
        if (e.kind != "CONSUMED") std::cerr << e.ms << " " << e.kind << " " << e.rest << "\n";
      }
      const std::string log = m->log();
      const size_t tail = std::getenv("SPILLWAY_GROUP_MEMBER_DEBUG") ? log.size() : 4000;
      std::cerr << "---- member " << m->name() << " log (last " << tail << " bytes)\n"
                << log.substr(log.size() > tail ? log.size() - tail : 0) << "\n";
    }
    if (broker_) {
      const std::string log = broker_->log();
      std::cerr << "---- broker log (last 4000 bytes)\n"
                << log.substr(log.size() > 4000 ? log.size() - 4000 : 0) << "\n";
    }
  }
  members_.clear();
  producer_.reset();
  broker_.reset();
}

void GroupTest::start_broker(bool same_ports, bool group_defaults) {
  BrokerProcess::Options options;
  options.default_data_dir = false;
  options.args = {"--threads", "2", "--data-dir", (dir_.path() / "data").string()};
  if (!group_defaults) {
    options.args.insert(options.args.end(), kShortGroupTimeouts.begin(), kShortGroupTimeouts.end());
  }
  if (same_ports) {
    options.args.insert(options.args.end(),
                        {"--listen", native_address_, "--kafka-listen", kafka_address_});
  }
  auto started = BrokerProcess::start(options);
  ASSERT_TRUE(started.ok()) << started.status().to_string();
  broker_ = std::move(*started);
  native_address_ = broker_->address();
  kafka_address_ = broker_->kafka_address();
}

void GroupTest::create_topic() {
  auto admin = Admin::connect(native_address_);
  ASSERT_TRUE(admin.ok()) << admin.status().to_string();
  TopicOptions topic;
  topic.partitions = kPartitions;
  ASSERT_TRUE(admin->create_topic(topic_, topic).ok());
}

MemberOptions GroupTest::member_options(const std::string& strategy) const {
  MemberOptions o;
  o.bootstrap = kafka_address_;
  o.topic = topic_;
  o.group = group_;
  o.strategy = strategy;
  o.session_timeout_ms = 6000;
  o.heartbeat_ms = 1000;
  return o;
}

MemberProcess& GroupTest::add_member(const std::string& name, MemberOptions options) {
  members_.push_back(std::make_unique<MemberProcess>(dir_.path(), name, std::move(options)));
  return *members_.back();
}

MemberProcess& GroupTest::restart_member(const std::string& name, MemberOptions options) {
  for (auto& m : members_) {
    if (m->name() != name) continue;
    if (m->running()) m->stop(SIGKILL);
    m = std::make_unique<MemberProcess>(dir_.path(), name, std::move(options));
    return *m;
  }
  return add_member(name, std::move(options));
}

MemberProcess& GroupTest::member(const std::string& name) {
  for (auto& m : members_) {
    if (m->name() == name) return *m;
  }
  ADD_FAILURE() << "no member " << name;
  return *members_.front();
}

std::vector<const MemberProcess*> GroupTest::members() const {
  std::vector<const MemberProcess*> out;
  for (const auto& m : members_) out.push_back(m.get());
  return out;
}

void GroupTest::expect_shares_cover(const std::string& when) {
  std::string why;
  const bool covered =
      wait_until(kGuard, [&] { return shares_cover(members(), kPartitions, &why); });
  EXPECT_TRUE(covered) << when << ": " << why << "\n" << describe_shares(members());
}

int64_t GroupTest::wait_consumed_again(const std::set<int32_t>& share, int64_t since_ms,
                                       std::chrono::milliseconds guard) {
  int64_t last = -1;
  const bool consumed = wait_until(guard, [&] {
    std::set<int32_t> left = share;
    last = -1;
    for (const auto& m : members_) {
      if (!m->running()) continue;
      for (const auto& [p, ms] : m->first_consumed(since_ms)) {
        if (left.erase(p) > 0) last = std::max(last, ms);
      }
    }
    return left.empty();
  });
  EXPECT_TRUE(consumed) << "partitions not consumed again\n" << describe_shares(members());
  return consumed ? last : -1;
}

void GroupTest::expect_described(const std::string& assignor) {
  // What differs ("" when nothing); polled, since a rebalance may still be
  // settling when the records have all been committed.
  auto mismatch = [&]() -> std::string {
    const DescribedGroup described = describe_group(kafka_address_, group_);
    if (!described.error.empty()) return "describe failed: " + described.error;
    if (described.state != "Stable") return "state " + described.state;
    if (described.assignor != assignor) return "assignor " + described.assignor;
    size_t running = 0;
    for (const auto& m : members_) {
      if (!m->running()) continue;
      ++running;
      const std::string id = m->member_id();
      auto it = std::find_if(described.members.begin(), described.members.end(),
                             [&](const DescribedMember& d) { return d.member_id == id; });
      if (it == described.members.end()) return m->name() + " (" + id + ") not described";
      if (it->partitions != m->assignment().value_or(std::set<int32_t>{})) {
        return m->name() + " is described with other partitions than it has";
      }
    }
    if (described.members.size() != running) {
      return std::to_string(described.members.size()) + " members described";
    }
    return "";
  };
  std::string last;
  EXPECT_TRUE(wait_until(kGuard, [&] { return (last = mismatch()).empty(); }))
      << last << "\n"
      << describe_shares(members());
}

std::vector<int64_t> GroupTest::expect_caught_up() {
  EXPECT_TRUE(producer_->wait_delivered(kLongGuard))
      << producer_->delivered() << " delivered, " << producer_->failed()
      << " failed: " << producer_->first_error();
  std::vector<int64_t> log_end;
  std::vector<int64_t> committed;
  const bool caught_up = wait_until(kLongGuard, [&] {
    log_end = log_end_offsets(kafka_address_, topic_, kPartitions);
    committed = committed_offsets(kafka_address_, group_, topic_, kPartitions);
    return log_end.size() == kPartitions && committed == log_end;
  });
  std::string offsets;
  for (size_t p = 0; p < log_end.size(); ++p) {
    offsets += " p" + std::to_string(p) + ": committed " +
               (p < committed.size() ? std::to_string(committed[p]) : "?") + " of " +
               std::to_string(log_end[p]);
  }
  EXPECT_TRUE(caught_up) << "committed offsets do not reach the log end:" << offsets << "\n"
                         << describe_shares(members());
  return log_end;
}

void GroupTest::expect_nothing_lost() {
  ASSERT_TRUE(producer_);
  producer_->allow(kRecords);
  const std::vector<int64_t> log_end = expect_caught_up();
  int64_t total = 0;
  for (int64_t end : log_end) total += end;
  // Idempotent producer: each record is in the log once.
  EXPECT_EQ(total, kRecords);
  const std::string problems = check_processed(members(), log_end, kRecords);
  EXPECT_EQ(problems, "");
}

}  // namespace spillway::testing
