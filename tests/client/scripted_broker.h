// A broker that follows a script: it listens on an ephemeral loopback port
// and runs a test's function on each connection it accepts, so a test can
// send any bytes at any time (a response that stops halfway, a length above
// the limit, a wrong correlation id, silence). For the client's transport
// (Channel, Connection); the in-memory FakeBroker (fake_broker.h) is for
// the Producer and Consumer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "spillway/common/frame.h"
#include "spillway/common/status.h"

namespace spillway::testing {

class ScriptedBroker {
 public:
  // Runs script(fd, i) on the i-th accepted connection (0-based) for the
  // first `connections` connections, one after another, and closes each
  // when its script returns.
  explicit ScriptedBroker(std::function<void(int fd)> script, int connections = 1);
  ScriptedBroker(std::function<void(int fd, int index)> script, int connections);
  ~ScriptedBroker();  // waits for the scripts (wakes an accept nobody answers)
  ScriptedBroker(const ScriptedBroker&) = delete;
  ScriptedBroker& operator=(const ScriptedBroker&) = delete;

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  uint16_t port() const { return port_; }

 private:
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

// Sends every byte; false if the peer is gone.
bool write_all(int fd, std::span<const std::byte> bytes);

// Reads one request frame: its header and body (an empty body and a
// default header on EOF; a malformed header or a body cut short fails the
// test).
std::pair<frame::RequestHeader, std::vector<std::byte>> read_request(int fd);

// Sends a response frame with `error` (kOk: a plain response) and `body`.
bool send_response(int fd, int32_t correlation_id, std::span<const std::byte> body,
                   ErrorCode error = ErrorCode::kOk);

}  // namespace spillway::testing
