// EtcdSession: what every call of one EtcdKvStore shares: the io_context,
// the options, the endpoints and which of them requests go to now. A call
// that cannot reach the current endpoint (connect or transport error, or an
// HTTP 5xx) moves it to the next and retries there once; the endpoint that
// worked is then kept for the calls that follow.
#pragma once

#include <asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "cluster/etcd/etcd_endpoint.h"
#include "cluster/etcd/http_response_parser.h"
#include "spillway/common/status.h"

namespace spillway::broker::cluster::etcd {

struct EtcdOptions {
  // A unary call, and a stream until its first message, fail with
  // kCoordinationUnavailable after this long (retries included).
  std::chrono::milliseconds request_timeout{5000};
  // Headers and unary bodies.
  HttpLimits limits;
  // One message of a stream (a watch response with its events).
  size_t max_stream_message_bytes = 1024 * 1024;
};

struct EtcdSession {
  EtcdSession(asio::io_context& io_context, const std::vector<std::string>& urls, EtcdOptions opts);

  const EtcdEndpoint& endpoint() const { return endpoints[current]; }
  void advance() { current = (current + 1) % endpoints.size(); }

  asio::io_context& io;
  EtcdOptions options;
  std::vector<EtcdEndpoint> endpoints;
  // Not ok when the list was empty or an endpoint did not parse: every call
  // then fails with it.
  Status config_error;
  size_t current = 0;
};

}  // namespace spillway::broker::cluster::etcd
