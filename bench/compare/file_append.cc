// The storage ceiling of bench/compare: bytes/s of buffered appends to one
// fresh file, the way a broker appends to a log segment (page cache only; no
// fsync until the end). A broker that stores what it receives cannot produce
// faster than this on the same filesystem; on this VM writing into new
// page-cache pages is sometimes far slower than TCP loopback, so the produce
// rows are also shown as a fraction of this.
//
//   file_append DIR SECONDS [WRITE_BYTES]     (WRITE_BYTES defaults to 256 KiB)
// Creates a new file in DIR, pwrite()s WRITE_BYTES buffers at increasing
// offsets for SECONDS, then fdatasync()s once, closes and deletes the file.
// Prints "RESULT file_append write_bytes=.. bytes=.. secs=.. mb_per_s=..
// fdatasync_ms=.." where the rate is the appends alone (the final fdatasync
// is reported separately and not counted).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

std::string g_path;  // removed on failure too

[[noreturn]] void die(const char* what) {
  std::perror(what);
  if (!g_path.empty()) unlink(g_path.c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: file_append DIR SECONDS [WRITE_BYTES]\n");
    return 2;
  }
  const double seconds = std::atof(argv[2]);
  const long write_bytes = argc == 4 ? std::atol(argv[3]) : 256l << 10;
  if (write_bytes <= 0 || write_bytes > (64l << 20) || seconds <= 0) {
    std::fprintf(stderr, "file_append: WRITE_BYTES in 1..64 MiB, SECONDS > 0\n");
    return 2;
  }

  std::string path = std::string(argv[1]) + "/file_append.XXXXXX";
  const int fd = mkstemp(path.data());  // a new, empty file (O_CREAT | O_EXCL)
  if (fd < 0) die("mkstemp");
  g_path = path;

  std::vector<char> chunk(static_cast<size_t>(write_bytes), 'x');
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  uint64_t offset = 0;
  auto last = start;
  while (last < end) {
    size_t done = 0;
    while (done < chunk.size()) {
      const ssize_t n =
          pwrite(fd, chunk.data() + done, chunk.size() - done, static_cast<off_t>(offset + done));
      if (n < 0) die("pwrite");
      done += static_cast<size_t>(n);
    }
    offset += chunk.size();
    last = Clock::now();
  }
  const double append_secs = std::chrono::duration<double>(last - start).count();

  const auto sync_start = Clock::now();
  if (fdatasync(fd) != 0) die("fdatasync");
  const double sync_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - sync_start).count();
  close(fd);
  if (unlink(path.c_str()) != 0) die("unlink");

  std::printf(
      "RESULT file_append write_bytes=%ld bytes=%llu secs=%.3f mb_per_s=%.1f "
      "fdatasync_ms=%.1f\n",
      write_bytes, static_cast<unsigned long long>(offset), append_secs,
      append_secs > 0 ? static_cast<double>(offset) / append_secs / 1e6 : 0.0, sync_ms);
  return 0;
}
