// GatherWriter: flushes a WriteBuffer's segment table to a file, pipe or
// socket as one gather write, never coalescing it into a copy.
//
// With io_uring (liburing) the iovec array goes out as one WRITEV or SENDMSG
// SQE; without it, as writev(2)/sendmsg(2). The backend is chosen once per
// process (active_gather_backend()) and reported once, at info level,
// through the library log sink (log_sink.h): io_uring unless the kernel or a
// seccomp profile (Docker's default) refuses it, or the environment sets
// SPILLWAY_DISABLE_IO_URING=1.
//
// Short writes are re-queued with the iovec advanced; -EAGAIN waits for the
// descriptor to become writable; -EINTR retries. Other errors come back as a
// Status. Steady state allocates nothing.
//
// Concurrency: one GatherWriter per thread (it owns its ring); calls on it
// must not overlap. Write to one descriptor from one writer at a time.
#pragma once

#include <liburing.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "spillway/common/status.h"

namespace spillway {

enum class GatherBackend : uint8_t { kIoUring, kWritev };

// "io_uring" or "writev".
const char* gather_backend_name(GatherBackend backend) noexcept;

// True iff this process can use io_uring writev/sendmsg (probed once,
// ignoring SPILLWAY_DISABLE_IO_URING).
bool io_uring_supported() noexcept;

// True iff `value` (of SPILLWAY_DISABLE_IO_URING; null if unset) turns
// io_uring off: any value but "", "0", "false", "no".
bool io_uring_disabled_by(const char* value) noexcept;

// The backend new GatherWriters use. Decided on first call from
// io_uring_supported() and the environment, and logged once.
GatherBackend active_gather_backend() noexcept;

class GatherWriter {
 public:
  struct Stats {
    uint64_t submissions = 0;  // SQEs submitted or syscalls made
    uint64_t requeued = 0;     // short writes sent again with the iovec advanced
    uint64_t would_block = 0;  // -EAGAIN waits
  };

  // Uses `backend`; if that is kIoUring and this writer's ring cannot be set
  // up, falls back to kWritev (and logs a warning).
  explicit GatherWriter(GatherBackend backend = active_gather_backend()) noexcept;
  ~GatherWriter();
  GatherWriter(const GatherWriter&) = delete;
  GatherWriter& operator=(const GatherWriter&) = delete;

  GatherBackend backend() const noexcept { return backend_; }
  const Stats& stats() const noexcept { return stats_; }

  // Writes every byte `iov` describes to `fd`, in order, blocking until done
  // (writev semantics: file position for files). Error codes: kNotConnected
  // when the peer is gone (EPIPE, ECONNRESET), kIoError otherwise; bytes
  // before the failure may have been written. `iov` is not modified.
  Status write_all(int fd, std::span<const iovec> iov) noexcept { return flush(fd, iov, false); }
  // The same for a socket, through sendmsg with MSG_NOSIGNAL (no SIGPIPE).
  Status send_all(int fd, std::span<const iovec> iov) noexcept { return flush(fd, iov, true); }

 private:
  // Entries copied per submission; longer tables go out in several.
  static constexpr std::size_t kMaxIov = 256;

  Status flush(int fd, std::span<const iovec> iov, bool socket) noexcept;
  // Submits one gather write; returns bytes written or -errno.
  long submit(int fd, const iovec* iov, std::size_t count, bool socket) noexcept;

  GatherBackend backend_;
  bool ring_ready_ = false;
  io_uring ring_{};
  Stats stats_;
  iovec work_[kMaxIov];  // the advancing copy of the caller's table
};

}  // namespace spillway
