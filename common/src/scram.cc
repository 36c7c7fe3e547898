// SCRAM-SHA-256/512 (RFC 5802, RFC 7677) on OpenSSL's libcrypto.
#include "spillway/common/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>
#include <charconv>
#include <cstdlib>
#include <vector>

namespace spillway::scram {

namespace {

const EVP_MD* digest(Mechanism mechanism) {
  return mechanism == Mechanism::kSha512 ? EVP_sha512() : EVP_sha256();
}

Status bad(std::string_view what) {
  return Status(ErrorCode::kAuthenticationFailed, "malformed SCRAM message: " + std::string(what));
}

std::string xor_bytes(std::string_view a, std::string_view b) {
  std::string out(a);
  for (size_t i = 0; i < out.size() && i < b.size(); ++i) {
    out[i] = static_cast<char>(out[i] ^ b[i]);
  }
  return out;
}

// A nonce: printable ASCII other than ','.
bool valid_nonce(std::string_view nonce) {
  if (nonce.empty()) return false;
  for (char c : nonce) {
    if (c < 0x21 || c > 0x7e || c == ',') return false;
  }
  return true;
}

// Splits `text` at ','; each part must look like "x=...".
std::vector<std::string_view> split_attributes(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return parts;
}

// The value of attribute `name` in `part` ("r=abc" -> "abc"), or nullopt.
std::optional<std::string_view> attribute(std::string_view part, char name) {
  if (part.size() < 2 || part[0] != name || part[1] != '=') return std::nullopt;
  return part.substr(2);
}

constexpr std::string_view kBase64 =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_value(char c) {
  const size_t at = kBase64.find(c);
  return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

}  // namespace

std::string_view mechanism_name(Mechanism mechanism) noexcept {
  return mechanism == Mechanism::kSha512 ? "SCRAM-SHA-512" : "SCRAM-SHA-256";
}

std::optional<Mechanism> parse_mechanism(std::string_view name) noexcept {
  if (name == "SCRAM-SHA-256") return Mechanism::kSha256;
  if (name == "SCRAM-SHA-512") return Mechanism::kSha512;
  return std::nullopt;
}

size_t key_bytes(Mechanism mechanism) noexcept {
  return mechanism == Mechanism::kSha512 ? 64 : 32;
}

std::string salted_password(Mechanism mechanism, std::string_view password, std::string_view salt,
                            uint32_t iterations) {
  std::string out(key_bytes(mechanism), '\0');
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), static_cast<int>(iterations),
                        digest(mechanism), static_cast<int>(out.size()),
                        reinterpret_cast<unsigned char*>(out.data())) != 1) {
    std::abort();  // only on allocation failure inside OpenSSL
  }
  return out;
}

std::string hmac(Mechanism mechanism, std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int length = 0;
  if (HMAC(digest(mechanism), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(),
           &length) == nullptr) {
    std::abort();
  }
  return std::string(reinterpret_cast<const char*>(out.data()), length);
}

std::string hash(Mechanism mechanism, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &length, digest(mechanism), nullptr) != 1) {
    std::abort();
  }
  return std::string(reinterpret_cast<const char*>(out.data()), length);
}

Credential make_credential(Mechanism mechanism, std::string_view password, std::string_view salt,
                           uint32_t iterations) {
  const std::string salted = salted_password(mechanism, password, salt, iterations);
  Credential c;
  c.mechanism = mechanism;
  c.salt = std::string(salt);
  c.iterations = iterations;
  c.stored_key = hash(mechanism, hmac(mechanism, salted, "Client Key"));
  c.server_key = hmac(mechanism, salted, "Server Key");
  return c;
}

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  if (n > 0 && RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    std::abort();  // no entropy: nothing safe to do
  }
  return out;
}

std::string make_nonce() {
  return base64_encode(random_bytes(24));
}

bool constant_time_equal(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  return a.empty() || CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                       (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += kBase64[v & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += rest == 2 ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=' && last && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return std::nullopt;  // data after padding
      v[k] = base64_value(c);
      if (v[k] < 0) return std::nullopt;
    }
    const uint32_t n = (static_cast<uint32_t>(v[0]) << 18) | (static_cast<uint32_t>(v[1]) << 12) |
                       (static_cast<uint32_t>(v[2]) << 6) | static_cast<uint32_t>(v[3]);
    out += static_cast<char>((n >> 16) & 0xff);
    if (pad < 2) out += static_cast<char>((n >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(n & 0xff);
  }
  return out;
}

std::string escape_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == ',') {
      out += "=2C";
    } else if (c == '=') {
      out += "=3D";
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<std::string> unescape_name(std::string_view saslname) {
  std::string out;
  out.reserve(saslname.size());
  for (size_t i = 0; i < saslname.size(); ++i) {
    const char c = saslname[i];
    if (c == ',') return std::nullopt;
    if (c != '=') {
      out += c;
      continue;
    }
    const std::string_view code = saslname.substr(i + 1, 2);
    if (code == "2C") {
      out += ',';
    } else if (code == "3D") {
      out += '=';
    } else {
      return std::nullopt;
    }
    i += 2;
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::string client_first_message(std::string_view user, std::string_view nonce) {
  return "n,,n=" + escape_name(user) + ",r=" + std::string(nonce);
}

Result<ClientFirst> parse_client_first(std::string_view message) {
  // gs2-header: cbind-flag "," [authzid] ","
  const size_t first = message.find(',');
  if (first == std::string_view::npos) return bad("no GS2 header");
  const std::string_view flag = message.substr(0, first);
  if (flag.starts_with("p=")) {
    return Status(ErrorCode::kAuthenticationFailed, "SCRAM channel binding is not supported");
  }
  if (flag != "n" && flag != "y") return bad("bad GS2 channel binding flag");
  const size_t second = message.find(',', first + 1);
  if (second == std::string_view::npos) return bad("no GS2 header");
  const std::string_view authzid = message.substr(first + 1, second - first - 1);
  ClientFirst out;
  out.gs2_header = std::string(message.substr(0, second + 1));
  out.bare = std::string(message.substr(second + 1));
  const std::vector<std::string_view> parts = split_attributes(out.bare);
  if (parts.size() < 2) return bad("client-first has no user or nonce");
  const std::optional<std::string_view> user = attribute(parts[0], 'n');
  const std::optional<std::string_view> nonce = attribute(parts[1], 'r');
  if (!user || !nonce) return bad("client-first must start with n=USER,r=NONCE");
  std::optional<std::string> name = unescape_name(*user);
  if (!name) return bad("bad user name");
  if (!valid_nonce(*nonce)) return bad("bad nonce");
  if (!authzid.empty()) {
    const std::optional<std::string_view> a = attribute(authzid, 'a');
    std::optional<std::string> as = a ? unescape_name(*a) : std::nullopt;
    if (!as || *as != *name) {
      return Status(ErrorCode::kAuthenticationFailed,
                    "an authorization identity other than the user is not supported");
    }
  }
  out.user = std::move(*name);
  out.nonce = std::string(*nonce);
  return out;
}

std::string server_first_message(std::string_view nonce, std::string_view salt,
                                 uint32_t iterations) {
  return "r=" + std::string(nonce) + ",s=" + base64_encode(salt) +
         ",i=" + std::to_string(iterations);
}

Result<ServerFirst> parse_server_first(std::string_view message) {
  const std::vector<std::string_view> parts = split_attributes(message);
  if (parts.size() < 3) return bad("server-first needs r, s and i");
  const std::optional<std::string_view> nonce = attribute(parts[0], 'r');
  const std::optional<std::string_view> salt = attribute(parts[1], 's');
  const std::optional<std::string_view> iterations = attribute(parts[2], 'i');
  if (!nonce || !salt || !iterations) return bad("server-first must be r=,s=,i=");
  if (!valid_nonce(*nonce)) return bad("bad nonce");
  std::optional<std::string> raw_salt = base64_decode(*salt);
  if (!raw_salt || raw_salt->empty()) return bad("bad salt");
  uint32_t count = 0;
  const auto [end, ec] =
      std::from_chars(iterations->data(), iterations->data() + iterations->size(), count);
  if (ec != std::errc() || end != iterations->data() + iterations->size() || count == 0) {
    return bad("bad iteration count");
  }
  return ServerFirst{std::string(*nonce), std::move(*raw_salt), count};
}

std::string client_final_without_proof(std::string_view gs2_header, std::string_view nonce) {
  return "c=" + base64_encode(gs2_header) + ",r=" + std::string(nonce);
}

Result<ClientFinal> parse_client_final(std::string_view message) {
  const size_t proof_at = message.rfind(",p=");
  if (proof_at == std::string_view::npos) return bad("client-final has no proof");
  ClientFinal out;
  out.without_proof = std::string(message.substr(0, proof_at));
  const std::vector<std::string_view> parts = split_attributes(out.without_proof);
  if (parts.size() < 2) return bad("client-final needs c= and r=");
  const std::optional<std::string_view> binding = attribute(parts[0], 'c');
  const std::optional<std::string_view> nonce = attribute(parts[1], 'r');
  if (!binding || !nonce) return bad("client-final must start with c=,r=");
  std::optional<std::string> proof = base64_decode(message.substr(proof_at + 3));
  if (!proof) return bad("bad proof");
  out.channel_binding = std::string(*binding);
  out.nonce = std::string(*nonce);
  out.proof = std::move(*proof);
  return out;
}

std::string auth_message(std::string_view client_first_bare, std::string_view server_first,
                         std::string_view client_final_without_proof) {
  std::string out;
  out.reserve(client_first_bare.size() + server_first.size() + client_final_without_proof.size() +
              2);
  out += client_first_bare;
  out += ',';
  out += server_first;
  out += ',';
  out += client_final_without_proof;
  return out;
}

std::string client_proof(Mechanism mechanism, std::string_view salted,
                         std::string_view auth_message) {
  const std::string client_key = hmac(mechanism, salted, "Client Key");
  const std::string stored_key = hash(mechanism, client_key);
  return xor_bytes(client_key, hmac(mechanism, stored_key, auth_message));
}

bool verify_client_proof(const Credential& credential, std::string_view auth_message,
                         std::string_view proof) {
  if (proof.size() != key_bytes(credential.mechanism)) return false;
  const std::string signature = hmac(credential.mechanism, credential.stored_key, auth_message);
  const std::string client_key = xor_bytes(proof, signature);
  return constant_time_equal(hash(credential.mechanism, client_key), credential.stored_key);
}

std::string server_signature(Mechanism mechanism, std::string_view server_key,
                             std::string_view auth_message) {
  return hmac(mechanism, server_key, auth_message);
}

std::string server_final_message(std::string_view signature) {
  return "v=" + base64_encode(signature);
}

Result<std::string> parse_server_final(std::string_view message) {
  if (std::optional<std::string_view> error = attribute(message, 'e')) {
    return Status(ErrorCode::kAuthenticationFailed,
                  "the server refused the SCRAM proof: " + std::string(*error));
  }
  const std::string_view first = message.substr(0, message.find(','));
  const std::optional<std::string_view> v = attribute(first, 'v');
  if (!v) return bad("server-final has no v=");
  std::optional<std::string> signature = base64_decode(*v);
  if (!signature) return bad("bad server signature");
  return std::move(*signature);
}

ScramClient::ScramClient(Mechanism mechanism, std::string user, std::string password,
                         std::string nonce)
    : mechanism_(mechanism),
      user_(std::move(user)),
      password_(std::move(password)),
      nonce_(nonce.empty() ? make_nonce() : std::move(nonce)) {}

std::string ScramClient::first() {
  std::string message = client_first_message(user_, nonce_);
  bare_ = message.substr(3);  // after "n,,"
  return message;
}

Result<std::string> ScramClient::final(std::string_view server_first) {
  Result<ServerFirst> parsed = parse_server_first(server_first);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->nonce.starts_with(nonce_) || parsed->nonce.size() == nonce_.size()) {
    return Status(ErrorCode::kAuthenticationFailed,
                  "the server's SCRAM nonce does not extend the client's");
  }
  if (parsed->iterations < kMinIterations || parsed->iterations > kMaxIterations) {
    return Status(ErrorCode::kAuthenticationFailed,
                  "the server's SCRAM iteration count " + std::to_string(parsed->iterations) +
                      " is outside " + std::to_string(kMinIterations) + ".." +
                      std::to_string(kMaxIterations));
  }
  const std::string salted =
      salted_password(mechanism_, password_, parsed->salt, parsed->iterations);
  const std::string without_proof = client_final_without_proof("n,,", parsed->nonce);
  const std::string auth = auth_message(bare_, server_first, without_proof);
  const std::string proof = client_proof(mechanism_, salted, auth);
  expected_signature_ = server_signature(mechanism_, hmac(mechanism_, salted, "Server Key"), auth);
  return without_proof + ",p=" + base64_encode(proof);
}

Status ScramClient::verify(std::string_view server_final) const {
  Result<std::string> signature = parse_server_final(server_final);
  if (!signature.ok()) return signature.status();
  if (expected_signature_.empty() || !constant_time_equal(*signature, expected_signature_)) {
    return Status(ErrorCode::kAuthenticationFailed,
                  "the server's SCRAM signature is wrong: it does not know the credential");
  }
  return Status::Ok();
}

}  // namespace spillway::scram
