// EtcdStreamCall: one of etcd's streaming calls (watch, lease keep-alive)
// on a connection of its own. The gateway answers with an endless chunked
// body of newline-separated JSON objects; each one reaches on_message as it
// arrives. Each message is bounded (EtcdOptions::max_stream_message_bytes)
// before it is kept.
//
// Until the first message, the call has the request deadline and one retry
// on the next endpoint (connect/transport error or HTTP 5xx), like a unary
// call. After it, the end of the stream for any reason is reported once
// through on_end (kCoordinationUnavailable): a stream is never resumed
// silently, so its owner sees every gap.
//
// Threading: on the session's io_context; callbacks only from completions,
// never inside start() or cancel(); none after cancel() or after
// on_message returned false.
#pragma once

#include <asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cluster/etcd/etcd_session.h"
#include "cluster/etcd/http_connection.h"
#include "spillway/common/status.h"

namespace spillway::broker::cluster::etcd {

class EtcdStreamCall : public std::enable_shared_from_this<EtcdStreamCall> {
 public:
  // Returns false to end the call (no on_end follows).
  using OnMessage = std::function<bool(const nlohmann::json& message)>;
  using OnEnd = std::function<void(Status status)>;

  EtcdStreamCall(std::shared_ptr<EtcdSession> session, std::string path, std::string body);

  void start(OnMessage on_message, OnEnd on_end);
  void cancel();

 private:
  void arm_timer(std::chrono::steady_clock::time_point when);
  void attempt();
  bool on_body(int http_status, std::string_view bytes);
  void on_done(Status status, int http_status);
  void end(Status status);

  std::shared_ptr<EtcdSession> session_;
  std::string path_;
  std::string body_;
  OnMessage on_message_;
  OnEnd on_end_;
  std::shared_ptr<HttpConnection> connection_;
  asio::steady_timer timer_;
  std::chrono::steady_clock::time_point deadline_;
  std::string pending_;     // a message not yet ended by '\n'
  std::string error_body_;  // the start of a non-200 answer
  Status error_;            // why on_body stopped the exchange
  int attempts_ = 0;
  uint64_t attempt_id_ = 0;
  bool got_message_ = false;
  bool expired_ = false;
  bool finished_ = false;  // cancelled, stopped by on_message, or ended
};

}  // namespace spillway::broker::cluster::etcd
