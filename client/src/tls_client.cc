// Client TLS with OpenSSL on a non-blocking socket.
#include "tls_client.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace spillway::wire {

namespace {

constexpr std::size_t kStagingBytes = 16 * 1024;  // one full TLS record
// The encrypted records of a request are collected and sent with one
// write(): one wake-up of the broker per request instead of one per 16 KiB
// record (context switches, not the cipher, dominated the cost of TLS).
constexpr int kWriteBufferBytes = 512 * 1024;

std::string openssl_reason() {
  const unsigned long code = ERR_peek_last_error();
  std::string text;
  if (code != 0) {
    const char* reason = ERR_reason_error_string(code);
    text = reason != nullptr ? reason : "error " + std::to_string(code);
  }
  ERR_clear_error();
  return text;
}

bool is_ip_literal(const std::string& host) {
  unsigned char buf[16];
  return ::inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace

TlsClient::~TlsClient() {
  if (ssl_ != nullptr) SSL_free(ssl_);
  if (ctx_ != nullptr) SSL_CTX_free(ctx_);
}

Status TlsClient::wait(bool for_write, Clock::time_point deadline) {
  for (;;) {
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return Status(ErrorCode::kTimeout, "timed out");
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    pollfd p{fd_, static_cast<short>(for_write ? POLLOUT : POLLIN), 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(ms, INT32_MAX)));
    if (r > 0) return Status::Ok();
    if (r < 0 && errno != EINTR) {
      return Status(ErrorCode::kNotConnected, std::string("poll failed: ") + std::strerror(errno));
    }
  }
}

Status TlsClient::handshake(int fd, const std::string& address, const std::string& host,
                            const TlsOptions& options, Clock::time_point deadline) {
  fd_ = fd;
  auto failed = [&](std::string reason) {
    return Status(ErrorCode::kNotConnected,
                  "TLS handshake with " + address + " failed: " + std::move(reason));
  };
  ERR_clear_error();
  ctx_ = SSL_CTX_new(TLS_client_method());
  if (ctx_ == nullptr) return failed("cannot create a TLS context (" + openssl_reason() + ")");
  SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  if (!options.ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx_, options.ca_file.c_str(), nullptr) != 1) {
      return failed("cannot load the CA file \"" + options.ca_file + "\" (" + openssl_reason() +
                    ")");
    }
  } else if (SSL_CTX_set_default_verify_paths(ctx_) != 1) {
    return failed("cannot load the system's trusted CAs (" + openssl_reason() + ")");
  }
  if (!options.cert_file.empty() || !options.key_file.empty()) {
    if (options.cert_file.empty() || options.key_file.empty()) {
      return failed("a client certificate needs both a certificate and a key file");
    }
    if (SSL_CTX_use_certificate_chain_file(ctx_, options.cert_file.c_str()) != 1) {
      return failed("cannot load the client certificate \"" + options.cert_file + "\" (" +
                    openssl_reason() + ")");
    }
    if (SSL_CTX_use_PrivateKey_file(ctx_, options.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx_) != 1) {
      return failed("cannot load the client key \"" + options.key_file + "\" (" + openssl_reason() +
                    ")");
    }
  }
  SSL_CTX_set_mode(ctx_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // Several records per read() for large fetch responses (what is read
  // ahead counts in pending()).
  SSL_CTX_set_read_ahead(ctx_, 1);
  SSL_CTX_set_default_read_buffer_len(ctx_, 64 * 1024);
  ssl_ = SSL_new(ctx_);
  BIO* socket_bio = BIO_new_socket(fd, BIO_NOCLOSE);
  BIO* buffered = BIO_new(BIO_f_buffer());
  if (ssl_ == nullptr || socket_bio == nullptr || buffered == nullptr ||
      BIO_set_write_buffer_size(buffered, kWriteBufferBytes) != 1) {
    BIO_free(socket_bio);
    BIO_free(buffered);
    return failed("cannot create a TLS connection (" + openssl_reason() + ")");
  }
  BIO_up_ref(socket_bio);  // one reference for each direction
  BIO_push(buffered, socket_bio);
  // Reads straight from the socket; writes through the buffer (flush()).
  SSL_set_bio(ssl_, socket_bio, buffered);
  const std::string& name = options.server_name.empty() ? host : options.server_name;
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
  if (is_ip_literal(name)) {
    X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str());
  } else {
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    X509_VERIFY_PARAM_set1_host(param, name.c_str(), 0);
    SSL_set_tlsext_host_name(ssl_, name.c_str());
  }
  for (;;) {
    const int r = SSL_connect(ssl_);
    if (r == 1) break;
    const int err = SSL_get_error(ssl_, r);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      Status st = wait(err == SSL_ERROR_WANT_WRITE, deadline);
      if (!st.ok()) return failed(std::string(st.message()));
      continue;
    }
    const long verify = SSL_get_verify_result(ssl_);
    std::string reason = openssl_reason();
    if (verify != X509_V_OK) {
      reason = (reason.empty() ? std::string("certificate verify failed") : reason) + " (" +
               X509_verify_cert_error_string(verify) + ")";
    } else if (reason.empty()) {
      reason = err == SSL_ERROR_SYSCALL || err == SSL_ERROR_ZERO_RETURN
                   ? "the broker closed the connection (is it a TLS listener?)"
                   : "TLS error " + std::to_string(err);
    }
    return failed(reason);
  }
  staging_ = std::make_unique_for_overwrite<std::byte[]>(kStagingBytes);
  return Status::Ok();
}

Status TlsClient::write_all(const std::byte* data, std::size_t n, Clock::time_point deadline) {
  while (n > 0) {
    const int r = SSL_write(ssl_, data, static_cast<int>(std::min<std::size_t>(n, INT32_MAX)));
    if (r > 0) {
      data += r;
      n -= static_cast<std::size_t>(r);
      continue;
    }
    const int err = SSL_get_error(ssl_, r);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      SPILLWAY_RETURN_IF_ERROR(wait(err == SSL_ERROR_WANT_WRITE, deadline));
      continue;
    }
    const std::string reason = openssl_reason();
    return Status(ErrorCode::kNotConnected,
                  "TLS write failed: " + (reason.empty() ? std::strerror(errno) : reason));
  }
  return Status::Ok();
}

Status TlsClient::write(std::span<const iovec> segments, Clock::time_point deadline) {
  std::size_t staged = 0;
  for (const iovec& v : segments) {
    const auto* p = static_cast<const std::byte*>(v.iov_base);
    std::size_t n = v.iov_len;
    if (n >= kStagingBytes) {
      // Large: flush what is staged, then write it in place.
      if (staged > 0) SPILLWAY_RETURN_IF_ERROR(write_all(staging_.get(), staged, deadline));
      staged = 0;
      SPILLWAY_RETURN_IF_ERROR(write_all(p, n, deadline));
      continue;
    }
    while (n > 0) {
      const std::size_t take = std::min(n, kStagingBytes - staged);
      std::memcpy(staging_.get() + staged, p, take);
      staged += take;
      p += take;
      n -= take;
      if (staged == kStagingBytes) {
        SPILLWAY_RETURN_IF_ERROR(write_all(staging_.get(), staged, deadline));
        staged = 0;
      }
    }
  }
  if (staged > 0) SPILLWAY_RETURN_IF_ERROR(write_all(staging_.get(), staged, deadline));
  return flush(deadline);
}

Status TlsClient::flush(Clock::time_point deadline) {
  BIO* out = SSL_get_wbio(ssl_);
  for (;;) {
    errno = 0;
    if (BIO_flush(out) > 0) return Status::Ok();
    if (!BIO_should_retry(out)) {
      const std::string reason = openssl_reason();
      return Status(ErrorCode::kNotConnected,
                    "TLS write failed: " + (reason.empty() ? std::strerror(errno) : reason));
    }
    SPILLWAY_RETURN_IF_ERROR(wait(true, deadline));
  }
}

Status TlsClient::read_some(std::byte* dst, std::size_t n, std::size_t* got) {
  *got = 0;
  errno = 0;
  const int r = SSL_read(ssl_, dst, static_cast<int>(std::min<std::size_t>(n, INT32_MAX)));
  if (r > 0) {
    *got = static_cast<std::size_t>(r);
    return Status::Ok();
  }
  const int err = SSL_get_error(ssl_, r);
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) return Status::Ok();
  if (err == SSL_ERROR_ZERO_RETURN) {
    return Status(ErrorCode::kNotConnected, "broker closed the connection");
  }
  std::string reason = openssl_reason();
  if (reason.empty()) {
    reason = err == SSL_ERROR_SYSCALL && errno != 0 ? std::string(std::strerror(errno))
                                                    : "broker closed the connection";
  }
  return Status(ErrorCode::kNotConnected, "TLS: " + reason);
}

bool TlsClient::pending() const {
  return ssl_ != nullptr && SSL_has_pending(ssl_) == 1;
}

}  // namespace spillway::wire
