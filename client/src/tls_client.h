// The client side of TLS on a Channel's socket: verifies the broker's
// certificate (against TlsOptions::ca_file or the system's trust store) and
// its name (server_name, else the host of the broker address: a DNS name or
// an IP address), sends SNI, and presents a client certificate when one is
// configured (mutual TLS). The socket is non-blocking; every call waits
// with poll() up to its deadline, so a stalled broker cannot hang a client.
//
// Writes gather a request's segments into a staging buffer that is kept
// and reused (one TLS record per 16 KiB instead of one per segment), and
// the request's records leave in one write() (a buffering BIO), so
// steady produce/fetch traffic allocates nothing here (OpenSSL keeps its
// record buffers per connection).
#pragma once

#include <openssl/ssl.h>
#include <sys/uio.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "spillway/common/status.h"
#include "spillway/connection.h"

namespace spillway::wire {

class TlsClient {
 public:
  using Clock = std::chrono::steady_clock;
  TlsClient() = default;
  ~TlsClient();
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  // Runs the handshake on the connected socket `fd` (made non-blocking)
  // with the broker at `address` (its `host` part is checked against the
  // certificate unless options.server_name is set). Error kNotConnected:
  // "TLS handshake with ADDRESS failed: REASON".
  Status handshake(int fd, const std::string& address, const std::string& host,
                   const TlsOptions& options, Clock::time_point deadline);

  // Sends every byte of `segments` by `deadline`. Error: the reason text.
  Status write(std::span<const iovec> segments, Clock::time_point deadline);
  // Reads 1..n bytes. 0 with ok: nothing now (wait for the socket). Error
  // kNotConnected: closed by the broker, or the TLS error (e.g. the
  // broker's alert refusing the client certificate).
  Status read_some(std::byte* dst, std::size_t n, std::size_t* got);
  // Bytes already decrypted or received and not yet read: poll() on the
  // socket would not show them.
  bool pending() const;

 private:
  Status write_all(const std::byte* data, std::size_t n, Clock::time_point deadline);
  // Sends what the write buffer holds.
  Status flush(Clock::time_point deadline);
  Status wait(bool for_write, Clock::time_point deadline);

  int fd_ = -1;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
  std::unique_ptr<std::byte[]> staging_;
};

}  // namespace spillway::wire
