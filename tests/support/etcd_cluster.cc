#include "etcd_cluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

namespace spillway::testing {
namespace {

constexpr int kStartAttempts = 5;
constexpr auto kPollInterval = std::chrono::milliseconds(20);

Status error(std::string message) {
  return Status(ErrorCode::kUnknown, std::move(message));
}

// A port nobody uses now: bound to 0, read back, released for etcd to take.
// Another process may take it in between; start() then tries again.
Result<int> free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    return error(std::string("bind: ") + std::strerror(errno));
  }
  ::close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

// One blocking HTTP/1.0 exchange (the server closes after its answer, and
// sends no chunked body to a 1.0 client). The status code and the body.
Result<std::pair<int, std::string>> http_exchange(int port, std::string_view method,
                                                  std::string_view path, std::string_view body) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return error(std::string("socket: ") + std::strerror(errno));
  timeval tv{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    int e = errno;
    ::close(fd);
    return error("connect 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(e));
  }
  std::string request = std::string(method) + " " + std::string(path) +
                        " HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        "Content-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + std::string(body);
  size_t sent = 0;
  while (sent < request.size()) {
    ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      ::close(fd);
      return error("send to etcd failed");
    }
    sent += static_cast<size_t>(n);
  }
  std::string response;
  char buffer[4096];
  constexpr size_t kMaxResponse = 1 << 20;
  for (;;) {
    ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n == 0) break;
    if (n < 0) {
      ::close(fd);
      return error("recv from etcd failed or timed out");
    }
    response.append(buffer, static_cast<size_t>(n));
    if (response.size() > kMaxResponse) {
      ::close(fd);
      return error("etcd answer too long");
    }
  }
  ::close(fd);
  size_t head_end = response.find("\r\n\r\n");
  if (response.size() < 12 || head_end == std::string::npos) return error("bad HTTP answer");
  int code = std::atoi(response.substr(9, 3).c_str());
  return std::make_pair(code, response.substr(head_end + 4));
}

}  // namespace

EtcdCluster::~EtcdCluster() {
  for (int i = 0; i < size(); ++i) kill_member(i);
  std::error_code ignored;
  if (!root_.empty()) std::filesystem::remove_all(root_, ignored);
}

Result<std::unique_ptr<EtcdCluster>> EtcdCluster::start(Options options) {
  if (::access(options.binary.c_str(), X_OK) != 0) {
    return error("etcd is not installed at " + options.binary +
                 " (apt-get install etcd-server; scripts/deps.txt)");
  }
  if (options.members < 1) return error("an etcd cluster needs a member");
  std::string last_failure;
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    std::unique_ptr<EtcdCluster> cluster(new EtcdCluster());
    cluster->options_ = options;
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/spillway-etcd-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      return error("mkdtemp " + pattern + ": " + std::strerror(errno));
    }
    cluster->root_ = pattern;
    cluster->members_.resize(static_cast<size_t>(options.members));
    for (int i = 0; i < options.members; ++i) {
      Member& m = cluster->members_[static_cast<size_t>(i)];
      m.name = "m" + std::to_string(i);
      auto client = free_port();
      auto peer = free_port();
      if (!client) return client.status();
      if (!peer) return peer.status();
      m.client_port = *client;
      m.peer_port = *peer;
      m.data_dir = cluster->root_ / (m.name + ".etcd");
      m.log_path = cluster->root_ / (m.name + ".log");
    }
    Status started;
    for (int i = 0; i < options.members && started.ok(); ++i) started = cluster->spawn(i);
    if (started.ok()) started = cluster->wait_healthy(options.start_timeout);
    if (started.ok()) return cluster;
    last_failure = started.to_string();
    bool collision = false;
    for (int i = 0; i < options.members; ++i) {
      if (cluster->log(i).find("address already in use") != std::string::npos) collision = true;
    }
    if (!collision) return started;
    // ~EtcdCluster kills the members and removes the directory; try again
    // with new ports.
  }
  return error("etcd did not start after " + std::to_string(kStartAttempts) +
               " tries (ports taken): " + last_failure);
}

std::string EtcdCluster::initial_cluster() const {
  std::string out;
  for (const Member& m : members_) {
    if (!out.empty()) out += ",";
    out += m.name + "=http://127.0.0.1:" + std::to_string(m.peer_port);
  }
  return out;
}

Status EtcdCluster::spawn(int member) {
  Member& m = members_[static_cast<size_t>(member)];
  std::string client_url = "http://127.0.0.1:" + std::to_string(m.client_port);
  std::string listen_client_urls = client_url;
  if (!options_.client_host.empty()) {
    client_url = "http://" + options_.client_host + ":" + std::to_string(m.client_port);
    listen_client_urls += "," + client_url;
  }
  std::string peer_url = "http://127.0.0.1:" + std::to_string(m.peer_port);
  std::vector<std::string> args = {
      options_.binary,
      "--name",
      m.name,
      "--data-dir",
      m.data_dir.string(),
      "--listen-client-urls",
      listen_client_urls,
      "--advertise-client-urls",
      client_url,
      "--listen-peer-urls",
      peer_url,
      "--initial-advertise-peer-urls",
      peer_url,
      "--initial-cluster",
      initial_cluster(),
      "--initial-cluster-state",
      "new",
      "--initial-cluster-token",
      "spillway-test-" + root_.filename().string(),
      // Elections in well under a second, so that failover tests are quick.
      "--heartbeat-interval",
      "50",
      "--election-timeout",
      "500",
      "--logger",
      "zap",
      "--log-outputs",
      "stderr",
      "--log-level",
      "warn",
  };
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string log_path = m.log_path.string();

  pid_t pid = ::fork();
  if (pid < 0) return error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  m.pid = pid;
  return Status::Ok();
}

bool EtcdCluster::alive(int member) {
  Member& m = members_[static_cast<size_t>(member)];
  if (m.pid <= 0) return false;
  int status = 0;
  pid_t r = ::waitpid(m.pid, &status, WNOHANG);
  if (r == m.pid) {
    m.pid = -1;
    return false;
  }
  return true;
}

bool EtcdCluster::running(int member) const {
  return members_[static_cast<size_t>(member)].pid > 0;
}

void EtcdCluster::kill_member(int member) {
  Member& m = members_[static_cast<size_t>(member)];
  if (m.pid <= 0) return;
  ::kill(m.pid, SIGKILL);
  ::waitpid(m.pid, nullptr, 0);
  m.pid = -1;
}

void EtcdCluster::stop_member(int member) {
  Member& m = members_[static_cast<size_t>(member)];
  if (m.pid <= 0) return;
  ::kill(m.pid, SIGCONT);  // a paused member could not handle SIGTERM
  ::kill(m.pid, SIGTERM);
  ::waitpid(m.pid, nullptr, 0);
  m.pid = -1;
}

void EtcdCluster::pause_member(int member) {
  Member& m = members_[static_cast<size_t>(member)];
  if (m.pid > 0) ::kill(m.pid, SIGSTOP);
}

void EtcdCluster::resume_member(int member) {
  Member& m = members_[static_cast<size_t>(member)];
  if (m.pid > 0) ::kill(m.pid, SIGCONT);
}

Status EtcdCluster::restart_member(int member) {
  if (alive(member)) return error("member " + std::to_string(member) + " is running");
  SPILLWAY_RETURN_IF_ERROR(spawn(member));
  return wait_member_healthy(member, std::chrono::steady_clock::now() + options_.start_timeout);
}

Status EtcdCluster::wait_member_healthy(int member,
                                        std::chrono::steady_clock::time_point deadline) {
  const Member& m = members_[static_cast<size_t>(member)];
  std::string last = "no answer";
  for (;;) {
    if (!alive(member)) {
      return error("etcd member " + m.name + " exited; its log:\n" + log(member));
    }
    auto answer = http_exchange(m.client_port, "GET", "/health", "");
    if (answer) {
      if (answer->first == 200 && answer->second.find("\"true\"") != std::string::npos) {
        return Status::Ok();
      }
      last = "HTTP " + std::to_string(answer->first) + ": " + answer->second;
    } else {
      last = std::string(answer.status().message());
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return error("etcd member " + m.name + " not healthy in time (" + last + "); its log:\n" +
                   log(member));
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

Status EtcdCluster::wait_healthy(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (int i = 0; i < size(); ++i) {
    if (members_[static_cast<size_t>(i)].pid <= 0) continue;
    SPILLWAY_RETURN_IF_ERROR(wait_member_healthy(i, deadline));
  }
  return Status::Ok();
}

Result<int> EtcdCluster::leader_index() {
  std::string last = "no member running";
  for (int i = 0; i < size(); ++i) {
    if (!alive(i)) continue;
    auto body = post(i, "/v3/maintenance/status", "{}");
    if (!body) {
      last = std::string(body.status().message());
      continue;
    }
    auto status = nlohmann::json::parse(*body, nullptr, false);
    if (!status.is_object() || !status.contains("header") || !status["header"].is_object()) {
      last = "bad status answer: " + *body;
      continue;
    }
    const auto& header = status["header"];
    auto member_id = header.value("member_id", std::string());
    auto leader = status.value("leader", std::string());
    if (!member_id.empty() && member_id == leader) return i;
    last = "member " + std::to_string(i) + " is not the leader";
  }
  return error("no leader found: " + last);
}

Result<std::string> EtcdCluster::post(int member, std::string_view path, std::string_view body) {
  auto answer =
      http_exchange(members_[static_cast<size_t>(member)].client_port, "POST", path, body);
  if (!answer) return answer.status();
  if (answer->first != 200) {
    return error("HTTP " + std::to_string(answer->first) + ": " + answer->second);
  }
  return std::move(answer->second);
}

std::string EtcdCluster::endpoint(int member) const {
  const std::string host = options_.client_host.empty() ? "127.0.0.1" : options_.client_host;
  return "http://" + host + ":" + std::to_string(members_[static_cast<size_t>(member)].client_port);
}

std::vector<std::string> EtcdCluster::endpoint_list() const {
  std::vector<std::string> out;
  for (int i = 0; i < size(); ++i) out.push_back(endpoint(i));
  return out;
}

std::string EtcdCluster::endpoints() const {
  std::string out;
  for (int i = 0; i < size(); ++i) {
    if (i > 0) out += ",";
    out += endpoint(i);
  }
  return out;
}

std::string EtcdCluster::log(int member) const {
  std::ifstream in(members_[static_cast<size_t>(member)].log_path);
  std::stringstream text;
  text << in.rdbuf();
  std::string out = text.str();
  constexpr size_t kShown = 8192;
  if (out.size() > kShown) out = "..." + out.substr(out.size() - kShown);
  return out;
}

}  // namespace spillway::testing
