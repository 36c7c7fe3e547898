// GatherWriter: io_uring writev/sendmsg with a writev/sendmsg fallback.
#include "spillway/common/gather_writer.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "spillway/common/log_sink.h"

namespace spillway {
namespace {

constexpr unsigned kRingEntries = 4;

Status error_status(long neg_errno) {
  const int e = static_cast<int>(-neg_errno);
  const ErrorCode code =
      (e == EPIPE || e == ECONNRESET) ? ErrorCode::kNotConnected : ErrorCode::kIoError;
  return Status(code, std::string("gather write failed: ") + std::strerror(e));
}

// Blocks until `fd` is writable (or reports an error condition, which the
// next write will surface).
void wait_writable(int fd) {
  pollfd p{fd, POLLOUT, 0};
  while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
  }
}

bool probe_io_uring() {
  io_uring ring;
  if (io_uring_queue_init(kRingEntries, &ring, 0) < 0) return false;
  bool ok = false;
  if (io_uring_probe* probe = io_uring_get_probe_ring(&ring)) {
    ok = io_uring_opcode_supported(probe, IORING_OP_WRITEV) &&
         io_uring_opcode_supported(probe, IORING_OP_SENDMSG);
    io_uring_free_probe(probe);
  }
  io_uring_queue_exit(&ring);
  return ok;
}

}  // namespace

const char* gather_backend_name(GatherBackend backend) noexcept {
  return backend == GatherBackend::kIoUring ? "io_uring" : "writev";
}

bool io_uring_supported() noexcept {
  static const bool supported = probe_io_uring();
  return supported;
}

bool io_uring_disabled_by(const char* value) noexcept {
  if (!value) return false;
  const std::string_view v(value);
  return !(v.empty() || v == "0" || v == "false" || v == "no");
}

GatherBackend active_gather_backend() noexcept {
  static const GatherBackend chosen = [] {
    // Info, not a warning: writev is the supported path wherever io_uring is
    // refused (Docker's default seccomp profile), and an application cannot
    // act on it. The application's log handler decides whether it is shown.
    if (io_uring_disabled_by(std::getenv("SPILLWAY_DISABLE_IO_URING"))) {
      log::write(LogLevel::kInfo,
                 "gather writes: writev (io_uring disabled by SPILLWAY_DISABLE_IO_URING)");
      return GatherBackend::kWritev;
    }
    if (!io_uring_supported()) {
      log::write(LogLevel::kInfo,
                 "gather writes: writev (io_uring unavailable here, e.g. seccomp or kernel)");
      return GatherBackend::kWritev;
    }
    log::write(LogLevel::kInfo, "gather writes: io_uring");
    return GatherBackend::kIoUring;
  }();
  return chosen;
}

GatherWriter::GatherWriter(GatherBackend backend) noexcept : backend_(backend) {
  if (backend_ == GatherBackend::kIoUring) {
    const int rc = io_uring_queue_init(kRingEntries, &ring_, 0);
    if (rc < 0) {
      // The probe succeeded, so this is unexpected (a ring limit, memory).
      if (log::enabled(LogLevel::kWarn)) {
        log::write(LogLevel::kWarn, std::string("gather writer: io_uring setup failed (") +
                                        std::strerror(-rc) + "), using writev");
      }
      backend_ = GatherBackend::kWritev;
    } else {
      ring_ready_ = true;
    }
  }
}

GatherWriter::~GatherWriter() {
  if (ring_ready_) io_uring_queue_exit(&ring_);
}

long GatherWriter::submit(int fd, const iovec* iov, std::size_t count, bool socket) noexcept {
  ++stats_.submissions;
  msghdr msg{};
  msg.msg_iov = const_cast<iovec*>(iov);
  msg.msg_iovlen = count;
  if (backend_ == GatherBackend::kWritev) {
    const ssize_t n =
        socket ? ::sendmsg(fd, &msg, MSG_NOSIGNAL) : ::writev(fd, iov, static_cast<int>(count));
    return n < 0 ? -static_cast<long>(errno) : static_cast<long>(n);
  }
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (!sqe) return -EBUSY;  // cannot happen: one SQE in flight at a time
  if (socket) {
    io_uring_prep_sendmsg(sqe, fd, &msg, MSG_NOSIGNAL);
  } else {
    // Offset -1: the file position, as writev(2) uses it (and pipes ignore).
    io_uring_prep_writev(sqe, fd, iov, static_cast<unsigned>(count), static_cast<__u64>(-1));
  }
  io_uring_sqe_set_data64(sqe, static_cast<__u64>(fd));
  int rc;
  do {
    rc = io_uring_submit(&ring_);
  } while (rc == -EINTR);
  if (rc < 0) return rc;
  io_uring_cqe* cqe = nullptr;
  do {
    rc = io_uring_wait_cqe(&ring_, &cqe);
  } while (rc == -EINTR);
  if (rc < 0) return rc;
  const long res = cqe->res;
  io_uring_cqe_seen(&ring_, cqe);
  return res;
}

Status GatherWriter::flush(int fd, std::span<const iovec> iov, bool socket) noexcept {
  while (!iov.empty()) {
    // Copy the next slice of the table; skip empty entries.
    std::size_t count = 0, used = 0;
    while (used < iov.size() && count < kMaxIov) {
      if (iov[used].iov_len) work_[count++] = iov[used];
      ++used;
    }
    iov = iov.subspan(used);
    iovec* v = work_;
    while (count > 0) {
      const long res = submit(fd, v, count, socket);
      if (res == -EINTR) continue;
      if (res == -EAGAIN || res == -EWOULDBLOCK) {
        ++stats_.would_block;
        wait_writable(fd);
        continue;
      }
      if (res < 0) return error_status(res);
      if (res == 0) return Status(ErrorCode::kIoError, "gather write made no progress");
      // Advance past what was written; a partial entry keeps its tail.
      auto left = static_cast<std::size_t>(res);
      while (count > 0 && left >= v->iov_len) {
        left -= v->iov_len;
        ++v;
        --count;
      }
      if (count > 0) {
        v->iov_base = static_cast<std::byte*>(v->iov_base) + left;
        v->iov_len -= left;
        ++stats_.requeued;
      }
    }
  }
  return Status::Ok();
}

}  // namespace spillway
