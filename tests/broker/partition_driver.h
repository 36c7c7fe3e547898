// PartitionDriver: one Partition driven the way the broker drives it, for
// tests and benchmarks of the code production runs. Core 0 of a CoreSet of
// two owns the partition and runs on a thread of its own, with that core's
// sync thread doing the fdatasyncs; appends are posted to core 0 from any
// thread as a handler does (post_task, a pooled buffer), and their replies
// come back on core 1, another thread, as to a connection.
//
// Thread-safe: append()/append_async()/on_owner() from any thread except
// the two core threads.
#pragma once

#include <algorithm>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/partition.h"
#include "core/task_pool.h"
#include "runtime/core_set.h"
#include "spillway/common/buffer_pool.h"
#include "spillway/common/endian.h"
#include "spillway/common/record_batch.h"
#include "spillway/storage/partition_log.h"

namespace spillway::broker::testing {

class PartitionDriver {
 public:
  // Opens the log in `dir` of `fs` (which must outlive the driver) and
  // starts the cores. `flush_interval_ms` > 0: the `interval` policy's
  // periodic fdatasync, started by Partition::tick() (see on_owner()).
  static Result<std::unique_ptr<PartitionDriver>> open(storage::FileSystem& fs,
                                                       const std::string& dir,
                                                       storage::LogConfig config,
                                                       int64_t flush_interval_ms = 0) {
    Result<std::unique_ptr<storage::PartitionLog>> log =
        storage::PartitionLog::open(fs, dir, std::move(config));
    if (!log.ok()) return std::move(log).take_status();
    return std::unique_ptr<PartitionDriver>(
        new PartitionDriver(std::move(*log), flush_interval_ms));
  }

  // Closes the partition (cleanly unless close() ran before) and stops the
  // cores and the sync threads.
  ~PartitionDriver() {
    close(Closing::kShutdown);
    for (size_t core = 0; core < cores_.size(); ++core) {
      asio::post(cores_.context(core), [this, core] { cores_.stop_core(core); });
    }
    for (std::thread& t : threads_) t.join();
    cores_.stop_sync_threads();
  }
  PartitionDriver(const PartitionDriver&) = delete;
  PartitionDriver& operator=(const PartitionDriver&) = delete;

  // Posts an append of a copy of `batch`, acknowledged as `ack` says; the
  // future holds the reply.
  std::future<PartitionReply> append_async(std::span<const std::byte> batch, AckAfter ack,
                                           int64_t timeout_ms = 0) {
    std::span<std::byte> rented = BufferPool::global().rent(batch.size());
    if (rented.empty()) std::abort();  // the tests' batches are small
    std::copy(batch.begin(), batch.end(), rented.begin());
    auto promise = std::make_shared<std::promise<PartitionReply>>();
    std::future<PartitionReply> answer = promise->get_future();
    Reply reply;
    reply.executor = tracked_executor(cores_.context(1));
    reply.keep_alive = promise;
    reply.ctx = promise.get();
    reply.fn = [](void* ctx, uint32_t, PartitionReply& r) {
      static_cast<std::promise<PartitionReply>*>(ctx)->set_value(std::move(r));
    };
    post_task(partition_->owner(), [partition = partition_, rented, size = batch.size(), ack,
                                    timeout_ms, reply = std::move(reply)]() mutable {
      partition->append(rented.first(size), rented.data(), ack, std::move(reply), timeout_ms);
    });
    return answer;
  }

  // Runs fn(partition, reply) on the owner core, as a handler posts a
  // replication call (replica_read, append_replicated, truncate_to,
  // epoch_end); the reply comes back on core 1 into the future.
  template <typename F>
  std::future<PartitionReply> call_async(F fn) {
    auto promise = std::make_shared<std::promise<PartitionReply>>();
    std::future<PartitionReply> answer = promise->get_future();
    Reply reply;
    reply.executor = tracked_executor(cores_.context(1));
    reply.keep_alive = promise;
    reply.ctx = promise.get();
    reply.fn = [](void* ctx, uint32_t, PartitionReply& r) {
      static_cast<std::promise<PartitionReply>*>(ctx)->set_value(std::move(r));
    };
    post_task(partition_->owner(),
              [partition = partition_, fn = std::move(fn), reply = std::move(reply)]() mutable {
                fn(*partition, std::move(reply));
              });
    return answer;
  }
  template <typename F>
  PartitionReply call(F fn) {
    return call_async(std::move(fn)).get();
  }

  // append_async() and its reply; once appended, `batch` is what the log
  // stored (its base offset set, as PartitionLog::append stamps it).
  PartitionReply append(std::vector<std::byte>& batch, AckAfter ack) {
    PartitionReply r = append_async(batch, ack).get();
    if (r.status.ok()) {
      store_be<int64_t>(batch.data() + batch::kBaseOffsetPos, r.base_offset.value());
    }
    return r;
  }
  PartitionReply append(std::vector<std::byte>&& batch, AckAfter ack) { return append(batch, ack); }

  // Runs fn(partition, log) on the owner core and returns its result: the
  // log's state is the owner's to read.
  template <typename F>
  auto on_owner(F fn) -> std::invoke_result_t<F, Partition&, storage::PartitionLog&> {
    using R = std::invoke_result_t<F, Partition&, storage::PartitionLog&>;
    std::packaged_task<R()> task([&] { return fn(*partition_, *log_); });
    std::future<R> done = task.get_future();
    asio::post(partition_->owner(), [&task] { task(); });
    return done.get();
  }

  // Closes the partition on its core: at shutdown the log is closed
  // cleanly; a deleted topic's is dropped, so that the next open sees what a
  // crash leaves. Idempotent.
  void close(Closing why) {
    on_owner([why](Partition& p, storage::PartitionLog&) { p.close(why); });
  }

  // For the accessors any thread may use (high_watermark(), corrupt()).
  const Partition& partition() const { return *partition_; }

 private:
  PartitionDriver(std::unique_ptr<storage::PartitionLog> log, int64_t flush_interval_ms)
      : log_(log.get()),
        partition_(std::make_shared<Partition>("t", PartitionId(0), std::move(log), cores_,
                                               /*core=*/0, flush_interval_ms)) {
    for (size_t core = 0; core < cores_.size(); ++core) {
      threads_.emplace_back([this, core] { cores_.run(core); });
    }
  }

  CoreSet cores_{2};
  storage::PartitionLog* log_;  // owned by partition_; read on core 0 only
  std::shared_ptr<Partition> partition_;
  std::vector<std::thread> threads_;
};

}  // namespace spillway::broker::testing
