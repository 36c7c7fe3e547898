// AclStore: the ACLs on disk, one file DATA_DIR/acls/acls.bin rewritten
// atomically (storage::write_file_atomically: temp, fsync, rename, directory
// fsync) on every change. Binary and versioned: magic "SACL", u16 version,
// u32 count, per rule its four enum codes and three length-prefixed strings
// (resource name, principal, host), then a CRC-32C of everything before.
//
// A missing file is no rules. A damaged file stops the broker at start-up
// with the path and what is wrong: guessing would either open the broker
// (if authorization were treated as off) or silently drop rules an operator
// relies on, including denies.
//
// Threading: save() blocks on the disk (a sync thread); load() runs once
// before the cores do.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "security/acl/acl_binding.h"
#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"

namespace spillway::broker::security {

inline constexpr size_t kMaxStoredAcls = 1'000'000;

std::string encode_acls(const std::vector<AclBinding>& bindings);
// kCorruptMessage naming what is wrong (magic, version, CRC, a length past
// the end or above its limit, a rule validate_binding refuses, trailing
// bytes).
Result<std::vector<AclBinding>> decode_acls(std::string_view bytes);

class AclStore {
 public:
  AclStore(storage::FileSystem& fs, const std::string& data_dir)
      : fs_(fs), dir_(data_dir + "/acls"), path_(dir_ + "/acls.bin") {}

  Result<std::vector<AclBinding>> load();
  Status save(const std::vector<AclBinding>& bindings);
  const std::string& path() const { return path_; }

 private:
  storage::FileSystem& fs_;
  const std::string dir_;
  const std::string path_;
};

}  // namespace spillway::broker::security
