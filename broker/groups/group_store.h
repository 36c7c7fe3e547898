// GroupStore: each consumer group's metadata on disk, one file per group,
// DATA_DIR/groups/<hex of the group name>.group, rewritten atomically
// (storage::write_file_atomically: temp, fsync, rename, directory fsync)
// each time the group settles (Stable or Empty). The format
// (docs/consumer-groups.md, "Persistence") is binary and versioned, with a
// CRC-32C over everything before it: a file that fails any check is
// reported and skipped on load, never trusted.
//
// Threading: save() and remove() block on the disk and belong on a sync
// thread; load_all() runs once, before the cores do.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "groups/group_coordinator.h"
#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"

namespace spillway::broker::groups {

struct StoredMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  std::vector<Protocol> protocols;
  std::vector<std::byte> assignment;
};

// What survives a restart: a Stable group with its members, or an Empty one
// (its generation goes on counting).
struct StoredGroup {
  std::string group_id;
  GroupState state = GroupState::kEmpty;  // kStable or kEmpty
  int32_t generation = 0;
  std::string protocol_type;
  std::string protocol_name;
  std::string leader_id;
  std::vector<StoredMember> members;
};

// The file's bytes for `group`.
std::string encode_group(const StoredGroup& group);
// The group in `bytes`; kCorruptMessage naming what is wrong (bad magic,
// version, CRC, a length past the end or above its limit, trailing bytes).
Result<StoredGroup> decode_group(std::string_view bytes, const GroupLimits& limits);

class GroupStore {
 public:
  // Files in DATA_DIR/groups of `fs`, which must outlive the store.
  GroupStore(storage::FileSystem& fs, const std::string& data_dir)
      : fs_(fs), dir_(data_dir + "/groups") {}

  // Reads every group file; a file that cannot be read or decoded is logged
  // and skipped. Error only when the directory itself cannot be made or
  // listed.
  Result<std::vector<StoredGroup>> load_all(const GroupLimits& limits);
  // Writes `encoded` (encode_group()) as the group's file, durably.
  Status save(std::string_view group_id, std::string_view encoded);
  // Removes the group's file, durably; Ok when there was none.
  Status remove(std::string_view group_id);

 private:
  std::string path_for(std::string_view group_id) const;

  storage::FileSystem& fs_;
  const std::string dir_;
};

}  // namespace spillway::broker::groups
