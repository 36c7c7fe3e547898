// Crash-test child: appends batches to a `durable` partition from three
// threads until it is killed, the way the broker does (partition_driver.h:
// group commit on the owner core, the fdatasync on its sync thread), writing
// a CrashAck to the pipe (argv[2]) after every acknowledged append.
// Usage: storage_crash_child <dir> <ack fd> <seed>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "crash_ack.h"
#include "partition_driver.h"
#include "spillway/storage/partition_log.h"
#include "test_batches.h"

using namespace spillway::storage;
using spillway::broker::PartitionReply;
using spillway::broker::testing::PartitionDriver;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <dir> <ack fd> <seed>\n", argv[0]);
    return 2;
  }
  const int ack_fd = std::atoi(argv[2]);
  const uint64_t seed = std::strtoull(argv[3], nullptr, 10);
  LogConfig config;
  config.segment_bytes = 64 * 1024;
  config.index_interval_bytes = 1024;
  config.flush_policy = FlushPolicy::kDurable;
  auto partition = PartitionDriver::open(posix_file_system(), argv[1], config);
  if (!partition.ok()) {
    std::fprintf(stderr, "open: %s\n", partition.status().to_string().c_str());
    return 1;
  }
  PartitionDriver& shared = **partition;
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t i = 0;; ++i) {
        const uint64_t r = testing::mix64(seed * 131 + t * 1'000'003 + i);
        testing::Bytes b = testing::make_batch(1 + int32_t(r % 6), 20 + (r >> 8) % 1500, r);
        PartitionReply done = shared.append(b, spillway::broker::AckAfter::kSync);
        if (!done.status.ok()) {
          std::fprintf(stderr, "append: %s\n", done.status.to_string().c_str());
          std::_Exit(1);
        }
        const testing::CrashAck ack{.base_offset = done.base_offset.value(),
                                    .last_offset = done.last_offset.value(),
                                    .size = b.size(),
                                    .hash = testing::fnv1a64(b)};
        if (::write(ack_fd, &ack, sizeof(ack)) != sizeof(ack)) std::_Exit(1);
      }
    });
  }
  for (auto& t : threads) t.join();
}
