// SendfileWriter: writes a batch of response frames whose bytes lie partly
// in memory (each frame's iovecs) and partly in files (its file ranges,
// Exchange::FileRange) to a plaintext socket: sendmsg(2) for the memory,
// sendfile(2) for the files, in frame order, so record bytes go from the
// page cache to the socket without a copy in user space
// (docs/architecture.md, "Fetch data by sendfile").
//
// The socket is non-blocking: write() sends as much as the socket takes and
// says when it would block; the caller waits for writability and calls it
// again. The memory runs before a file range are sent with MSG_MORE, so a
// small header does not go out as a packet of its own.
//
// A file that ends before its range (a segment truncated meanwhile) cannot
// be papered over: the frame's length is already on the wire, so the batch
// fails with kFileCutShort and the connection must close.
//
// Memory: the iovec and range tables are vectors reused batch after batch;
// they grow to the largest batch a connection has sent (bounded by its
// in-flight exchanges, each at most Exchange::kMaxFileRanges ranges), so
// the steady state allocates nothing.
//
// Threading: the connection's thread. The ranges' descriptors must stay open
// (their exchanges unrecycled) until the batch is done or abandoned.
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "../protocol/exchange.h"

namespace spillway::broker {

// Process-wide counts for /metrics (relaxed atomics, any thread).
struct SendfileCounters {
  std::atomic<uint64_t> bytes{0};      // file bytes sent with sendfile
  std::atomic<uint64_t> cut_short{0};  // connections closed: a file ended inside a range
  static SendfileCounters& global() noexcept;
};

class SendfileWriter {
 public:
  enum class Outcome {
    kDone,          // every byte of the batch is sent
    kWouldBlock,    // the socket is full: wait until writable, call write() again
    kFailed,        // the socket failed; error() has the errno
    kFileCutShort,  // a file ended before its range: close the connection
  };

  // Turns off SIGPIPE for the process unless a handler is installed:
  // sendfile(2), unlike sendmsg, has no MSG_NOSIGNAL, and a peer that closed
  // its connection must not kill the broker. Idempotent and thread-safe.
  static void ignore_sigpipe() noexcept;

  // Empties the batch (keeps the tables' capacity).
  void clear() noexcept;
  // Appends one frame: its in-memory bytes and the file ranges that go
  // between them (in order of FileRange::at). Both spans must stay valid
  // until the batch is done.
  void add(std::span<const iovec> segments, std::span<const Exchange::FileRange> ranges);
  // Sends on `socket` (non-blocking) from where the last call stopped.
  Outcome write(int socket) noexcept;

  int error() const noexcept { return error_; }
  // File bytes of this batch sent so far.
  uint64_t file_bytes_sent() const noexcept { return file_bytes_; }

 private:
  // A file range to send before iovs_[iov].
  struct Cut {
    size_t iov;
    const Exchange::FileRange* range;
  };
  // Sends iovs_[iov_, stop) (kDone once all of it is sent).
  Outcome send_memory(int socket, size_t stop) noexcept;
  // Sends the rest of cuts_[cut_]'s range (kDone once all of it is sent).
  Outcome send_file(int socket) noexcept;

  std::vector<iovec> iovs_;  // advanced in place as bytes go out
  std::vector<Cut> cuts_;
  size_t iov_ = 0;
  size_t cut_ = 0;
  uint64_t range_sent_ = 0;  // of cuts_[cut_]'s range
  uint64_t file_bytes_ = 0;
  int error_ = 0;
};

}  // namespace spillway::broker
