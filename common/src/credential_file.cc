// The credential file's encoding (credential_file.h).
#include "spillway/common/credential_file.h"

#include <cstring>
#include <span>

#include "spillway/common/crc32c.h"
#include "spillway/common/stored_bytes.h"

namespace spillway::scram {

namespace {

constexpr char kMagic[4] = {'S', 'P', 'W', 'C'};
constexpr uint16_t kVersion = 1;

using stored::put_u16;
using stored::put_u32;
using stored::put_u8;
using stored::Reader;

void put_short(std::string& out, std::string_view s) {
  put_u8(out, static_cast<uint8_t>(s.size()));
  out.append(s);
}

Status corrupt(std::string_view what) {
  return Status(ErrorCode::kCorruptMessage, "credential file: " + std::string(what));
}

uint32_t crc_of(std::string_view bytes) {
  return crc32c(std::as_bytes(std::span(bytes.data(), bytes.size())));
}

}  // namespace

Status check_user_name(std::string_view user) {
  if (user.empty()) return Status(ErrorCode::kInvalidArgument, "the user name is empty");
  if (user.size() > kMaxUserBytes) {
    return Status(ErrorCode::kInvalidArgument,
                  "the user name is longer than " + std::to_string(kMaxUserBytes) + " bytes");
  }
  for (char c : user) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return Status(ErrorCode::kInvalidArgument, "the user name has a control character");
    }
  }
  return Status::Ok();
}

std::string encode_credentials(const std::vector<UserCredential>& credentials) {
  std::string out(kMagic, sizeof(kMagic));
  put_u16(out, kVersion);
  put_u32(out, static_cast<uint32_t>(credentials.size()));
  for (const UserCredential& u : credentials) {
    put_u16(out, static_cast<uint16_t>(u.user.size()));
    out.append(u.user);
    put_u8(out, u.credential.mechanism == Mechanism::kSha512 ? 1 : 0);
    put_u32(out, u.credential.iterations);
    put_short(out, u.credential.salt);
    put_short(out, u.credential.stored_key);
    put_short(out, u.credential.server_key);
  }
  put_u32(out, crc_of(out));
  return out;
}

Result<std::vector<UserCredential>> decode_credentials(std::string_view bytes) {
  if (bytes.size() < sizeof(kMagic) + 2 + 4 + 4) return corrupt("too short");
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) return corrupt("bad magic");
  const std::string_view body = bytes.substr(0, bytes.size() - 4);
  Reader crc_reader(bytes.substr(bytes.size() - 4));
  if (crc_of(body) != crc_reader.u32()) return corrupt("CRC mismatch");
  Reader r(body.substr(sizeof(kMagic)));
  if (const uint16_t v = r.u16(); v != kVersion) {
    return corrupt("unknown version " + std::to_string(v));
  }
  const uint32_t count = r.u32();
  // An entry takes at least 2 + 1 + 4 + 3 bytes.
  if (count > kMaxCredentials || static_cast<uint64_t>(count) * 10 > r.left()) {
    return corrupt("bad entry count");
  }
  std::vector<UserCredential> out;
  out.reserve(count);
  for (uint32_t i = 0; i < count && r.ok(); ++i) {
    UserCredential u;
    const uint16_t user_bytes = r.u16();
    if (user_bytes > kMaxUserBytes) return corrupt("user name too long");
    u.user = r.take(user_bytes);
    const uint8_t mechanism = r.u8();
    if (mechanism > 1) return corrupt("unknown mechanism " + std::to_string(mechanism));
    u.credential.mechanism = mechanism == 1 ? Mechanism::kSha512 : Mechanism::kSha256;
    u.credential.iterations = r.u32();
    u.credential.salt = r.take(r.u8());
    u.credential.stored_key = r.take(r.u8());
    u.credential.server_key = r.take(r.u8());
    if (!r.ok()) break;
    if (!check_user_name(u.user).ok()) return corrupt("bad user name");
    const size_t keys = key_bytes(u.credential.mechanism);
    if (u.credential.salt.empty() || u.credential.stored_key.size() != keys ||
        u.credential.server_key.size() != keys) {
      return corrupt("bad key or salt length for user \"" + u.user + "\"");
    }
    if (u.credential.iterations < kMinIterations || u.credential.iterations > kMaxIterations) {
      return corrupt("iteration count out of bounds for user \"" + u.user + "\"");
    }
    out.push_back(std::move(u));
  }
  if (!r.ok()) return corrupt("a length past the end");
  if (r.left() != 0) return corrupt("trailing bytes");
  return out;
}

}  // namespace spillway::scram
