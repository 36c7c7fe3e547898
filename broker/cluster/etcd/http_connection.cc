#include "cluster/etcd/http_connection.h"

#include <asio/connect.hpp>
#include <asio/write.hpp>

namespace spillway::broker::cluster::etcd {

HttpConnection::HttpConnection(asio::io_context& io, HttpLimits limits)
    : resolver_(io), socket_(io), parser_(limits) {}

Status HttpConnection::transport_error(const char* what, const std::error_code& ec) const {
  std::string message = "etcd " + endpoint_.text + ": " + what;
  if (closed_) {
    message += ": connection closed";
  } else if (ec) {
    message += ": " + ec.message();
  }
  return Status(ErrorCode::kCoordinationUnavailable, std::move(message));
}

void HttpConnection::connect(const EtcdEndpoint& endpoint, std::function<void(Status)> done) {
  endpoint_ = endpoint;
  resolver_.async_resolve(
      endpoint_.host, std::to_string(endpoint_.port),
      [self = shared_from_this(), done = std::move(done)](
          const std::error_code& ec, asio::ip::tcp::resolver::results_type results) mutable {
        if (ec || self->closed_) {
          done(self->transport_error("cannot resolve", ec));
          return;
        }
        asio::async_connect(self->socket_, results,
                            [self, done = std::move(done)](const std::error_code& ec,
                                                           const asio::ip::tcp::endpoint&) {
                              if (ec || self->closed_) {
                                done(self->transport_error("cannot connect", ec));
                                return;
                              }
                              std::error_code ignored;
                              self->socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
                              self->open_ = true;
                              done(Status::Ok());
                            });
      });
}

void HttpConnection::post(std::string_view path, std::string_view body,
                          HttpResponseParser::BodySink sink, Done done) {
  request_.clear();
  request_.append("POST ").append(path).append(" HTTP/1.1\r\nHost: ").append(endpoint_.host);
  request_.append(":").append(std::to_string(endpoint_.port));
  request_.append("\r\nContent-Type: application/json\r\nAccept: application/json\r\n");
  request_.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n\r\n");
  request_.append(body);
  parser_.reset(std::move(sink));
  reusable_ = false;  // until this response ends cleanly
  asio::async_write(socket_, asio::buffer(request_),
                    [self = shared_from_this(), done = std::move(done)](const std::error_code& ec,
                                                                        size_t) mutable {
                      if (ec || self->closed_) {
                        Status st = self->transport_error("cannot send", ec);
                        self->close();
                        done(std::move(st), 0);
                        return;
                      }
                      self->read_more(std::move(done));
                    });
}

void HttpConnection::read_more(Done done) {
  socket_.async_read_some(
      asio::buffer(buffer_), [self = shared_from_this(), done = std::move(done)](
                                 const std::error_code& ec, size_t n) mutable {
        if (self->closed_) {
          done(self->transport_error("cannot receive", ec), 0);
          return;
        }
        Status st;
        if (n > 0) st = self->parser_.feed(std::string_view(self->buffer_.data(), n));
        if (st.ok() && ec == asio::error::eof) st = self->parser_.feed_eof();
        if (!st.ok()) {
          self->close();
          done(std::move(st), 0);
          return;
        }
        if (self->parser_.complete() || self->parser_.stopped()) {
          self->reusable_ = self->parser_.complete() && self->parser_.keep_alive();
          if (!self->reusable_) self->close();
          done(Status::Ok(), self->parser_.status_code());
          return;
        }
        if (ec) {
          Status error = self->transport_error("cannot receive", ec);
          self->close();
          done(std::move(error), 0);
          return;
        }
        self->read_more(std::move(done));
      });
}

void HttpConnection::close() {
  closed_ = true;
  open_ = false;
  std::error_code ignored;
  resolver_.cancel();
  socket_.close(ignored);
}

}  // namespace spillway::broker::cluster::etcd
