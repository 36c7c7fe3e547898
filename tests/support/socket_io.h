// Blocking socket reads for tests that speak the wire protocol by hand.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <cerrno>
#include <cstddef>

namespace spillway::testing {

// Reads exactly `n` bytes into `dst`; false on EOF, error or timeout (the
// socket's SO_RCVTIMEO), with an unknown number of bytes read.
inline bool read_exactly(int fd, std::byte* dst, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::recv(fd, dst + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;  // a signal (e.g. librdkafka's) is not an error
    if (r <= 0) return false;
    got += static_cast<std::size_t>(r);
  }
  return true;
}

}  // namespace spillway::testing
