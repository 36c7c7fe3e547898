// ProducerIds: hands out idempotent producers' ids, never the same one twice
// on a data directory, restarts and crashes included. The ids are reserved
// in blocks: DATA_DIR/producer_ids holds the first id not yet reserved,
// rewritten atomically (and synced) each time a block runs out, so only one
// allocation in kBlockSize touches the disk. A restart starts a new block
// after the recorded one; the rest of the old block is never used.
//
// In a cluster every broker hands out ids, and two producers must never
// share one (a partition would take one's batch for the other's retry and
// answer it without writing it). Kafka reserves the blocks through its
// controller; here the broker id is the top bits of every id it hands out
// (id = node_id << kCounterBits | counter), so brokers never collide without
// asking anyone. A standalone broker (node_id 0) hands out 0, 1, 2, ... as
// before. A broker that loses its data directory and keeps its node id
// starts its counter again; the ids it handed out before are then reused
// once the partitions' state for them has expired
// (producer_id_expiration_ms), as with Kafka's lost ZooKeeper state.
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
  // Ids are int64 >= 0: 23 bits of node id (INT32_MAX needs 31, so node ids
  // above 2^23 - 1 are refused here) above 40 bits of counter.
  static constexpr int kCounterBits = 40;
  static constexpr int64_t kMaxNodeId = (int64_t{1} << (63 - kCounterBits)) - 1;

  // Reads DATA_DIR/producer_ids (absent: the counter starts at 0). `fs` must
  // outlive the object. kCorruptMessage for a file that holds no number,
  // kInvalidArgument for a node id above kMaxNodeId, I/O errors.
  static Result<std::unique_ptr<ProducerIds>> open(storage::FileSystem& fs, std::string data_dir,
                                                   int64_t node_id = 0);

  // A fresh producer id. kIoError / kNotEnoughSpace when a new block could
  // not be recorded (no id is handed out then).
  Result<int64_t> allocate();

 private:
  ProducerIds(storage::FileSystem& fs, std::string path, int64_t base, int64_t next)
      : fs_(fs), path_(std::move(path)), base_(base), next_(next), reserved_end_(next) {}

  storage::FileSystem& fs_;
  const std::string path_;
  const int64_t base_;  // node_id << kCounterBits
  std::mutex mu_;
  int64_t next_;          // under mu_
  int64_t reserved_end_;  // under mu_: ids below it are recorded as reserved
};

}  // namespace spillway::broker
