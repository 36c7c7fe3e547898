// Test PKI generation with the OpenSSL 3 API.
#include "test_pki.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

namespace spillway::testing {
namespace {

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
  void operator()(X509* c) const { X509_free(c); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

Status ssl_error(const std::string& what) {
  const unsigned long code = ERR_get_error();
  char text[256] = "unknown";
  if (code != 0) ERR_error_string_n(code, text, sizeof(text));
  ERR_clear_error();
  return Status(ErrorCode::kIoError, "test PKI: " + what + ": " + text);
}

struct Issued {
  Key key;
  Cert cert;
};

// `subject`: (field, value) pairs, most significant first (O before CN).
// `days_from`/`days_to`: validity relative to now. `issuer` null = self-signed CA.
Result<Issued> issue(const std::vector<std::pair<std::string, std::string>>& subject,
                     const Issued* issuer, bool ca, bool server, long days_from, long days_to) {
  static long serial = 1;
  Issued out;
  out.key.reset(EVP_EC_gen("P-256"));
  if (!out.key) return ssl_error("key generation");
  out.cert.reset(X509_new());
  X509* c = out.cert.get();
  X509_set_version(c, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(c), serial++);
  X509_gmtime_adj(X509_getm_notBefore(c), days_from * 86400);
  X509_gmtime_adj(X509_getm_notAfter(c), days_to * 86400);
  X509_NAME* name = X509_get_subject_name(c);
  for (const auto& [field, value] : subject) {
    if (X509_NAME_add_entry_by_txt(name, field.c_str(), MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1,
                                   0) != 1) {
      return ssl_error("subject " + field);
    }
  }
  X509_set_issuer_name(c, issuer ? X509_get_subject_name(issuer->cert.get()) : name);
  X509_set_pubkey(c, out.key.get());
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer ? issuer->cert.get() : c, c, nullptr, nullptr, 0);
  std::vector<std::pair<int, std::string>> extensions;
  if (ca) {
    extensions = {{NID_basic_constraints, "critical,CA:TRUE"},
                  {NID_key_usage, "critical,keyCertSign,cRLSign"},
                  {NID_subject_key_identifier, "hash"}};
  } else {
    extensions = {{NID_basic_constraints, "CA:FALSE"},
                  {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
                  {NID_ext_key_usage, server ? "serverAuth" : "clientAuth"},
                  {NID_authority_key_identifier, "keyid"}};
    if (server) extensions.emplace_back(NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
  }
  for (const auto& [nid, value] : extensions) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    if (ext == nullptr) return ssl_error("extension " + value);
    X509_add_ext(c, ext, -1);
    X509_EXTENSION_free(ext);
  }
  if (X509_sign(c, issuer ? issuer->key.get() : out.key.get(), EVP_sha256()) == 0) {
    return ssl_error("signing");
  }
  return out;
}

Status write_pem(const Issued& issued, const std::filesystem::path& dir, const std::string& name,
                 CertFiles* files) {
  files->cert = (dir / (name + ".pem")).string();
  files->key = (dir / (name + ".key")).string();
  FILE* f = std::fopen(files->cert.c_str(), "w");
  if (f == nullptr) return Status(ErrorCode::kIoError, "test PKI: cannot write " + files->cert);
  PEM_write_X509(f, issued.cert.get());
  std::fclose(f);
  f = std::fopen(files->key.c_str(), "w");
  if (f == nullptr) return Status(ErrorCode::kIoError, "test PKI: cannot write " + files->key);
  PEM_write_PrivateKey(f, issued.key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(f);
  return Status::Ok();
}

Result<Issued> read_ca(const std::filesystem::path& dir) {
  Issued ca;
  FILE* f = std::fopen((dir / "ca.pem").c_str(), "r");
  if (f == nullptr) return Status(ErrorCode::kIoError, "test PKI: no ca.pem");
  ca.cert.reset(PEM_read_X509(f, nullptr, nullptr, nullptr));
  std::fclose(f);
  f = std::fopen((dir / "ca.key").c_str(), "r");
  if (f == nullptr) return Status(ErrorCode::kIoError, "test PKI: no ca.key");
  ca.key.reset(PEM_read_PrivateKey(f, nullptr, nullptr, nullptr));
  std::fclose(f);
  if (!ca.cert || !ca.key) return ssl_error("reading the CA");
  return ca;
}

}  // namespace

Result<TestPki> make_test_pki(const std::filesystem::path& dir) {
  TestPki pki;
  CertFiles files;
  auto ca =
      issue({{"O", "Spillway Test"}, {"CN", "Spillway Test CA"}}, nullptr, true, false, -1, 30);
  if (!ca.ok()) return ca.status();
  SPILLWAY_RETURN_IF_ERROR(write_pem(*ca, dir, "ca", &files));
  pki.ca = files.cert;
  auto other = issue({{"O", "Elsewhere"}, {"CN", "Untrusted CA"}}, nullptr, true, false, -1, 30);
  if (!other.ok()) return other.status();
  SPILLWAY_RETURN_IF_ERROR(write_pem(*other, dir, "untrusted-ca", &files));
  pki.untrusted_ca = files.cert;

  struct Spec {
    const char* name;
    std::vector<std::pair<std::string, std::string>> subject;
    const Issued* issuer;
    bool server;
    long from, to;
    CertFiles* out;
  };
  const std::vector<std::pair<std::string, std::string>> localhost = {{"O", "Spillway Test"},
                                                                      {"CN", "localhost"}};
  const Spec specs[] = {
      {"server", localhost, &*ca, true, -1, 30, &pki.server},
      {"server-expired", localhost, &*ca, true, -30, -1, &pki.server_expired},
      {"server-untrusted", localhost, &*other, true, -1, 30, &pki.server_untrusted},
      {"client",
       {{"O", "Example"}, {"OU", "eng"}, {"CN", "alice"}},
       &*ca,
       false,
       -1,
       30,
       &pki.client},
      {"client-expired",
       {{"O", "Example"}, {"CN", "old"}},
       &*ca,
       false,
       -30,
       -1,
       &pki.client_expired},
      {"client-untrusted",
       {{"O", "Elsewhere"}, {"CN", "mallory"}},
       &*other,
       false,
       -1,
       30,
       &pki.client_untrusted},
  };
  for (const Spec& spec : specs) {
    auto issued = issue(spec.subject, spec.issuer, false, spec.server, spec.from, spec.to);
    if (!issued.ok()) return issued.status();
    SPILLWAY_RETURN_IF_ERROR(write_pem(*issued, dir, spec.name, spec.out));
  }
  return pki;
}

Result<CertFiles> issue_server_cert(const std::filesystem::path& dir, const std::string& name,
                                    const std::string& common_name) {
  auto ca = read_ca(dir);
  if (!ca.ok()) return ca.status();
  auto issued = issue({{"O", "Spillway Test"}, {"CN", common_name}}, &*ca, false, true, -1, 30);
  if (!issued.ok()) return issued.status();
  CertFiles files;
  SPILLWAY_RETURN_IF_ERROR(write_pem(*issued, dir, name, &files));
  return files;
}

}  // namespace spillway::testing
