// GroupStore: the group file's format and its atomic rewrite.
//
// Layout (all integers big-endian):
//   "SPWG" u16 version=1
//   str group_id, u8 state (0 Empty, 3 Stable), i32 generation,
//   str protocol_type, str protocol_name, str leader_id, u32 members,
//   per member: str member_id, u8 has_instance, [str instance], str client_id,
//     str client_host, i32 session_ms, i32 rebalance_ms, u32 protocols,
//     per protocol: str name, bytes metadata; bytes assignment
//   u32 CRC-32C of every byte before it
// str/bytes: u32 length then the bytes.
#include "groups/group_store.h"

#include <spdlog/spdlog.h>

#include <cstring>

#include "spillway/common/crc32c.h"
#include "spillway/common/stored_bytes.h"

namespace spillway::broker::groups {

namespace {

constexpr char kMagic[4] = {'S', 'P', 'W', 'G'};
constexpr uint16_t kVersion = 1;
constexpr std::string_view kSuffix = ".group";
// A group name, member id, client id or host longer than this is not ours.
constexpr uint32_t kMaxString = 64 * 1024;

std::string hex(std::string_view s) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() * 2);
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

class Writer {
 public:
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u16(uint16_t v) {
    u8(static_cast<uint8_t>(v >> 8));
    u8(static_cast<uint8_t>(v));
  }
  void u32(uint32_t v) {
    u16(static_cast<uint16_t>(v >> 16));
    u16(static_cast<uint16_t>(v));
  }
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void bytes(const std::vector<std::byte>& b) {
    u32(static_cast<uint32_t>(b.size()));
    out_.append(reinterpret_cast<const char*>(b.data()), b.size());
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

using stored::Reader;

Status corrupt(std::string_view what) {
  return Status(ErrorCode::kCorruptMessage, "group file: " + std::string(what));
}

}  // namespace

std::string encode_group(const StoredGroup& group) {
  Writer w;
  w.out().append(kMagic, sizeof(kMagic));
  w.u16(kVersion);
  w.str(group.group_id);
  w.u8(static_cast<uint8_t>(group.state));
  w.i32(group.generation);
  w.str(group.protocol_type);
  w.str(group.protocol_name);
  w.str(group.leader_id);
  w.u32(static_cast<uint32_t>(group.members.size()));
  for (const StoredMember& m : group.members) {
    w.str(m.member_id);
    w.u8(m.group_instance_id ? 1 : 0);
    if (m.group_instance_id) w.str(*m.group_instance_id);
    w.str(m.client_id);
    w.str(m.client_host);
    w.i32(m.session_timeout_ms);
    w.i32(m.rebalance_timeout_ms);
    w.u32(static_cast<uint32_t>(m.protocols.size()));
    for (const Protocol& p : m.protocols) {
      w.str(p.name);
      w.bytes(p.metadata);
    }
    w.bytes(m.assignment);
  }
  const uint32_t crc = crc32c(std::as_bytes(std::span(w.out().data(), w.out().size())));
  w.u32(crc);
  return std::move(w.out());
}

Result<StoredGroup> decode_group(std::string_view bytes, const GroupLimits& limits) {
  if (bytes.size() < sizeof(kMagic) + 2 + 4) return corrupt("too short");
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) return corrupt("bad magic");
  const std::string_view body = bytes.substr(0, bytes.size() - 4);
  Reader crc_reader(bytes.substr(bytes.size() - 4));
  if (crc32c(std::as_bytes(std::span(body.data(), body.size()))) != crc_reader.u32()) {
    return corrupt("CRC mismatch");
  }
  Reader r(body.substr(sizeof(kMagic)));
  if (const uint16_t v = r.u16(); v != kVersion) {
    return corrupt("unknown version " + std::to_string(v));
  }
  StoredGroup g;
  g.group_id = r.str(kMaxString);
  const uint8_t state = r.u8();
  if (state != static_cast<uint8_t>(GroupState::kEmpty) &&
      state != static_cast<uint8_t>(GroupState::kStable)) {
    return corrupt("bad state " + std::to_string(state));
  }
  g.state = static_cast<GroupState>(state);
  g.generation = r.i32();
  g.protocol_type = r.str(kMaxString);
  g.protocol_name = r.str(kMaxString);
  g.leader_id = r.str(kMaxString);
  // A member takes at least 33 bytes (six lengths, a flag, two timeouts...).
  const uint32_t members = r.count(limits.max_group_size, 33);
  for (uint32_t i = 0; r.ok() && i < members; ++i) {
    StoredMember m;
    m.member_id = r.str(kMaxString);
    if (r.u8() != 0) m.group_instance_id = r.str(kMaxString);
    m.client_id = r.str(kMaxString);
    m.client_host = r.str(kMaxString);
    m.session_timeout_ms = r.i32();
    m.rebalance_timeout_ms = r.i32();
    const uint32_t protocols = r.count(limits.max_protocols, 8);
    for (uint32_t p = 0; r.ok() && p < protocols; ++p) {
      Protocol proto;
      proto.name = r.str(kMaxString);
      proto.metadata = r.bytes(limits.max_metadata_bytes);
      m.protocols.push_back(std::move(proto));
    }
    m.assignment = r.bytes(limits.max_assignment_bytes);
    g.members.push_back(std::move(m));
  }
  if (!r.ok()) return corrupt("a length past the end or above its limit");
  if (r.left() != 0) return corrupt("trailing bytes");
  if (g.group_id.empty()) return corrupt("empty group id");
  if (g.state == GroupState::kStable && g.members.empty()) return corrupt("Stable without members");
  if (g.state == GroupState::kEmpty && !g.members.empty()) return corrupt("Empty with members");
  return g;
}

std::string GroupStore::path_for(std::string_view group_id) const {
  return dir_ + "/" + hex(group_id) + std::string(kSuffix);
}

Result<std::vector<StoredGroup>> GroupStore::load_all(const GroupLimits& limits) {
  SPILLWAY_RETURN_IF_ERROR(fs_.create_dirs(dir_));
  Result<std::vector<std::string>> files = fs_.list_dir(dir_);
  if (!files.ok()) return files.status();
  std::vector<StoredGroup> groups;
  for (const std::string& file : *files) {
    if (file.size() <= kSuffix.size() || !file.ends_with(kSuffix)) continue;  // e.g. a .tmp
    const std::string path = dir_ + "/" + file;
    Result<std::string> bytes = fs_.read_file(path);
    if (!bytes.ok()) {
      spdlog::error("skipping group file {}: {}", path, bytes.status().message());
      continue;
    }
    Result<StoredGroup> group = decode_group(*bytes, limits);
    if (!group.ok()) {
      spdlog::error("skipping group file {}: {}", path, group.status().message());
      continue;
    }
    if (path_for(group->group_id) != path) {
      spdlog::error("skipping group file {}: it holds group \"{}\"", path, group->group_id);
      continue;
    }
    groups.push_back(std::move(*group));
  }
  return groups;
}

Status GroupStore::save(std::string_view group_id, std::string_view encoded) {
  SPILLWAY_RETURN_IF_ERROR(fs_.create_dirs(dir_));
  return storage::write_file_atomically(fs_, path_for(group_id), encoded);
}

Status GroupStore::remove(std::string_view group_id) {
  SPILLWAY_RETURN_IF_ERROR(fs_.remove_all(path_for(group_id)));
  return fs_.sync_dir(dir_);
}

}  // namespace spillway::broker::groups
