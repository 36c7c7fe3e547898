// CoreSet: the broker's per-core runtime (thread-per-core). Core i is an
// io_context that exactly one thread runs (Server::run gives each core its
// thread; CoreSet::run is that thread's body), and with it:
//   - a sync thread with its own io_context: the blocking work of core i's
//     partitions and stores (fdatasync, reading back sealed segments,
//     offset-commit files) runs there, so core i itself never waits on the
//     disk;
//   - periodic tasks (every()): one timer per task on every core, cancelled
//     by stop_core();
//   - the "which core am I" lookup (current()), set while a thread runs a
//     core;
//   - broadcast(): a change applied on every core, reported once all have
//     applied it (topic create/delete).
//
// The ownership rule: state that belongs to a core (a Partition, a core's
// copy of the topic table, a session) is touched only on that core's thread,
// which is why none of it has a lock. check_on_core() asserts the rule at
// the top of every such method in builds with SPILLWAY_CHECK_CORES (on
// unless NDEBUG, as Redpanda's `oncore` checks in iobuf.h): it costs one
// thread_local read and is compiled out of release builds.
//
// Threading: size(), context(), sync_context(), current() and broadcast()
// from any thread; every() before the cores run or on any thread (the timers
// are armed on their own cores); stop_core() on the core it stops.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <thread>
#include <vector>

#ifndef SPILLWAY_CHECK_CORES
#ifdef NDEBUG
#define SPILLWAY_CHECK_CORES 0
#else
#define SPILLWAY_CHECK_CORES 1
#endif
#endif

namespace spillway::broker {

// Whether check_on_core() checks anything in this translation unit.
inline constexpr bool kCheckCores = SPILLWAY_CHECK_CORES != 0;

namespace core_detail {
inline constexpr size_t kNoCore = SIZE_MAX;
// The calling thread's core; kNoCore on any other thread.
inline thread_local size_t t_current = kNoCore;
}  // namespace core_detail

class CoreSet {
 public:
  static constexpr size_t kNoCore = core_detail::kNoCore;

  // `cores` >= 1 io_contexts and their sync threads (started here). The
  // cores do not run until something calls run().
  explicit CoreSet(size_t cores);
  // Ends the sync threads (stop_sync_threads()); every core thread must
  // have ended.
  ~CoreSet();
  CoreSet(const CoreSet&) = delete;
  CoreSet& operator=(const CoreSet&) = delete;

  size_t size() const { return cores_.size(); }
  asio::io_context& context(size_t core) { return cores_[core]->context; }
  // Core `core`'s blocking thread (fdatasync, offset commits).
  asio::io_context& sync_context(size_t core) { return cores_[core]->sync; }

  // The calling thread's core, or kNoCore (main, sync threads, clients).
  static size_t current() noexcept { return core_detail::t_current; }

  // Makes the calling thread count as core `core` until destroyed, then
  // restores what it was. For a thread that drives a core's context itself:
  // run(), tests that poll a core, and main closing partitions after the
  // core threads have ended. Precondition: no other thread runs the core
  // meanwhile.
  class Binding {
   public:
    explicit Binding(size_t core) noexcept : previous_(core_detail::t_current) {
      core_detail::t_current = core;
    }
    ~Binding() { core_detail::t_current = previous_; }
    Binding(const Binding&) = delete;
    Binding& operator=(const Binding&) = delete;

   private:
    size_t previous_;
  };

  // Runs core `core` on the calling thread (bound as that core) until it has
  // no work left: after stop_core() once the rest of its work is done, or
  // halt(). Call once per core, from the thread that is to be the core.
  void run(size_t core);

  // Calls task(core) on every core every `period`, from the time the core
  // runs until stop_core() (or halt()).
  void every(std::chrono::milliseconds period, std::function<void(size_t core)> task);

  // Posts apply(core) to every core; `done` is posted to `executor` after
  // the last one has run. Any thread.
  void broadcast(std::function<void(size_t core)> apply, asio::any_io_executor executor,
                 std::function<void()> done);

  // On core `core`'s thread, when the broker stops: cancels its periodic
  // tasks and lets run() return once the work left on it is done.
  void stop_core(size_t core);
  // Any thread: every core's run() returns as soon as its current handler
  // does, work left or not (a shutdown that ran out of time).
  void halt();
  // After every core thread has ended: destroys the handlers still queued
  // on the cores (never run; e.g. the sessions cut by halt()), so that what
  // they hold dies before its owner. The cores cannot run afterwards.
  void discard_queued_work();

  // Runs what is queued on the sync threads and ends them. Idempotent; work
  // posted to them afterwards is never run.
  void stop_sync_threads();

 private:
  // io_context with the protected shutdown() reachable, for
  // discard_queued_work() (asio's documented way to destroy queued
  // handlers before the context itself).
  class Context : public asio::io_context {
   public:
    Context() : asio::io_context(1) {}  // one thread runs it: no internal locking
    using asio::execution_context::shutdown;
  };
  struct Periodic;
  struct Core {
    Context context;
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
    std::vector<std::shared_ptr<Periodic>> periodic;  // on the core's thread
    asio::io_context sync{1};
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> sync_work;
    std::thread sync_thread;
  };

  static void arm(std::shared_ptr<Periodic> task);

  std::vector<std::unique_ptr<Core>> cores_;
};

// Aborts the process with a message naming `where` and both cores. The
// out-of-line half of check_on_core().
[[noreturn]] void fail_core_check(size_t owner, const std::source_location& where);

// Asserts (with SPILLWAY_CHECK_CORES) that the calling thread is core
// `owner`; see the file comment.
inline void check_on_core(size_t owner,
                          const std::source_location& where = std::source_location::current()) {
  if constexpr (kCheckCores) {
    if (CoreSet::current() != owner) fail_core_check(owner, where);
  }
}

}  // namespace spillway::broker
