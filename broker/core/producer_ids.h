// ProducerIds: hands out idempotent producers' ids, never the same one twice
// on a data directory, restarts and crashes included. The ids are reserved
// in blocks: DATA_DIR/producer_ids holds the first id not yet reserved,
// rewritten atomically (and synced) each time a block runs out, so only one
// allocation in kBlockSize touches the disk. A restart starts a new block
// after the recorded one; the rest of the old block is never used.
//
// Threading: allocate() may be called from any core (a mutex; InitProducerId
// is once per producer session, not a hot path).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"

namespace spillway::broker {

class ProducerIds {
 public:
  static constexpr int64_t kBlockSize = 1000;
  static constexpr char kFileName[] = "producer_ids";

  // Reads DATA_DIR/producer_ids (absent: ids start at 0). `fs` must outlive
  // the object. kCorruptMessage for a file that holds no number, I/O errors.
  static Result<std::unique_ptr<ProducerIds>> open(storage::FileSystem& fs, std::string data_dir);

  // A fresh producer id. kIoError / kNotEnoughSpace when a new block could
  // not be recorded (no id is handed out then).
  Result<int64_t> allocate();

 private:
  ProducerIds(storage::FileSystem& fs, std::string path, int64_t next)
      : fs_(fs), path_(std::move(path)), next_(next), reserved_end_(next) {}

  storage::FileSystem& fs_;
  const std::string path_;
  std::mutex mu_;
  int64_t next_;          // under mu_
  int64_t reserved_end_;  // under mu_: ids below it are recorded as reserved
};

}  // namespace spillway::broker
