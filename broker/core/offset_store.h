// OffsetStore: committed consumer offsets per (group, topic, partition),
// durable across restarts. Each group has one file,
// DATA_DIR/offsets/<hex of group>.offsets, rewritten atomically
// (storage::write_file_atomically: temp, fsync, rename, directory fsync) on
// every commit, so an acknowledged commit
// survives a crash and a torn write never loses the previous state. Groups
// commit rarely compared to produce traffic; a whole-file rewrite keeps
// recovery trivial (no log to compact).
//
// Thread-safe: a mutex guards the table. commit() does blocking file I/O and
// belongs on a sync thread, not on a network core; commit_async() runs it on
// the calling core's sync thread (runtime/core_set.h).
#pragma once

#include <asio/any_io_executor.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/core_set.h"
#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"

namespace spillway::broker {

class OffsetStore {
 public:
  struct Entry {
    std::string topic;
    int32_t partition = 0;
    int64_t offset = 0;
  };

  // A group's file is named by two hex digits per byte of the group name
  // plus ".offsets" (and ".tmp" while it is replaced), and a file name may
  // have at most 255 bytes: (255 - 12) / 2 = 121.
  static constexpr size_t kMaxGroupNameBytes = (255 - sizeof(".offsets.tmp") + 1) / 2;

  // The files live in DATA_DIR/offsets of `fs`; commit_async() uses the
  // sync threads of `cores`. Both must outlive the store.
  OffsetStore(CoreSet& cores, storage::FileSystem& fs, std::string data_dir)
      : cores_(cores), fs_(fs), dir_(std::move(data_dir) + "/offsets") {}

  // Ok iff `group` can be stored: 1 to kMaxGroupNameBytes bytes (any bytes).
  // kInvalidArgument naming the limit otherwise.
  static Status validate_group(std::string_view group);

  // Loads every group file. kIoError/kConfig naming a bad file.
  Status load();

  // Records `entries` for `group` and makes them durable before returning.
  // On error the in-memory table is unchanged: kInvalidArgument for a group
  // validate_group() refuses, kIoError / kNotEnoughSpace from the file.
  Status commit(std::string_view group, const std::vector<Entry>& entries);
  // commit() on the calling core's sync thread, then done(status) on
  // `executor`. No entries: nothing is written, done(Ok). Call on a core.
  void commit_async(std::string group, std::vector<Entry> entries, asio::any_io_executor executor,
                    std::function<void(Status)> done);

  // Forgets every offset of `group` and removes its file, durably. True iff
  // the group had offsets; kIoError (the store keeps the group) when the
  // file cannot be removed.
  Result<bool> remove_group(std::string_view group);
  // remove_group() on the calling core's sync thread, then done(result) on
  // `executor`. Call on a core.
  void remove_group_async(std::string group, asio::any_io_executor executor,
                          std::function<void(Result<bool>)> done);

  // The committed offset, or -1 when none.
  int64_t committed(std::string_view group, std::string_view topic, int32_t partition) const;

  // Every committed offset of `group`, by topic then partition (none when
  // the group has no commits). Kafka's OffsetFetch for all partitions.
  std::vector<Entry> group_offsets(std::string_view group) const;

  // The groups with at least one committed offset, by name.
  std::vector<std::string> groups() const;

  // Replaces `group`'s offsets in memory only (no file): in a cluster the
  // group's offsets as etcd holds them, taken when this broker becomes the
  // group's coordinator (cluster/cluster_offsets.h). The file is rewritten
  // at the group's next commit.
  void adopt(std::string_view group, const std::vector<Entry>& entries);
  // Forgets a deleted topic's offsets in memory (files keep them until the
  // group's next commit).
  void forget_topic(std::string_view topic);

 private:
  using GroupOffsets = std::map<std::pair<std::string, int32_t>, int64_t>;
  std::string path_for(std::string_view group) const;

  CoreSet& cores_;
  storage::FileSystem& fs_;
  const std::string dir_;
  mutable std::mutex mu_;
  std::map<std::string, GroupOffsets, std::less<>> groups_;
};

}  // namespace spillway::broker
