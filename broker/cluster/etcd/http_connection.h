// HttpConnection: one HTTP/1.1 client connection to an etcd member, for
// POSTs of JSON, one exchange at a time (no pipelining: the owner queues).
// A response's body reaches the caller's sink as it is decoded, so the same
// connection type serves unary calls (the sink collects the body) and
// etcd's streaming calls (watch, lease keep-alive: the sink splits lines).
//
// Threading: all calls and completions on the io_context given. close()
// may be called at any time (an owner's deadline): the pending operation
// then completes with an error. Completions hold a shared_ptr to the
// connection, so it lives until they have run.
#pragma once

#include <array>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "cluster/etcd/etcd_endpoint.h"
#include "cluster/etcd/http_response_parser.h"
#include "spillway/common/status.h"

namespace spillway::broker::cluster::etcd {

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  // `ok` Status and the response's status code once the whole response
  // was read (or the sink stopped it); a kCoordinationUnavailable Status
  // on a transport or framing error (the connection is then closed).
  using Done = std::function<void(Status status, int http_status)>;

  HttpConnection(asio::io_context& io, HttpLimits limits);

  // Resolves and connects to `endpoint`. Call once.
  void connect(const EtcdEndpoint& endpoint, std::function<void(Status)> done);

  // POSTs `body` (JSON) to `path` and reads the response, passing its body
  // to `sink`. Precondition: connected, and no exchange in progress.
  void post(std::string_view path, std::string_view body, HttpResponseParser::BodySink sink,
            Done done);

  // Closes the socket; a pending connect or exchange completes with an error.
  void close();

  // Connected, not closed, and the last response allows another request.
  bool reusable() const { return open_ && reusable_; }
  const EtcdEndpoint& endpoint() const { return endpoint_; }

 private:
  void read_more(Done done);
  Status transport_error(const char* what, const std::error_code& ec) const;

  asio::ip::tcp::resolver resolver_;
  asio::ip::tcp::socket socket_;
  HttpResponseParser parser_;
  EtcdEndpoint endpoint_;
  std::string request_;
  std::array<char, 16 * 1024> buffer_;
  bool open_ = false;
  bool closed_ = false;
  bool reusable_ = true;
};

}  // namespace spillway::broker::cluster::etcd
