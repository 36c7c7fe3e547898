// Shared by the TLS tests: a test PKI per test, brokers with TLS
// listeners, kcat and the CLI as child processes, and a minimal OpenSSL
// client that reports what the broker presented.
#pragma once

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "test_pki.h"

namespace spillway::testing {

inline constexpr const char* kKcat = "/usr/bin/kcat";

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A blocking TCP connection to 127.0.0.1:port; -1 on failure.
inline int connect_local(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{30, 0};  // against hanging only
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

// What a TLS handshake with the broker gave: the subject of the certificate
// it presented (RFC 2253), or the error.
struct Handshake {
  bool ok = false;
  std::string subject;
  std::string error;
  std::string response;  // after `request` was written, everything read
};

// Connects to 127.0.0.1:port with TLS, trusting `ca`, optionally with a
// client certificate; writes `request` (if any) and reads until the broker
// closes.
inline Handshake tls_probe(uint16_t port, const std::string& ca, const CertFiles* client = nullptr,
                           const std::string& request = "") {
  Handshake out;
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  if (client != nullptr) {
    SSL_CTX_use_certificate_chain_file(ctx, client->cert.c_str());
    SSL_CTX_use_PrivateKey_file(ctx, client->key.c_str(), SSL_FILETYPE_PEM);
  }
  const int fd = connect_local(port);
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  if (SSL_connect(ssl) == 1) {
    out.ok = true;
    X509* cert = SSL_get0_peer_certificate(ssl);
    BIO* bio = BIO_new(BIO_s_mem());
    X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    out.subject.assign(data, static_cast<size_t>(n));
    BIO_free(bio);
    if (!request.empty()) {
      SSL_write(ssl, request.data(), static_cast<int>(request.size()));
      char buf[4096];
      for (;;) {
        const int r = SSL_read(ssl, buf, sizeof(buf));
        if (r <= 0) break;
        out.response.append(buf, static_cast<size_t>(r));
      }
    }
  } else {
    char text[256] = "";
    ERR_error_string_n(ERR_get_error(), text, sizeof(text));
    out.error = text;
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  if (fd >= 0) ::close(fd);
  return out;
}

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto pki = make_test_pki(dir_.path());
    ASSERT_TRUE(pki.ok()) << pki.status().to_string();
    pki_ = *pki;
  }

  // A broker with a PLAINTEXT native listener (the default), a Kafka SSL
  // listener and a native SSL listener using `server`, plus `extra` flags.
  std::unique_ptr<BrokerProcess> start_broker(const CertFiles& server,
                                              std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {
        "--kafka-listeners",      "SSL://127.0.0.1:0", "--listeners",           "SSL://127.0.0.1:0",
        "--tls-kafka-cert-file",  server.cert,         "--tls-kafka-key-file",  server.key,
        "--tls-native-cert-file", server.cert,         "--tls-native-key-file", server.key};
    args.insert(args.end(), extra.begin(), extra.end());
    auto broker = BrokerProcess::start({.args = args});
    EXPECT_TRUE(broker.ok()) << broker.status().to_string();
    if (!broker.ok()) return nullptr;
    return std::move(broker).value();
  }

  std::vector<std::string> mtls_flags() const {
    return {"--tls-kafka-client-ca-file",  pki_.ca, "--tls-kafka-client-auth",  "required",
            "--tls-native-client-ca-file", pki_.ca, "--tls-native-client-auth", "required"};
  }

  ProcessExit run(const std::string& binary, const std::vector<std::string>& args) {
    Result<ProcessExit> r = run_process(binary, args, std::chrono::seconds(60));
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.ok() ? *r : ProcessExit{};
  }

  // kcat against the broker's Kafka SSL listener, trusting `ca`.
  ProcessExit kcat(const BrokerProcess& broker, const std::string& ca,
                   std::vector<std::string> args) {
    std::vector<std::string> all = {
        "-b", "127.0.0.1:" + std::to_string(broker.listener_port("kafka SSL")),
        "-X", "security.protocol=SSL",
        "-X", "ssl.ca.location=" + ca,
        "-X", "socket.timeout.ms=10000",
        "-m", "10"};
    all.insert(all.end(), args.begin(), args.end());
    return run(kKcat, all);
  }

  ProcessExit cli(const std::vector<std::string>& args) { return run(cli_binary(), args); }

  std::string ssl_native(const BrokerProcess& broker) const {
    return "127.0.0.1:" + std::to_string(broker.listener_port("native SSL"));
  }

  std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = (dir_.path() / name).string();
    std::ofstream(path) << text;
    return path;
  }

  // Waits (bounded, against hanging) until the broker's log contains `text`.
  static bool wait_for_log(const BrokerProcess& broker, const std::string& text) {
    const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < guard) {
      if (contains(broker.log(), text)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  TempDir dir_;
  TestPki pki_;
};

}  // namespace spillway::testing
