// DiskFullLog: what the broker logs when appends fail for lack of disk space.
//
// A full disk fails every append to a partition until space is freed. A line
// per failure would flood the log (on a full disk), none at all leaves the
// operator blind: the client's error names no server path (docs/protocol.md,
// "Error messages"). So each partition's episode is logged twice: at its
// first failed append, with the full error (paths included), and at its
// first successful append after it, with how many failed meanwhile.
//
// Thread-safe: appends are answered on every core. The failure path takes a
// mutex; the success path is one relaxed atomic load while no partition is
// in an episode.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "spillway/common/status.h"

namespace spillway::broker {

class DiskFullLog {
 public:
  // The process's one log (the produce handler's appends on every core).
  static DiskFullLog& global();

  // An append to `topic`-`partition` failed with `status`; only
  // kNotEnoughSpace is noted.
  void failed(std::string_view topic, int32_t partition, const Status& status);

  // An append to `topic`-`partition` succeeded.
  void succeeded(std::string_view topic, int32_t partition) {
    if (episodes_.load(std::memory_order_relaxed) == 0) return;
    end_episode(topic, partition);
  }

 private:
  void end_episode(std::string_view topic, int32_t partition);

  std::mutex mu_;
  // Partitions in an episode -> appends that failed in it.
  std::map<std::pair<std::string, int32_t>, uint64_t> failures_;  // under mu_
  std::atomic<size_t> episodes_{0};                               // failures_.size()
};

}  // namespace spillway::broker
