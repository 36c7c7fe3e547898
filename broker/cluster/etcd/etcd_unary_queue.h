// EtcdUnaryQueue: etcd's unary calls (range, txn, lease grant/revoke,
// compaction) over one shared keep-alive connection, one call at a time in
// the order made (the gateway allows no pipelining worth the complexity).
//
// Each call has a deadline (EtcdOptions::request_timeout from when it was
// made; the first attempt may use half of it); a connect or transport error, or an HTTP 5xx, closes
// the connection and retries the call once on the next endpoint (EtcdSession). A non-5xx error
// answer is returned as is. Completions are posted to the io_context (never run inside call()), and
// none runs after shutdown().
#pragma once

#include <asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cluster/etcd/etcd_session.h"
#include "cluster/etcd/http_connection.h"
#include "spillway/common/status.h"

namespace spillway::broker::cluster::etcd {

class EtcdUnaryQueue : public std::enable_shared_from_this<EtcdUnaryQueue> {
 public:
  // The parsed body of a 200 answer, or kCoordinationUnavailable.
  using Done = std::function<void(Result<nlohmann::json>)>;

  explicit EtcdUnaryQueue(std::shared_ptr<EtcdSession> session);

  // POSTs `body` to `path` (e.g. "/v3/kv/range").
  void call(std::string path, std::string body, Done done);
  // Closes the connection and drops every call without completing it.
  void shutdown();

 private:
  struct Call {
    std::string path;
    std::string body;
    Done done;
    std::chrono::steady_clock::time_point deadline;
    int attempts = 0;
  };

  void pump();
  void arm_timer(std::chrono::steady_clock::time_point when);
  void attempt();
  void send(uint64_t attempt_id);
  void on_response(Status status, int http_status);
  void retry_or_fail(Status status);
  void finish(Result<nlohmann::json> result);

  std::shared_ptr<EtcdSession> session_;
  std::deque<Call> queue_;  // front() is in flight when busy_
  bool busy_ = false;
  bool shut_down_ = false;
  bool expired_ = false;     // the in-flight call's deadline passed
  uint64_t call_id_ = 0;     // the in-flight call, for its timer
  uint64_t attempt_id_ = 0;  // the in-flight attempt, for stale completions
  std::shared_ptr<HttpConnection> connection_;
  asio::steady_timer timer_;
  std::string response_body_;
};

}  // namespace spillway::broker::cluster::etcd
