// A kafka_group_member process (group_member.cc) run by a test, and what
// it reported: its events file parsed into its assignments and its first
// records after each assignment, its records file into processed records.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace spillway::testing {

// Milliseconds of CLOCK_MONOTONIC (steady_clock), the member's clock too.
int64_t now_ms();

struct MemberOptions {
  std::string bootstrap;
  std::string topic;
  std::string group;
  std::string strategy;  // range, roundrobin, cooperative-sticky
  std::optional<std::string> instance_id;
  std::optional<int> session_timeout_ms;  // librdkafka's default when unset
  std::optional<int> heartbeat_ms;
  int revoke_delay_ms = 0;  // sleep in the revoke callback (holds a rebalance open)
  int process_us = 0;       // time to process one record (a sleep)
  bool debug = false;       // librdkafka cgrp/protocol debug on the member's stderr
};

struct MemberEvent {
  int64_t ms = 0;
  std::string kind;  // START, ASSIGN, REVOKE, LOST, ASSIGNMENT, CONSUMED, ...
  std::string rest;
};

class MemberProcess {
 public:
  // Starts a member whose files are DIR/NAME.records and DIR/NAME.events
  // (appended to, so a restarted member with the same name continues
  // them); its stderr goes to DIR/NAME.log.
  MemberProcess(const std::filesystem::path& dir, std::string name, MemberOptions options);
  // SIGKILLs a member still running.
  ~MemberProcess();
  MemberProcess(const MemberProcess&) = delete;
  MemberProcess& operator=(const MemberProcess&) = delete;

  const std::string& name() const { return name_; }
  pid_t pid() const { return pid_; }
  // Not stopped by the test (it may still have exited on its own).
  bool running() const { return pid_ > 0; }
  // Running, but the process exited by itself (a member never should):
  // how, e.g. "exit 2"; "" while it runs.
  std::string exited() const;
  // Sends `signal` and waits for the process to end (SIGKILL after 30 s).
  // Returns the monotonic ms at which the signal was sent.
  int64_t stop(int signal);

  std::vector<MemberEvent> events() const;
  // The assignment after the last rebalance callback; nullopt before the
  // first one.
  std::optional<std::set<int32_t>> assignment() const;
  // The group generation of the last rebalance callback (since the last
  // start); nullopt before the first one.
  std::optional<int32_t> generation() const;
  // The member id of the last rebalance callback ("" before the first).
  std::string member_id() const;
  // Events of `kind` at or after `since_ms`.
  size_t count(const std::string& kind, int64_t since_ms = 0) const;
  // partition -> ms of its first CONSUMED event at or after `since_ms`.
  std::vector<std::pair<int32_t, int64_t>> first_consumed(int64_t since_ms) const;
  std::string log() const;

  const std::filesystem::path& records_path() const { return records_; }

 private:
  std::string name_;
  std::filesystem::path records_;
  std::filesystem::path events_;
  std::filesystem::path log_;
  pid_t pid_ = -1;
  mutable std::string exited_;  // set once the process is reaped by exited()
};

// Shares of `members` (running ones only) are each non-empty, pairwise
// disjoint, and together cover partitions 0..partitions-1.
bool shares_cover(const std::vector<const MemberProcess*>& members, int32_t partitions,
                  std::string* why = nullptr);

// One line per member: its name and latest assignment (for failure output).
std::string describe_shares(const std::vector<const MemberProcess*>& members);

}  // namespace spillway::testing
