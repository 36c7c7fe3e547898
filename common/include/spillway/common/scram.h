// SCRAM (RFC 5802) with SHA-256 and SHA-512 (RFC 7677): the salted,
// iterated credentials and the four messages of an exchange, shared by the
// broker (server side, its credential store) and the client library.
//
// What is implemented: the "n" GS2 header (no channel binding; "y" is
// accepted from a client, "p=" refused), no authorization identity other
// than the user itself, no extensions. Keys and salts are raw bytes held in
// std::string; the messages carry them in base64.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "spillway/common/status.h"

namespace spillway::scram {

enum class Mechanism : uint8_t { kSha256, kSha512 };

// "SCRAM-SHA-256", "SCRAM-SHA-512".
std::string_view mechanism_name(Mechanism mechanism) noexcept;
std::optional<Mechanism> parse_mechanism(std::string_view name) noexcept;
// The hash's output size: 32 or 64.
size_t key_bytes(Mechanism mechanism) noexcept;

// Iteration bounds: Kafka's (4096 to 16384). Each authentication costs the
// broker `iterations` HMACs on a connection thread, hence the upper bound.
inline constexpr uint32_t kMinIterations = 4096;
inline constexpr uint32_t kMaxIterations = 16384;
inline constexpr uint32_t kDefaultIterations = 8192;
inline constexpr size_t kSaltBytes = 16;

// What a server keeps for one user and mechanism: never the password.
struct Credential {
  Mechanism mechanism = Mechanism::kSha256;
  std::string salt;  // raw bytes
  uint32_t iterations = kDefaultIterations;
  std::string stored_key;  // H(ClientKey)
  std::string server_key;  // HMAC(SaltedPassword, "Server Key")
};

// Hi(password, salt, i) = PBKDF2-HMAC-H.
std::string salted_password(Mechanism mechanism, std::string_view password, std::string_view salt,
                            uint32_t iterations);
std::string hmac(Mechanism mechanism, std::string_view key, std::string_view data);
std::string hash(Mechanism mechanism, std::string_view data);
// The credential for `password` with `salt` (raw) and `iterations`.
Credential make_credential(Mechanism mechanism, std::string_view password, std::string_view salt,
                           uint32_t iterations);
// `n` bytes from the system's CSPRNG (RAND_bytes); aborts if it fails.
std::string random_bytes(size_t n);
// A fresh nonce: 24 random bytes in base64 (printable, no ',').
std::string make_nonce();

bool constant_time_equal(std::string_view a, std::string_view b) noexcept;

std::string base64_encode(std::string_view bytes);
// Strict: padding required, no whitespace. nullopt when invalid.
std::optional<std::string> base64_decode(std::string_view text);

// RFC 5802 saslname: ',' -> "=2C", '=' -> "=3D".
std::string escape_name(std::string_view name);
// nullopt for a '=' not followed by 2C/3D, or an empty result.
std::optional<std::string> unescape_name(std::string_view saslname);

// --- The messages ---------------------------------------------------------

// client-first-message: gs2-header + client-first-message-bare.
struct ClientFirst {
  std::string user;        // unescaped
  std::string nonce;       // the client's nonce
  std::string bare;        // "n=...,r=...", part of the AuthMessage
  std::string gs2_header;  // "n,," or "y,,", echoed in c= of client-final
};
std::string client_first_message(std::string_view user, std::string_view nonce);
Result<ClientFirst> parse_client_first(std::string_view message);

struct ServerFirst {
  std::string nonce;  // client nonce + server nonce
  std::string salt;   // raw
  uint32_t iterations = 0;
};
std::string server_first_message(std::string_view nonce, std::string_view salt,
                                 uint32_t iterations);
Result<ServerFirst> parse_server_first(std::string_view message);

struct ClientFinal {
  std::string channel_binding;  // base64 of the GS2 header
  std::string nonce;
  std::string proof;          // raw
  std::string without_proof;  // "c=...,r=...", part of the AuthMessage
};
// "c=<base64 gs2 header>,r=<nonce>"
std::string client_final_without_proof(std::string_view gs2_header, std::string_view nonce);
Result<ClientFinal> parse_client_final(std::string_view message);

// AuthMessage = client-first-bare + "," + server-first + "," + client-final-without-proof
std::string auth_message(std::string_view client_first_bare, std::string_view server_first,
                         std::string_view client_final_without_proof);

// ClientProof = ClientKey XOR HMAC(StoredKey, AuthMessage).
std::string client_proof(Mechanism mechanism, std::string_view salted,
                         std::string_view auth_message);
// True when `proof` proves knowledge of the password behind `credential`.
bool verify_client_proof(const Credential& credential, std::string_view auth_message,
                         std::string_view proof);
// ServerSignature = HMAC(ServerKey, AuthMessage).
std::string server_signature(Mechanism mechanism, std::string_view server_key,
                             std::string_view auth_message);
// "v=<base64 signature>"
std::string server_final_message(std::string_view signature);
// The signature (raw) of "v=...", or kAuthenticationFailed for "e=...".
Result<std::string> parse_server_final(std::string_view message);

// The client side of one exchange.
class ScramClient {
 public:
  // `nonce` empty: a fresh one (tests pass the RFC's).
  ScramClient(Mechanism mechanism, std::string user, std::string password, std::string nonce = {});
  std::string first();
  // The client-final message answering `server_first`.
  Result<std::string> final(std::string_view server_first);
  // Checks the server's signature in `server_final`.
  Status verify(std::string_view server_final) const;

 private:
  Mechanism mechanism_;
  std::string user_;
  std::string password_;
  std::string nonce_;
  std::string bare_;
  std::string expected_signature_;
};

}  // namespace spillway::scram
