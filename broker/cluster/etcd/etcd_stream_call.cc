#include "cluster/etcd/etcd_stream_call.h"

#include <asio/post.hpp>
#include <limits>

#include "cluster/etcd/etcd_json.h"

namespace spillway::broker::cluster::etcd {
namespace {

// An error answer is read for its message only.
constexpr size_t kMaxErrorBody = 4096;

}  // namespace

EtcdStreamCall::EtcdStreamCall(std::shared_ptr<EtcdSession> session, std::string path,
                               std::string body)
    : session_(std::move(session)),
      path_(std::move(path)),
      body_(std::move(body)),
      timer_(session_->io) {}

void EtcdStreamCall::start(OnMessage on_message, OnEnd on_end) {
  on_message_ = std::move(on_message);
  on_end_ = std::move(on_end);
  if (!session_->config_error.ok()) {
    asio::post(session_->io,
               [self = shared_from_this()] { self->end(self->session_->config_error); });
    return;
  }
  // As a unary call: half the time for the first attempt, the rest for the
  // retry on the next endpoint.
  deadline_ = std::chrono::steady_clock::now() + session_->options.request_timeout;
  arm_timer(std::chrono::steady_clock::now() + session_->options.request_timeout / 2);
  attempt();
}

void EtcdStreamCall::arm_timer(std::chrono::steady_clock::time_point when) {
  timer_.expires_at(when);
  timer_.async_wait([self = shared_from_this()](const std::error_code& ec) {
    if (ec || self->finished_ || self->got_message_) return;
    if (std::chrono::steady_clock::now() >= self->deadline_) self->expired_ = true;
    if (self->connection_) self->connection_->close();
  });
}

void EtcdStreamCall::cancel() {
  finished_ = true;
  timer_.cancel();
  if (connection_) connection_->close();
}

void EtcdStreamCall::attempt() {
  uint64_t id = ++attempt_id_;
  pending_.clear();
  error_body_.clear();
  error_ = Status::Ok();
  HttpLimits limits = session_->options.limits;
  // A stream's body never ends; what is kept of it is bounded per message.
  limits.max_body_bytes = std::numeric_limits<size_t>::max();
  connection_ = std::make_shared<HttpConnection>(session_->io, limits);
  connection_->connect(session_->endpoint(), [self = shared_from_this(), id](Status status) {
    if (self->finished_ || self->attempt_id_ != id) return;
    if (!status.ok()) {
      self->on_done(std::move(status), 0);
      return;
    }
    // The sink runs inside the connection's read completion, which holds
    // this call alive (the completion below captures it).
    EtcdStreamCall* call = self.get();
    self->connection_->post(
        self->path_, self->body_,
        [call](int http_status, std::string_view bytes) {
          return call->on_body(http_status, bytes);
        },
        [self, id](Status status, int http_status) {
          if (self->finished_ || self->attempt_id_ != id) return;
          self->on_done(std::move(status), http_status);
        });
  });
}

bool EtcdStreamCall::on_body(int http_status, std::string_view bytes) {
  if (finished_) return false;
  if (http_status != 200) {
    error_body_.append(
        bytes.substr(0, kMaxErrorBody - std::min(kMaxErrorBody, error_body_.size())));
    return true;
  }
  const size_t limit = session_->options.max_stream_message_bytes;
  while (!bytes.empty()) {
    size_t lf = bytes.find('\n');
    std::string_view piece = bytes.substr(0, lf);
    if (piece.size() > limit - std::min(limit, pending_.size())) {
      error_ = Status(ErrorCode::kCoordinationUnavailable, "etcd " + session_->endpoint().text +
                                                               ": stream message longer than " +
                                                               std::to_string(limit) + " bytes");
      return false;
    }
    pending_.append(piece);
    if (lf == std::string_view::npos) break;
    bytes.remove_prefix(lf + 1);
    if (pending_.find_first_not_of(" \t\r") == std::string::npos) {
      pending_.clear();
      continue;
    }
    nlohmann::json message = nlohmann::json::parse(pending_, nullptr, false);
    pending_.clear();
    if (message.is_discarded()) {
      error_ = Status(ErrorCode::kCoordinationUnavailable,
                      "etcd " + session_->endpoint().text + ": malformed stream message");
      return false;
    }
    if (!got_message_) {
      got_message_ = true;
      timer_.cancel();
    }
    if (!on_message_(message) || finished_) {
      finished_ = true;
      return false;
    }
  }
  return true;
}

void EtcdStreamCall::on_done(Status status, int http_status) {
  if (!error_.ok()) {
    end(std::move(error_));
    return;
  }
  if (status.ok() && http_status != 200) {
    int grpc_code = 0;
    std::string message = error_message(error_body_, &grpc_code);
    status = Status(ErrorCode::kCoordinationUnavailable,
                    "etcd " + session_->endpoint().text + ": HTTP " + std::to_string(http_status) +
                        ": " + message);
    if (http_status < 500) {
      end(std::move(status));
      return;
    }
  } else if (status.ok()) {
    status = Status(ErrorCode::kCoordinationUnavailable,
                    "etcd " + session_->endpoint().text + ": stream ended by the server");
  }
  if (expired_) {
    end(Status(ErrorCode::kCoordinationUnavailable,
               "etcd: no answer within " +
                   std::to_string(session_->options.request_timeout.count()) +
                   " ms (last: " + std::string(status.message()) + ")"));
    return;
  }
  if (!got_message_ && attempts_ == 0) {
    ++attempts_;
    if (connection_) connection_->close();
    session_->advance();
    arm_timer(deadline_);
    attempt();
    return;
  }
  end(std::move(status));
}

void EtcdStreamCall::end(Status status) {
  if (finished_) return;
  finished_ = true;
  timer_.cancel();
  if (connection_) connection_->close();
  OnEnd on_end = std::move(on_end_);
  on_message_ = nullptr;
  if (on_end) on_end(std::move(status));
}

}  // namespace spillway::broker::cluster::etcd
