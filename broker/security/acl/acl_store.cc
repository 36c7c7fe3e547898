#include "security/acl/acl_store.h"

#include <cstring>
#include <span>

#include "spillway/common/crc32c.h"
#include "spillway/common/stored_bytes.h"

namespace spillway::broker::security {

namespace {

constexpr char kMagic[4] = {'S', 'A', 'C', 'L'};
constexpr uint16_t kVersion = 1;
constexpr uint32_t kMaxString = 64 * 1024;
// Four enum bytes and three string lengths.
constexpr size_t kMinRule = 4 + 3 * 4;

using stored::put_str;
using stored::put_u16;
using stored::put_u32;
using stored::put_u8;
using stored::Reader;

Status corrupt(std::string_view what) {
  return Status(ErrorCode::kCorruptMessage, "ACL file: " + std::string(what));
}

uint32_t crc_of(std::string_view bytes) {
  return crc32c(std::as_bytes(std::span(bytes.data(), bytes.size())));
}

}  // namespace

std::string encode_acls(const std::vector<AclBinding>& bindings) {
  std::string out(kMagic, sizeof(kMagic));
  put_u16(out, kVersion);
  put_u32(out, static_cast<uint32_t>(bindings.size()));
  for (const AclBinding& b : bindings) {
    put_u8(out, static_cast<uint8_t>(b.resource_type));
    put_u8(out, static_cast<uint8_t>(b.pattern_type));
    put_u8(out, static_cast<uint8_t>(b.operation));
    put_u8(out, static_cast<uint8_t>(b.permission));
    put_str(out, b.resource_name);
    put_str(out, b.principal);
    put_str(out, b.host);
  }
  put_u32(out, crc_of(out));
  return out;
}

Result<std::vector<AclBinding>> decode_acls(std::string_view bytes) {
  if (bytes.size() < sizeof(kMagic) + 2 + 4 + 4) return corrupt("too short");
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) return corrupt("bad magic");
  const std::string_view body = bytes.substr(0, bytes.size() - 4);
  Reader crc_reader(bytes.substr(bytes.size() - 4));
  if (crc_of(body) != crc_reader.u32()) return corrupt("CRC mismatch");
  Reader r(body.substr(sizeof(kMagic)));
  const uint16_t version = r.u16();
  if (version != kVersion) return corrupt("unknown version " + std::to_string(version));
  const uint32_t count = r.u32();
  if (count > kMaxStoredAcls || static_cast<uint64_t>(count) * kMinRule > r.left()) {
    return corrupt("a count past the end or above its limit");
  }
  std::vector<AclBinding> out;
  out.reserve(count);
  for (uint32_t i = 0; r.ok() && i < count; ++i) {
    AclBinding b;
    b.resource_type = static_cast<ResourceType>(r.u8());
    b.pattern_type = static_cast<PatternType>(r.u8());
    b.operation = static_cast<AclOperation>(r.u8());
    b.permission = static_cast<AclPermission>(r.u8());
    b.resource_name = r.str(kMaxString);
    b.principal = r.str(kMaxString);
    b.host = r.str(kMaxString);
    if (!r.ok()) break;
    if (Status st = validate_binding(b); !st.ok()) {
      return corrupt("rule " + std::to_string(i) + ": " + std::string(st.message()));
    }
    out.push_back(std::move(b));
  }
  if (!r.ok()) return corrupt("a length past the end or above its limit");
  if (r.left() != 0) return corrupt("trailing bytes");
  return out;
}

Result<std::vector<AclBinding>> AclStore::load() {
  SPILLWAY_RETURN_IF_ERROR(fs_.create_dirs(dir_));
  if (!fs_.exists(path_)) return std::vector<AclBinding>{};
  Result<std::string> bytes = fs_.read_file(path_);
  if (!bytes.ok()) return bytes.status();
  Result<std::vector<AclBinding>> acls = decode_acls(*bytes);
  if (!acls.ok()) {
    return Status(ErrorCode::kCorruptMessage,
                  path_ + ": " + std::string(acls.status().message()) +
                      " (restore it from a backup, or remove it to start with no ACLs)");
  }
  return acls;
}

Status AclStore::save(const std::vector<AclBinding>& bindings) {
  SPILLWAY_RETURN_IF_ERROR(fs_.create_dirs(dir_));
  return storage::write_file_atomically(fs_, path_, encode_acls(bindings));
}

}  // namespace spillway::broker::security
