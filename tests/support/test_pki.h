// A throw-away PKI for TLS tests, made with the OpenSSL API into a
// directory: a CA, certificates it signs (server ones valid for 127.0.0.1
// and localhost), an expired one, and a second CA nobody trusts. EC P-256
// keys, so making them is quick. Every file is PEM; keys are unencrypted.
#pragma once

#include <filesystem>
#include <string>

#include "spillway/common/status.h"

namespace spillway::testing {

struct CertFiles {
  std::string cert;  // the certificate (PEM)
  std::string key;   // its private key (PEM)
};

struct TestPki {
  std::string ca;              // the trusted CA's certificate
  std::string untrusted_ca;    // another CA's certificate
  CertFiles server;            // CN=localhost, SAN 127.0.0.1 and localhost, by the CA
  CertFiles server_expired;    // the same names, expired yesterday
  CertFiles server_untrusted;  // the same names, by the untrusted CA
  CertFiles client;            // "CN=alice,OU=eng,O=Example" by the CA
  CertFiles client_expired;    // "CN=old,O=Example", expired
  CertFiles client_untrusted;  // "CN=mallory,O=Elsewhere", by the untrusted CA
};

// Writes the PKI into `dir`. Error: kIoError with OpenSSL's reason.
Result<TestPki> make_test_pki(const std::filesystem::path& dir);

// One more server certificate for 127.0.0.1/localhost by the trusted CA of
// a PKI made in `dir`, with subject CN=`common_name`, written to
// dir/NAME.pem and dir/NAME.key (e.g. for a reload).
Result<CertFiles> issue_server_cert(const std::filesystem::path& dir, const std::string& name,
                                    const std::string& common_name);

}  // namespace spillway::testing
