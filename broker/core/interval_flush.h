// IntervalFlush: the `interval` flushes of one core's partitions that fall
// due in one tick, made durable together (docs/log-storage.md, "Interval
// flush").
//
// Each partition under the `interval` policy used to send its own fdatasync
// to the sync thread when its interval had passed: with 10,000 partitions
// that is 10,000 journal commits a second, the largest cost of a keyed
// produce spread over them (docs/performance.md). The tick now gathers the
// flushes that are due (add()), and start() hands them to the core's sync
// thread as one GroupSync call (one syncfs(2) for a long list); each
// partition then finishes its own flush on its core with its own file's
// result, as before.
//
// Threading: add() and start() on the owner core; the sync runs on the
// core's sync thread, one group at a time (its io_context runs one thread).
#pragma once

#include <asio/io_context.hpp>
#include <memory>
#include <string>
#include <vector>

#include "spillway/storage/group_sync.h"
#include "spillway/storage/partition_log.h"

namespace spillway::broker {

class Partition;

class IntervalFlush {
 public:
  // `owner` runs the partitions, `sync` the core's blocking work.
  IntervalFlush(std::unique_ptr<storage::GroupSync> group, asio::io_context& owner,
                asio::io_context& sync);

  // Whether a log in `dir` can join the group (it lies on the group's file
  // system); logs that cannot flush on their own.
  bool covers(const std::string& dir) { return group_->covers(dir); }

  // Adds `partition`'s due flush (request.needed()); its finish_flush()
  // runs on the owner once the group's sync returns.
  void add(std::shared_ptr<Partition> partition, storage::FlushRequest request);

  // Hands what add() gathered since the last start() to the sync thread.
  void start();

 private:
  struct Due {
    std::shared_ptr<Partition> partition;
    storage::FlushRequest request;
  };

  std::shared_ptr<storage::GroupSync> group_;  // shared with the sync thread's task
  asio::io_context& owner_;
  asio::io_context& sync_;
  std::vector<Due> due_;
};

}  // namespace spillway::broker
