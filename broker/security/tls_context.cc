// Building OpenSSL server contexts from the [tls] settings.
#include "tls_context.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <fstream>

namespace spillway::broker::security {

namespace {

Status file_error(const TlsSettings& s, std::string_view key, const std::string& file,
                  std::string_view what) {
  return Status(ErrorCode::kConfig, "[tls] " + s.kind + "_" + std::string(key) + " \"" + file +
                                        "\": " + std::string(what));
}

std::string last_error() {
  const unsigned long code = ERR_peek_last_error();
  std::string text = code == 0 ? std::string("unknown error") : openssl_error_text(code);
  ERR_clear_error();
  return text;
}

bool readable(const std::string& path) {
  return std::ifstream(path).good();
}

}  // namespace

std::string openssl_error_text(unsigned long code) {
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? std::string(reason) : "error " + std::to_string(code);
}

TlsSettings tls_settings(const BrokerConfig& c, std::string_view kind) {
  TlsSettings s;
  s.kind = std::string(kind);
  const std::string* auth = nullptr;
  if (kind == "kafka") {
    s.cert_file = c.tls_kafka_cert_file;
    s.key_file = c.tls_kafka_key_file;
    s.client_ca_file = c.tls_kafka_client_ca_file;
    auth = &c.tls_kafka_client_auth;
  } else if (kind == "native") {
    s.cert_file = c.tls_native_cert_file;
    s.key_file = c.tls_native_key_file;
    s.client_ca_file = c.tls_native_client_ca_file;
    auth = &c.tls_native_client_auth;
  } else {
    s.cert_file = c.tls_metrics_cert_file;
    s.key_file = c.tls_metrics_key_file;
    s.client_ca_file = c.tls_metrics_client_ca_file;
    auth = &c.tls_metrics_client_auth;
  }
  s.client_auth = *auth == "required"    ? ClientAuth::kRequired
                  : *auth == "requested" ? ClientAuth::kRequested
                                         : ClientAuth::kNone;
  s.min_version = c.tls_min_version;
  s.ciphers = c.tls_ciphers;
  return s;
}

Result<std::shared_ptr<asio::ssl::context>> build_server_context(const TlsSettings& s) {
  if (s.cert_file.empty()) {
    return Status(ErrorCode::kConfig, "a " + s.kind + " TLS listener needs [tls] " + s.kind +
                                          "_cert_file (and " + s.kind + "_key_file)");
  }
  if (s.key_file.empty()) {
    return Status(ErrorCode::kConfig,
                  "a " + s.kind + " TLS listener needs [tls] " + s.kind + "_key_file");
  }
  if (s.client_auth != ClientAuth::kNone && s.client_ca_file.empty()) {
    return Status(ErrorCode::kConfig, "[tls] " + s.kind + "_client_auth needs [tls] " + s.kind +
                                          "_client_ca_file (the CA client certificates come from)");
  }
  ERR_clear_error();
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_options(
      native, SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_min_proto_version(native, s.min_version == "1.3" ? TLS1_3_VERSION : TLS1_2_VERSION);
  // Kafka clients do not resume sessions; no tickets saves a write per
  // handshake.
  SSL_CTX_set_num_tickets(native, 0);
  SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_OFF);
  // TLS 1.3: AES-128-GCM first (the server's preference decides): as safe
  // for this use and measurably cheaper per byte than AES-256 on the
  // produce path.
  SSL_CTX_set_ciphersuites(native,
                           "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:"
                           "TLS_CHACHA20_POLY1305_SHA256");
  if (!s.ciphers.empty() && SSL_CTX_set_cipher_list(native, s.ciphers.c_str()) != 1) {
    return Status(ErrorCode::kConfig,
                  "[tls] ciphers \"" + s.ciphers + "\": no usable cipher (" + last_error() + ")");
  }
  if (!readable(s.cert_file)) return file_error(s, "cert_file", s.cert_file, "cannot be read");
  if (SSL_CTX_use_certificate_chain_file(native, s.cert_file.c_str()) != 1) {
    return file_error(s, "cert_file", s.cert_file,
                      "not a PEM certificate chain (" + last_error() + ")");
  }
  if (!readable(s.key_file)) return file_error(s, "key_file", s.key_file, "cannot be read");
  if (SSL_CTX_use_PrivateKey_file(native, s.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    const bool mismatch = ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH;
    return file_error(s, "key_file", s.key_file,
                      (mismatch ? "does not match the certificate in " + s.kind + "_cert_file ("
                                : std::string("not an unencrypted PEM private key (")) +
                          last_error() + ")");
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    return file_error(
        s, "key_file", s.key_file,
        "does not match the certificate in " + s.kind + "_cert_file (" + last_error() + ")");
  }
  if (!s.client_ca_file.empty()) {
    if (!readable(s.client_ca_file)) {
      return file_error(s, "client_ca_file", s.client_ca_file, "cannot be read");
    }
    if (SSL_CTX_load_verify_locations(native, s.client_ca_file.c_str(), nullptr) != 1) {
      return file_error(s, "client_ca_file", s.client_ca_file,
                        "not a PEM CA certificate (" + last_error() + ")");
    }
    // The CA names sent in the CertificateRequest, so clients pick the
    // right certificate.
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(s.client_ca_file.c_str());
    if (names != nullptr) SSL_CTX_set_client_CA_list(native, names);
  }
  int mode = SSL_VERIFY_NONE;
  if (s.client_auth == ClientAuth::kRequested) mode = SSL_VERIFY_PEER;
  if (s.client_auth == ClientAuth::kRequired) {
    mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  }
  SSL_CTX_set_verify(native, mode, nullptr);
  ERR_clear_error();
  return ctx;
}

Status TlsContextSource::reload() {
  Result<std::shared_ptr<asio::ssl::context>> fresh = build_server_context(settings_);
  if (!fresh.ok()) return fresh.status();
  std::lock_guard lock(mu_);
  context_ = std::move(fresh).value();
  return Status::Ok();
}

std::string verified_peer_subject(SSL* ssl) {
  X509* cert = SSL_get0_peer_certificate(ssl);
  if (cert == nullptr || SSL_get_verify_result(ssl) != X509_V_OK) return {};
  BIO* bio = BIO_new(BIO_s_mem());
  if (bio == nullptr) return {};
  std::string out;
  if (X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0,
                         XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB) >= 0) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    if (n > 0) out.assign(data, static_cast<size_t>(n));
  }
  BIO_free(bio);
  return out;
}

}  // namespace spillway::broker::security
