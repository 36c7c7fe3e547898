// parallel_for: runs fn(i) for every i in [0, count) on up to `threads`
// threads (the calling thread is one of them), each index once, handed out
// from a shared counter so that slow items do not hold up a fixed share.
// Returns when every call has returned. For blocking work done once, not
// for a hot path: it starts and joins its threads on each call (opening a
// broker's partition logs at start, closing them at shutdown).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace spillway {

template <typename Fn>
void parallel_for(std::size_t count, std::size_t threads, Fn&& fn) {
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < count;) fn(i);
  };
  const std::size_t n = std::clamp<std::size_t>(count, 1, std::max<std::size_t>(threads, 1));
  std::vector<std::thread> pool;
  pool.reserve(n - 1);
  for (std::size_t t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace spillway
