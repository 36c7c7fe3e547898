#include "cluster/etcd/etcd_unary_queue.h"

#include <asio/post.hpp>

#include "cluster/etcd/etcd_json.h"

namespace spillway::broker::cluster::etcd {

EtcdUnaryQueue::EtcdUnaryQueue(std::shared_ptr<EtcdSession> session)
    : session_(std::move(session)), timer_(session_->io) {}

void EtcdUnaryQueue::call(std::string path, std::string body, Done done) {
  if (shut_down_) return;
  Call c;
  c.path = std::move(path);
  c.body = std::move(body);
  c.done = std::move(done);
  c.deadline = std::chrono::steady_clock::now() + session_->options.request_timeout;
  queue_.push_back(std::move(c));
  pump();
}

void EtcdUnaryQueue::shutdown() {
  shut_down_ = true;
  queue_.clear();
  timer_.cancel();
  if (connection_) connection_->close();
  connection_.reset();
}

void EtcdUnaryQueue::pump() {
  if (busy_ || shut_down_ || queue_.empty()) return;
  busy_ = true;
  expired_ = false;
  if (!session_->config_error.ok()) {
    finish(session_->config_error);
    return;
  }
  ++call_id_;
  // The first attempt gets half the time, so that a member that accepts
  // connections but never answers (hung, stopped) leaves the other half to
  // the retry on the next endpoint.
  const Call& c = queue_.front();
  auto half = std::chrono::steady_clock::now() + session_->options.request_timeout / 2;
  arm_timer(std::min(half, c.deadline));
  attempt();
}

void EtcdUnaryQueue::arm_timer(std::chrono::steady_clock::time_point when) {
  uint64_t id = call_id_;
  timer_.expires_at(when);
  timer_.async_wait([self = shared_from_this(), id](const std::error_code& ec) {
    if (ec || self->shut_down_ || !self->busy_ || self->call_id_ != id) return;
    // The pending connect or exchange completes with an error: a retry
    // while time is left, else the call fails as expired.
    if (std::chrono::steady_clock::now() >= self->queue_.front().deadline) self->expired_ = true;
    if (self->connection_) self->connection_->close();
  });
}

void EtcdUnaryQueue::attempt() {
  uint64_t id = ++attempt_id_;
  if (connection_ && connection_->reusable()) {
    send(id);
    return;
  }
  if (connection_) connection_->close();
  connection_ = std::make_shared<HttpConnection>(session_->io, session_->options.limits);
  connection_->connect(session_->endpoint(), [self = shared_from_this(), id](Status status) {
    if (self->shut_down_ || self->attempt_id_ != id) return;
    if (!status.ok()) {
      self->retry_or_fail(std::move(status));
      return;
    }
    self->send(id);
  });
}

void EtcdUnaryQueue::send(uint64_t attempt_id) {
  response_body_.clear();
  const Call& c = queue_.front();
  // The sink runs inside the connection's read completion, which holds this
  // queue alive (the completion below captures it).
  connection_->post(
      c.path, c.body,
      [this](int, std::string_view bytes) {
        response_body_.append(bytes);
        return true;
      },
      [self = shared_from_this(), attempt_id](Status status, int http_status) {
        if (self->shut_down_ || self->attempt_id_ != attempt_id) return;
        self->on_response(std::move(status), http_status);
      });
}

void EtcdUnaryQueue::on_response(Status status, int http_status) {
  if (!status.ok()) {
    retry_or_fail(std::move(status));
    return;
  }
  const std::string& where = connection_->endpoint().text;
  if (http_status != 200) {
    int grpc_code = 0;
    std::string message = error_message(response_body_, &grpc_code);
    Status error(ErrorCode::kCoordinationUnavailable,
                 "etcd " + where + ": HTTP " + std::to_string(http_status) + ": " + message);
    if (http_status >= 500) {
      retry_or_fail(std::move(error));
    } else {
      finish(std::move(error));
    }
    return;
  }
  nlohmann::json body = nlohmann::json::parse(response_body_, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    finish(Status(ErrorCode::kCoordinationUnavailable,
                  "etcd " + where + ": malformed response: body is not a JSON object"));
    return;
  }
  finish(std::move(body));
}

void EtcdUnaryQueue::retry_or_fail(Status status) {
  if (connection_) connection_->close();
  connection_.reset();
  Call& c = queue_.front();
  if (expired_ || std::chrono::steady_clock::now() >= c.deadline) {
    finish(Status(ErrorCode::kCoordinationUnavailable,
                  "etcd: no answer within " +
                      std::to_string(session_->options.request_timeout.count()) +
                      " ms (last: " + std::string(status.message()) + ")"));
    return;
  }
  if (c.attempts > 0) {
    finish(std::move(status));
    return;
  }
  ++c.attempts;
  session_->advance();
  arm_timer(c.deadline);
  attempt();
}

void EtcdUnaryQueue::finish(Result<nlohmann::json> result) {
  ++attempt_id_;
  timer_.cancel();
  Done done = std::move(queue_.front().done);
  queue_.pop_front();
  busy_ = false;
  // Posted: never inline from call(), and the user's code runs outside this
  // queue's state changes.
  asio::post(session_->io, [self = shared_from_this(), done = std::move(done),
                            result = std::move(result)]() mutable {
    if (!self->shut_down_) done(std::move(result));
  });
  pump();
}

}  // namespace spillway::broker::cluster::etcd
