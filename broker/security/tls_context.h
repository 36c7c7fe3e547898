// Server-side TLS: the settings of one listener kind ([tls] kafka_*,
// native_*, metrics_* in the config), the OpenSSL context built from them,
// and the holder that swaps in a freshly built context on SIGHUP (new
// connections get it; established ones keep the one they started with,
// held by their shared_ptr).
#pragma once

#include <asio/ssl/context.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "../config/broker_config.h"
#include "principal_mapping.h"
#include "spillway/common/status.h"

namespace spillway::broker::security {

enum class ClientAuth { kNone, kRequested, kRequired };

struct TlsSettings {
  std::string kind;  // "kafka", "native", "metrics": names the keys in errors
  std::string cert_file;
  std::string key_file;
  std::string client_ca_file;  // empty: no client certificates asked for
  ClientAuth client_auth = ClientAuth::kNone;
  std::string min_version = "1.2";
  std::string ciphers;
};

// The settings of `kind` ("kafka", "native" or "metrics") from `config`.
TlsSettings tls_settings(const BrokerConfig& config, std::string_view kind);

// A server context: certificate chain and key (checked to match), TLS 1.2
// or 1.3 minimum, the cipher list (TLS 1.2), client verification. Error
// (kConfig) names the [tls] key and the file at fault and OpenSSL's reason.
Result<std::shared_ptr<asio::ssl::context>> build_server_context(const TlsSettings& settings);

// A listener kind's current context. Thread-safe.
class TlsContextSource {
 public:
  TlsContextSource(TlsSettings settings, std::shared_ptr<asio::ssl::context> context)
      : settings_(std::move(settings)), context_(std::move(context)) {}
  std::shared_ptr<asio::ssl::context> current() const {
    std::lock_guard lock(mu_);
    return context_;
  }
  // Re-reads the files; on error the current context stays and the error
  // is returned.
  Status reload();
  const TlsSettings& settings() const { return settings_; }

 private:
  const TlsSettings settings_;
  mutable std::mutex mu_;
  std::shared_ptr<asio::ssl::context> context_;
};

// The verified client certificate's subject in RFC 2253 form
// ("CN=alice,OU=eng,O=Example"), or empty when the peer sent none or it
// was not verified.
std::string verified_peer_subject(SSL* ssl);

// The last OpenSSL error as text ("certificate verify failed", ...).
std::string openssl_error_text(unsigned long code);

}  // namespace spillway::broker::security
