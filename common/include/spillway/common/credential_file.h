// The SCRAM credential file's format: DATA_DIR/credentials, read by the
// broker (security/sasl/credential_store.h) and written by it or, against
// a stopped broker, by `spillway user --data-dir`.
//
// Binary and versioned: "SPWC", u16 version 1, u32 count, then per entry
// u16 user length + user, u8 mechanism (0 SHA-256, 1 SHA-512), u32
// iterations, u8 salt length + salt, u8 + StoredKey, u8 + ServerKey; a
// CRC-32C over everything before it closes the file. Only salts, iteration
// counts and keys: never a password.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/scram.h"
#include "spillway/common/status.h"

namespace spillway::scram {

// A user name longer than this is refused (Kafka's principal names are
// short; the bound keeps the file and each lookup small).
inline constexpr size_t kMaxUserBytes = 255;
// The most credentials (user x mechanism) one file holds.
inline constexpr size_t kMaxCredentials = 100'000;

struct UserCredential {
  std::string user;
  Credential credential;
};

// Ok, or kInvalidArgument saying what is wrong with the name (empty, too
// long, control characters).
Status check_user_name(std::string_view user);

std::string encode_credentials(const std::vector<UserCredential>& credentials);
// kCorruptMessage naming what is wrong (magic, version, CRC, a bad length,
// an iteration count out of bounds, trailing bytes).
Result<std::vector<UserCredential>> decode_credentials(std::string_view bytes);

}  // namespace spillway::scram
