// SendfileWriter: sendmsg for the frames' memory, sendfile for their files.
#include "sendfile_writer.h"

#include <sys/sendfile.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <csignal>

namespace spillway::broker {

namespace {
// iovecs per sendmsg (the kernel's UIO_MAXIOV).
constexpr size_t kMaxIovPerSend = 1024;
// Largest count one sendfile call takes (the kernel caps it there anyway).
constexpr uint64_t kMaxSendfileBytes = 0x7ffff000;
}  // namespace

SendfileCounters& SendfileCounters::global() noexcept {
  static SendfileCounters counters;
  return counters;
}

void SendfileWriter::ignore_sigpipe() noexcept {
  static const bool done = [] {
    struct sigaction current {};
    // A host program's own handler stays: sendfile then fails with EPIPE.
    if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
      ::signal(SIGPIPE, SIG_IGN);
    }
    return true;
  }();
  (void)done;
}

void SendfileWriter::clear() noexcept {
  iovs_.clear();
  cuts_.clear();
  iov_ = cut_ = 0;
  range_sent_ = file_bytes_ = 0;
  error_ = 0;
}

void SendfileWriter::add(std::span<const iovec> segments,
                         std::span<const Exchange::FileRange> ranges) {
  // Each range goes before the frame's byte at `at`: an iovec that spans
  // that byte is split there.
  uint64_t offset = 0;  // of the segment's first byte in the frame
  size_t next = 0;
  for (const iovec& v : segments) {
    auto* base = static_cast<std::byte*>(v.iov_base);
    size_t done = 0;
    while (next < ranges.size() && ranges[next].at < offset + v.iov_len) {
      const auto cut = static_cast<size_t>(ranges[next].at - offset);
      if (cut > done) iovs_.push_back({base + done, cut - done});
      cuts_.push_back({iovs_.size(), &ranges[next]});
      done = cut;
      ++next;
    }
    if (v.iov_len > done) iovs_.push_back({base + done, v.iov_len - done});
    offset += v.iov_len;
  }
  // Ranges at the very end of the frame's memory.
  for (; next < ranges.size(); ++next) cuts_.push_back({iovs_.size(), &ranges[next]});
}

SendfileWriter::Outcome SendfileWriter::write(int socket) noexcept {
  for (;;) {
    const size_t stop = cut_ < cuts_.size() ? cuts_[cut_].iov : iovs_.size();
    if (iov_ < stop) {
      if (Outcome o = send_memory(socket, stop); o != Outcome::kDone) return o;
      continue;
    }
    if (cut_ == cuts_.size()) return Outcome::kDone;
    if (Outcome o = send_file(socket); o != Outcome::kDone) return o;
    ++cut_;
    range_sent_ = 0;
  }
}

SendfileWriter::Outcome SendfileWriter::send_memory(int socket, size_t stop) noexcept {
  while (iov_ < stop) {
    const size_t count = std::min(stop - iov_, kMaxIovPerSend);
    msghdr msg{};
    msg.msg_iov = &iovs_[iov_];
    msg.msg_iovlen = count;
    // More follows (a file range, or iovecs past this call's share): let the
    // kernel fill the packet instead of pushing the header alone.
    const bool more = iov_ + count < iovs_.size() || cut_ < cuts_.size();
    const ssize_t n = ::sendmsg(socket, &msg, MSG_NOSIGNAL | (more ? MSG_MORE : 0));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return Outcome::kWouldBlock;
      error_ = errno;
      return Outcome::kFailed;
    }
    // A short send: advance the table in place.
    auto left = static_cast<size_t>(n);
    while (left > 0 && left >= iovs_[iov_].iov_len) left -= iovs_[iov_++].iov_len;
    if (left > 0) {
      iovs_[iov_].iov_base = static_cast<std::byte*>(iovs_[iov_].iov_base) + left;
      iovs_[iov_].iov_len -= left;
    }
    // Empty iovecs (none are added, but a frame may end exactly here).
    while (iov_ < stop && iovs_[iov_].iov_len == 0) ++iov_;
  }
  return Outcome::kDone;
}

SendfileWriter::Outcome SendfileWriter::send_file(int socket) noexcept {
  const Exchange::FileRange& range = *cuts_[cut_].range;
  while (range_sent_ < range.length) {
    auto offset = static_cast<off_t>(range.position + range_sent_);
    const uint64_t want = std::min(range.length - range_sent_, kMaxSendfileBytes);
    const ssize_t n = ::sendfile(socket, range.fd, &offset, static_cast<size_t>(want));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return Outcome::kWouldBlock;
      error_ = errno;
      return Outcome::kFailed;
    }
    // At the end of the file before the end of the range: the segment was
    // cut after the fetch read it.
    if (n == 0) return Outcome::kFileCutShort;
    range_sent_ += static_cast<uint64_t>(n);
    file_bytes_ += static_cast<uint64_t>(n);
    SendfileCounters::global().bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
  }
  return Outcome::kDone;
}

}  // namespace spillway::broker
