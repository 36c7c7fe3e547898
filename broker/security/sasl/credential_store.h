// The broker's SCRAM credentials: DATA_DIR/credentials
// (spillway/common/credential_file.h), loaded at start, looked up by every
// authentication, changed by `spillway user` (UpsertUser/DeleteUser).
//
// Threads: lookups come from every connection thread and take a mutex for
// the copy of one credential (once per authentication, never per request).
// Changes are serialised by a second mutex and written to disk atomically
// (storage::write_file_atomically) before they take effect; the disk write
// happens outside the lookup mutex, so authentications never wait on it.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spillway/common/credential_file.h"
#include "spillway/common/scram.h"
#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"

namespace spillway::broker::security {

class CredentialStore {
 public:
  // The file DATA_DIR/credentials of `fs`, which must outlive the store.
  CredentialStore(storage::FileSystem& fs, const std::string& data_dir)
      : fs_(fs), dir_(data_dir), path_(data_dir + "/credentials") {}

  // Reads the file; a missing file is an empty store. kCorruptMessage for a
  // file that fails its checks (the broker refuses to start rather than
  // serve without the users it was given).
  Status load();

  std::optional<scram::Credential> find(std::string_view user, scram::Mechanism mechanism) const;
  // Every credential, by user then mechanism.
  std::vector<scram::UserCredential> list() const;
  // Adds or replaces the user's credential for its mechanism, durably.
  Status upsert(const scram::UserCredential& credential);
  // Removes the user's credentials (every mechanism when `mechanism` is
  // empty), durably. kInvalidArgument when the user has none.
  Status remove(std::string_view user, std::optional<scram::Mechanism> mechanism);

 private:
  using Key = std::pair<std::string, scram::Mechanism>;
  using Map = std::map<Key, scram::Credential, std::less<>>;
  Status write(const Map& next);

  storage::FileSystem& fs_;
  const std::string dir_;
  const std::string path_;
  std::mutex write_mutex_;    // one change at a time; held across the disk write
  mutable std::mutex mutex_;  // guards credentials_
  Map credentials_;
};

}  // namespace spillway::broker::security
