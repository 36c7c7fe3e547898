// Test support: a real etcd cluster (1 or 3 members) as child processes of
// the test, on 127.0.0.1 with temporary data directories, for the tests of
// the etcd client and the cluster layer. Members are stopped by PID: a
// SIGKILL (crash), a SIGTERM (clean stop), SIGSTOP/SIGCONT (a member that
// hangs), and restarted with their data. /usr/bin/etcd (Debian etcd-server)
// must be installed: start() fails loudly without it, tests never skip.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"

namespace spillway::testing {

class EtcdCluster {
 public:
  struct Options {
    int members = 1;
    std::string binary = "/usr/bin/etcd";
    std::chrono::milliseconds start_timeout{60'000};
    // Clients reach the members at this address too (etcd listens on it as
    // well as on 127.0.0.1) and endpoints() names it: for brokers in
    // another network namespace. Empty = 127.0.0.1 only.
    std::string client_host;
  };

  // Starts the members and returns once every one answers /health. Ports
  // are reserved by binding port 0 and released for etcd to take; when
  // another process takes one first, the whole start is tried again.
  static Result<std::unique_ptr<EtcdCluster>> start(Options options);
  static Result<std::unique_ptr<EtcdCluster>> start(int members) {
    Options options;
    options.members = members;
    return start(options);
  }

  // Kills (SIGKILL) every member still running and removes the data.
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  int size() const { return static_cast<int>(members_.size()); }
  // "http://127.0.0.1:P,http://127.0.0.1:Q,..." in member order (the
  // client_host instead of 127.0.0.1 when it is set).
  std::string endpoints() const;
  std::vector<std::string> endpoint_list() const;
  std::string endpoint(int member) const;
  int client_port(int member) const { return members_[static_cast<size_t>(member)].client_port; }

  // SIGKILL and reap.
  void kill_member(int member);
  // SIGTERM and reap (etcd shuts down cleanly).
  void stop_member(int member);
  void pause_member(int member);   // SIGSTOP
  void resume_member(int member);  // SIGCONT
  // Starts a stopped or killed member again on its ports with its data
  // directory, and waits until it answers /health.
  Status restart_member(int member);
  bool running(int member) const;

  // Waits until every running member answers /health with "true" (it has a
  // leader), up to `timeout`.
  Status wait_healthy(std::chrono::milliseconds timeout = std::chrono::seconds(30));

  // The index of the member that leads now (POST /v3/maintenance/status on
  // each running member: the one whose member_id is the leader it reports).
  Result<int> leader_index();

  // A blocking POST of `body` to `path` on `member` (HTTP/1.0, the
  // connection closed after): the response body when the answer is 200.
  Result<std::string> post(int member, std::string_view path, std::string_view body);

  // The member's output so far (for failure messages).
  std::string log(int member) const;

 private:
  struct Member {
    std::string name;
    int client_port = 0;
    int peer_port = 0;
    std::filesystem::path data_dir;
    std::filesystem::path log_path;
    pid_t pid = -1;
  };

  EtcdCluster() = default;
  Status spawn(int member);
  // true while the member's process runs; reaps it when it has exited.
  bool alive(int member);
  Status wait_member_healthy(int member, std::chrono::steady_clock::time_point deadline);
  std::string initial_cluster() const;

  Options options_;
  std::filesystem::path root_;
  std::vector<Member> members_;
};

}  // namespace spillway::testing
