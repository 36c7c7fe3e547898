// OffsetStore: committed consumer offsets per (group, topic, partition),
// durable across restarts. Each group has one file,
// DATA_DIR/offsets/<hex of group>.offsets, rewritten atomically (temp, fsync,
// rename, directory fsync) on every commit, so an acknowledged commit
// survives a crash and a torn write never loses the previous state. Groups
// commit rarely compared to produce traffic; a whole-file rewrite keeps
// recovery trivial (no log to compact).
//
// Thread-safe: a mutex guards the table; commit() does blocking file I/O and
// belongs on a sync thread, not on a network core.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spillway/common/status.h"

namespace spillway::broker {

class OffsetStore {
 public:
  struct Entry {
    std::string topic;
    int32_t partition = 0;
    int64_t offset = 0;
  };

  explicit OffsetStore(std::string data_dir) : dir_(std::move(data_dir) + "/offsets") {}

  // Loads every group file. kIoError/kConfig naming a bad file.
  Status load();

  // Records `entries` for `group` and makes them durable before returning.
  // On error the in-memory table is unchanged.
  Status commit(std::string_view group, const std::vector<Entry>& entries);

  // The committed offset, or -1 when none.
  int64_t committed(std::string_view group, std::string_view topic, int32_t partition) const;

  // Forgets a deleted topic's offsets in memory (files keep them until the
  // group's next commit).
  void forget_topic(std::string_view topic);

 private:
  using GroupOffsets = std::map<std::pair<std::string, int32_t>, int64_t>;
  std::string path_for(std::string_view group) const;

  const std::string dir_;
  mutable std::mutex mu_;
  std::map<std::string, GroupOffsets, std::less<>> groups_;
};

}  // namespace spillway::broker
