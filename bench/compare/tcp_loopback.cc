// The physical ceiling of bench/compare: bytes/s through one TCP loopback
// connection, a sender thread writing fixed-size buffers and a receiver
// thread reading into a 256 KiB buffer, both as fast as they can.
//
//   tcp_loopback WRITE_BYTES SECONDS
// Prints "RESULT raw write_bytes=.. bytes=.. secs=.. mb_per_s=.." where the
// rate is bytes the receiver got over the receiver's first-to-last byte.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: tcp_loopback WRITE_BYTES SECONDS\n");
    return 2;
  }
  const long write_bytes = std::atol(argv[1]);
  const double seconds = std::atof(argv[2]);
  if (write_bytes <= 0 || write_bytes > (64l << 20) || seconds <= 0) {
    std::fprintf(stderr, "tcp_loopback: WRITE_BYTES in 1..64 MiB, SECONDS > 0\n");
    return 2;
  }

  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0) die("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;  // a free port
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) die("bind");
  if (listen(listener, 1) != 0) die("listen");
  socklen_t len = sizeof addr;
  if (getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) die("getsockname");

  std::atomic<uint64_t> received{0};
  double receive_secs = 0;
  std::thread receiver([&] {
    const int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) die("accept");
    std::vector<char> buffer(256 << 10);
    uint64_t total = 0;
    Clock::time_point first{}, last{};
    for (;;) {
      const ssize_t n = read(fd, buffer.data(), buffer.size());
      if (n < 0) die("read");
      if (n == 0) break;
      last = Clock::now();
      if (total == 0) first = last;
      total += static_cast<uint64_t>(n);
    }
    received = total;
    receive_secs = std::chrono::duration<double>(last - first).count();
    close(fd);
  });

  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) die("socket");
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // as a broker client would
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) die("connect");
  std::vector<char> chunk(static_cast<size_t>(write_bytes), 'x');
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  uint64_t writes = 0;
  while ((writes & 63) != 0 || Clock::now() < end) {
    size_t off = 0;
    while (off < chunk.size()) {
      const ssize_t n = write(fd, chunk.data() + off, chunk.size() - off);
      if (n < 0) die("write");
      off += static_cast<size_t>(n);
    }
    ++writes;
  }
  shutdown(fd, SHUT_WR);
  receiver.join();
  close(fd);
  close(listener);
  std::printf("RESULT raw write_bytes=%ld bytes=%llu secs=%.3f mb_per_s=%.1f\n", write_bytes,
              static_cast<unsigned long long>(received.load()), receive_secs,
              receive_secs > 0 ? static_cast<double>(received.load()) / receive_secs / 1e6 : 0.0);
  return 0;
}
