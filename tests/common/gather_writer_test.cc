// GatherWriter: both backends, short writes re-queued against a slow reader
// through a tiny non-blocking pipe, sockets, and errors as values.
#include "spillway/common/gather_writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "spillway/common/write_buffer.h"

namespace spillway {
namespace {

std::vector<GatherBackend> backends() {
  std::vector<GatherBackend> b{GatherBackend::kWritev};
  if (io_uring_supported()) b.push_back(GatherBackend::kIoUring);
  return b;
}

std::vector<std::byte> pattern(std::size_t n) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 7 + i / 251) & 0xFF);
  return v;
}

// A 16-segment table of `total` bytes in varied sizes (some empty).
struct Table {
  std::vector<std::vector<std::byte>> parts;
  std::vector<iovec> iov;
  std::vector<std::byte> all;
  explicit Table(std::size_t total) {
    all = pattern(total);
    std::size_t at = 0;
    for (int i = 0; i < 16; ++i) {
      std::size_t n = i == 15 ? total - at : std::min(total - at, (total / 16) + (i % 3) * 37);
      if (i == 4) n = 0;
      parts.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at),
                         all.begin() + static_cast<std::ptrdiff_t>(at + n));
      at += n;
    }
    for (auto& p : parts) iov.push_back({p.data(), p.size()});
  }
};

// Reads everything from `fd` until EOF, slowly if asked.
std::vector<std::byte> drain(int fd, std::size_t chunk, bool slow) {
  std::vector<std::byte> out;
  std::vector<std::byte> buf(chunk);
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    out.insert(out.end(), buf.begin(), buf.begin() + n);
    if (slow) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return out;
}

TEST(GatherWriter, WritesATableToAPipe) {
  for (GatherBackend be : backends()) {
    GatherWriter w(be);
    EXPECT_EQ(w.backend(), be);
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    Table t(20000);
    std::vector<std::byte> got;
    std::thread reader([&] { got = drain(fds[0], 65536, false); });
    Status st = w.write_all(fds[1], t.iov);
    ::close(fds[1]);
    reader.join();
    ::close(fds[0]);
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_EQ(got, t.all) << gather_backend_name(be);
  }
}

TEST(GatherWriter, ShortWritesAreRequeuedWithTheIovecAdvanced) {
  for (GatherBackend be : backends()) {
    GatherWriter w(be);
    int fds[2];
    ASSERT_EQ(::pipe2(fds, O_NONBLOCK), 0);
    ASSERT_GT(::fcntl(fds[1], F_SETPIPE_SZ, 4096), 0);
    Table t(200 * 1024);
    std::vector<std::byte> got;
    std::thread reader([&] { got = drain(fds[0], 1000, true); });
    Status st = w.write_all(fds[1], t.iov);
    ::close(fds[1]);
    reader.join();
    ::close(fds[0]);
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_EQ(got, t.all) << gather_backend_name(be);
    EXPECT_GT(w.stats().requeued, 0u) << gather_backend_name(be);
    EXPECT_GT(w.stats().submissions, 1u);
  }
}

void on_signal(int) {}

TEST(GatherWriter, SurvivesSignalsWhileBlocked) {
  // A handler without SA_RESTART makes a blocked write return early (short)
  // or fail with EINTR; either way every byte must still arrive once.
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old {};
  ASSERT_EQ(::sigaction(SIGUSR1, &sa, &old), 0);
  for (GatherBackend be : backends()) {
    GatherWriter w(be);
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ASSERT_GT(::fcntl(fds[1], F_SETPIPE_SZ, 4096), 0);
    Table t(256 * 1024);
    std::vector<std::byte> got;
    std::atomic<bool> done{false};
    const pthread_t writer = ::pthread_self();
    std::thread pester([&] {
      while (!done.load()) {
        ::pthread_kill(writer, SIGUSR1);
        std::this_thread::sleep_for(std::chrono::microseconds(300));
      }
    });
    std::thread reader([&] { got = drain(fds[0], 2000, true); });
    Status st = w.write_all(fds[1], t.iov);
    done = true;
    pester.join();
    ::close(fds[1]);
    reader.join();
    ::close(fds[0]);
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_EQ(got, t.all) << gather_backend_name(be);
  }
  ::sigaction(SIGUSR1, &old, nullptr);
}

TEST(GatherWriter, SendsAWriteBufferOverASocket) {
  for (GatherBackend be : backends()) {
    GatherWriter w(be);
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    int small = 4096;
    ::setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    std::array<std::byte, 512> scratch;
    WriteBuffer wb(scratch);
    auto data = pattern(300000);
    ASSERT_TRUE(wb.write(data).ok());
    std::vector<std::byte> got;
    std::thread reader([&] { got = drain(sv[1], 3000, true); });
    Status st = w.send_all(sv[0], wb.segments());
    ::shutdown(sv[0], SHUT_WR);
    reader.join();
    ::close(sv[0]);
    ::close(sv[1]);
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_EQ(got, data);
  }
}

TEST(GatherWriter, ErrorsAreValues) {
  for (GatherBackend be : backends()) {
    GatherWriter w(be);
    Table t(1000);
    EXPECT_EQ(w.write_all(-1, t.iov).code(), ErrorCode::kIoError);
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    ::close(sv[1]);
    EXPECT_EQ(w.send_all(sv[0], t.iov).code(), ErrorCode::kNotConnected);
    ::close(sv[0]);
    EXPECT_TRUE(w.write_all(-1, {}).ok());  // nothing to write is not an error
  }
}

TEST(GatherBackendChoice, FollowsTheEnvironment) {
  EXPECT_FALSE(io_uring_disabled_by(nullptr));
  EXPECT_FALSE(io_uring_disabled_by("0"));
  EXPECT_FALSE(io_uring_disabled_by(""));
  EXPECT_TRUE(io_uring_disabled_by("1"));
  EXPECT_TRUE(io_uring_disabled_by("yes"));
  const bool disabled = io_uring_disabled_by(std::getenv("SPILLWAY_DISABLE_IO_URING"));
  const GatherBackend want =
      (!disabled && io_uring_supported()) ? GatherBackend::kIoUring : GatherBackend::kWritev;
  EXPECT_EQ(active_gather_backend(), want);
  EXPECT_EQ(GatherWriter().backend(), want);
}

}  // namespace
}  // namespace spillway
