// Crash test with real processes: a child appends under the `durable` policy
// through the broker's Partition (crash_child.cc) and reports each
// acknowledged batch over a pipe; the parent SIGKILLs it at
// random moments, reopens the log and checks that every acknowledged batch
// reads back byte-identical and that offsets stay dense and monotonic.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <random>

#include "crash_ack.h"
#include "log_testing.h"
#include "spillway/storage/partition_log.h"

extern char** environ;

namespace spillway::storage {
namespace {

using testing::CrashAck;

// Runs the child and kills it `run_for` after its start, or after its first
// ack when `after_first_ack`; returns every ack it sent.
std::vector<CrashAck> run_and_kill(const std::string& dir, uint64_t seed, bool after_first_ack,
                                   std::chrono::microseconds run_for) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  ::fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  const std::string fd_arg = std::to_string(fds[1]);
  const std::string seed_arg = std::to_string(seed);
  char* argv[] = {const_cast<char*>(SPILLWAY_CRASH_CHILD), const_cast<char*>(dir.c_str()),
                  const_cast<char*>(fd_arg.c_str()), const_cast<char*>(seed_arg.c_str()), nullptr};
  pid_t pid = -1;
  EXPECT_EQ(::posix_spawn(&pid, SPILLWAY_CRASH_CHILD, nullptr, nullptr, argv, environ), 0);
  ::close(fds[1]);
  std::vector<CrashAck> acks;
  std::vector<std::byte> pending;
  auto drain = [&](int timeout_ms) {
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return false;
    std::byte buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof(buf));
    if (n <= 0) return false;
    pending.insert(pending.end(), buf, buf + n);
    return true;
  };
  if (after_first_ack) {
    // Generous bound so a slow machine (sanitizers, loaded CI) cannot make
    // the round ackless; the child acks within milliseconds normally.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (pending.size() < sizeof(CrashAck) && std::chrono::steady_clock::now() < give_up) {
      drain(5);
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + run_for;
  while (std::chrono::steady_clock::now() < deadline) drain(1);
  ::kill(pid, SIGKILL);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  EXPECT_TRUE(WIFSIGNALED(wstatus)) << "child exited on its own, status " << wstatus;
  while (drain(0)) {
  }
  ::close(fds[0]);
  EXPECT_EQ(pending.size() % sizeof(CrashAck), 0u);
  for (std::size_t i = 0; i + sizeof(CrashAck) <= pending.size(); i += sizeof(CrashAck)) {
    CrashAck a;
    std::memcpy(&a, pending.data() + i, sizeof(a));
    acks.push_back(a);
  }
  return acks;
}

TEST(Crash, AcknowledgedBatchesSurviveSigkill) {
  testing::ScratchDir scratch;
  const std::string dir = scratch.path() + "/crash-0";
  uint64_t seed = 20261129;
  if (const char* s = std::getenv("SPILLWAY_CRASH_SEED")) seed = std::strtoull(s, nullptr, 10);
  SCOPED_TRACE("SPILLWAY_CRASH_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::map<int64_t, CrashAck> acked;
  constexpr int kRounds = 50;
  std::size_t rounds_with_acks = 0, rounds_after_ack = 0;
  for (int round = 0; round < kRounds; ++round) {
    // One round in five kills at a random moment from the start (often during
    // startup or recovery); the others a random moment after the first ack,
    // up to a few dozen group commits later.
    const bool after_first_ack = rng() % 5 != 0;
    rounds_after_ack += after_first_ack;
    const auto run_for = std::chrono::microseconds(rng() % 20'000);
    std::vector<CrashAck> acks = run_and_kill(dir, seed + round, after_first_ack, run_for);
    rounds_with_acks += !acks.empty();
    for (const CrashAck& a : acks) {
      auto [it, inserted] = acked.emplace(a.base_offset, a);
      EXPECT_TRUE(inserted) << "offset " << a.base_offset << " acknowledged twice";
    }
    LogConfig config;
    config.segment_bytes = 64 * 1024;
    config.index_interval_bytes = 1024;
    config.flush_policy = FlushPolicy::kDurable;
    auto log = PartitionLog::open(posix_file_system(), dir, config);
    ASSERT_TRUE(log.ok()) << log.status().to_string();
    // Dense and monotonic (read_batches checks), and every ack is there.
    std::vector<testing::Bytes> batches = testing::read_batches(**log, 0, 256 * 1024);
    std::map<int64_t, const testing::Bytes*> by_offset;
    for (const auto& b : batches) by_offset[batch::parse_header(b)->base_offset] = &b;
    for (const auto& [offset, a] : acked) {
      auto it = by_offset.find(offset);
      ASSERT_NE(it, by_offset.end()) << "round " << round << ": acked offset " << offset << " lost";
      EXPECT_EQ(it->second->size(), a.size) << offset;
      EXPECT_EQ(testing::fnv1a64(*it->second), a.hash)
          << "round " << round << ": offset " << offset << " changed";
      EXPECT_EQ(batch::parse_header(*it->second)->last_offset(), a.last_offset);
    }
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GT(acked.size(), 0u);
  EXPECT_GE(rounds_with_acks, rounds_after_ack);
  std::printf("crash test: %d rounds, %zu with acks, %zu acknowledged batches checked\n", kRounds,
              rounds_with_acks, acked.size());
}

}  // namespace
}  // namespace spillway::storage
