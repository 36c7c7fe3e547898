// CoreSet: io_contexts, sync threads, periodic timers and the core lookup.
#include "runtime/core_set.h"

#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace spillway::broker {

struct CoreSet::Periodic {
  Periodic(asio::io_context& context, size_t core, std::chrono::milliseconds period,
           std::function<void(size_t)> task)
      : timer(context), core(core), period(period), task(std::move(task)) {}
  asio::steady_timer timer;
  const size_t core;
  const std::chrono::milliseconds period;
  const std::function<void(size_t)> task;
  bool cancelled = false;  // a wait that already completed must not re-arm it
};

CoreSet::CoreSet(size_t cores) {
  if (cores == 0) cores = 1;
  for (size_t i = 0; i < cores; ++i) {
    auto core = std::make_unique<Core>();
    core->work.emplace(core->context.get_executor());
    core->sync_work.emplace(core->sync.get_executor());
    Core* c = core.get();
    core->sync_thread = std::thread([c] { c->sync.run(); });
    cores_.push_back(std::move(core));
  }
}

CoreSet::~CoreSet() {
  stop_sync_threads();
}

void CoreSet::run(size_t core) {
  Binding bound(core);
  cores_[core]->context.run();
}

void CoreSet::arm(std::shared_ptr<Periodic> task) {
  task->timer.expires_after(task->period);
  task->timer.async_wait([task](asio::error_code ec) {
    if (ec || task->cancelled) return;
    task->task(task->core);
    arm(task);
  });
}

void CoreSet::every(std::chrono::milliseconds period, std::function<void(size_t core)> task) {
  for (size_t i = 0; i < cores_.size(); ++i) {
    auto periodic = std::make_shared<Periodic>(cores_[i]->context, i, period, task);
    // The list and the timer are the core's: both are touched on its thread.
    asio::post(cores_[i]->context, [this, i, periodic = std::move(periodic)] {
      check_on_core(i);
      cores_[i]->periodic.push_back(periodic);
      arm(periodic);
    });
  }
}

void CoreSet::broadcast(std::function<void(size_t core)> apply, asio::any_io_executor executor,
                        std::function<void()> done) {
  struct Pending {
    std::atomic<size_t> left;
    std::function<void(size_t)> apply;
    asio::any_io_executor executor;
    std::function<void()> done;
  };
  auto pending = std::make_shared<Pending>();
  pending->left = cores_.size();
  pending->apply = std::move(apply);
  pending->executor = std::move(executor);
  pending->done = std::move(done);
  for (size_t i = 0; i < cores_.size(); ++i) {
    asio::post(cores_[i]->context, [pending, i] {
      check_on_core(i);
      pending->apply(i);
      if (pending->left.fetch_sub(1) == 1) {
        asio::post(pending->executor, [pending] { pending->done(); });
      }
    });
  }
}

void CoreSet::stop_core(size_t core) {
  check_on_core(core);
  Core& c = *cores_[core];
  for (auto& periodic : c.periodic) {
    periodic->cancelled = true;
    periodic->timer.cancel();
  }
  c.periodic.clear();
  c.work.reset();
}

void CoreSet::halt() {
  for (auto& core : cores_) core->context.stop();
}

void CoreSet::discard_queued_work() {
  for (auto& core : cores_) {
    core->work.reset();
    core->context.stop();
    core->context.shutdown();
  }
}

void CoreSet::stop_sync_threads() {
  for (auto& core : cores_) {
    core->sync_work.reset();
    if (core->sync_thread.joinable()) core->sync_thread.join();
  }
}

void fail_core_check(size_t owner, const std::source_location& where) {
  const size_t current = CoreSet::current();
  char on[32];
  if (current == CoreSet::kNoCore) {
    std::snprintf(on, sizeof(on), "a thread that is no core");
  } else {
    std::snprintf(on, sizeof(on), "core %zu", current);
  }
  std::fprintf(stderr, "%s:%u: %s: owned by core %zu, called on %s\n", where.file_name(),
               static_cast<unsigned>(where.line()), where.function_name(), owner, on);
  std::abort();
}

}  // namespace spillway::broker
