// SendfileWriter: response frames whose bytes lie partly in memory and
// partly in files reach the socket byte for byte in frame order, across
// short writes, several frames per batch, a file that ends inside its range
// and a peer that has gone.
#include "net/sendfile_writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace spillway::broker {
namespace {

// A temporary file holding `contents`, removed on destruction.
class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    char path[] = "/tmp/spillway-sendfile-XXXXXX";
    fd_ = ::mkstemp(path);
    EXPECT_GE(fd_, 0);
    ::unlink(path);
    EXPECT_EQ(::write(fd_, contents.data(), contents.size()),
              static_cast<ssize_t>(contents.size()));
  }
  ~TempFile() { ::close(fd_); }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

class SendfileWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
    writer_end_ = fds[0];
    reader_end_ = fds[1];
  }
  void TearDown() override {
    if (writer_end_ >= 0) ::close(writer_end_);
    if (reader_end_ >= 0) ::close(reader_end_);
  }

  static iovec view(std::string& s) { return {s.data(), s.size()}; }
  static Exchange::FileRange range(uint64_t at, int fd, uint64_t position, uint64_t length) {
    return {.at = at, .fd = fd, .position = position, .length = length, .hold = nullptr};
  }

  // Drives write() to the end, draining the peer whenever the socket is
  // full (the connection's wait for writability), and returns what the peer
  // received.
  std::string send_all(SendfileWriter& writer, SendfileWriter::Outcome* last = nullptr) {
    std::string received;
    for (;;) {
      const SendfileWriter::Outcome o = writer.write(writer_end_);
      drain(received);
      if (o != SendfileWriter::Outcome::kWouldBlock) {
        if (last != nullptr) *last = o;
        return received;
      }
      pollfd p{.fd = writer_end_, .events = POLLOUT, .revents = 0};
      EXPECT_EQ(::poll(&p, 1, 10'000), 1);
    }
  }

  void drain(std::string& into) {
    char buf[64 << 10];
    for (;;) {
      const ssize_t n = ::read(reader_end_, buf, sizeof buf);
      if (n <= 0) return;
      into.append(buf, static_cast<size_t>(n));
    }
  }

  int writer_end_ = -1;
  int reader_end_ = -1;
};

TEST_F(SendfileWriterTest, RangesGoBetweenTheFrameBytesInOrder) {
  TempFile file("0123456789abcdefghijklmnopqrstuvwxyz");
  std::string head = "HEADER-";  // frame bytes 0..6
  std::string middle = "-MID-";  // frame bytes 7..11
  std::string tail = "-TAIL";    // frame bytes 12..16
  std::vector<iovec> segments{view(head), view(middle), view(tail)};
  // One range inside the first segment (splitting it), one on a segment
  // boundary, one at the very end.
  std::vector<Exchange::FileRange> ranges{range(3, file.fd(), 0, 4), range(12, file.fd(), 10, 6),
                                          range(17, file.fd(), 30, 6)};
  SendfileWriter writer;
  writer.clear();
  writer.add(segments, ranges);
  SendfileWriter::Outcome last{};
  EXPECT_EQ(send_all(writer, &last), "HEA0123DER--MID-abcdef-TAILuvwxyz");
  EXPECT_EQ(last, SendfileWriter::Outcome::kDone);
  EXPECT_EQ(writer.file_bytes_sent(), 16u);
}

TEST_F(SendfileWriterTest, SeveralFramesInOneBatch) {
  TempFile file("ABCDEFGHIJ");
  std::string a = "frame-a:", b = "frame-b:", c = "frame-c";
  std::vector<iovec> first{view(a)};
  std::vector<iovec> second{view(b)};
  std::vector<iovec> third{view(c)};  // no ranges at all
  std::vector<Exchange::FileRange> first_ranges{range(8, file.fd(), 0, 3)};
  std::vector<Exchange::FileRange> second_ranges{range(0, file.fd(), 5, 5)};
  SendfileWriter writer;
  writer.clear();
  writer.add(first, first_ranges);
  writer.add(second, second_ranges);
  writer.add(third, {});
  EXPECT_EQ(send_all(writer), "frame-a:ABCFGHIJframe-b:frame-c");
}

// A range far larger than the socket buffer goes out over many calls, each
// resuming where the last one stopped; so do the memory bytes after it.
TEST_F(SendfileWriterTest, ResumesAfterEveryShortWrite) {
  int small = 4096;
  ASSERT_EQ(::setsockopt(writer_end_, SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
  std::string contents(3 << 20, '\0');
  for (size_t i = 0; i < contents.size(); ++i) contents[i] = static_cast<char>('a' + i % 23);
  TempFile file(contents);
  std::string head(100'000, 'h');  // larger than the buffer too
  std::string tail = "end";
  std::vector<iovec> segments{view(head), view(tail)};
  std::vector<Exchange::FileRange> ranges{range(head.size(), file.fd(), 1, contents.size() - 2)};
  SendfileWriter writer;
  writer.clear();
  writer.add(segments, ranges);
  SendfileWriter::Outcome last{};
  const std::string got = send_all(writer, &last);
  EXPECT_EQ(last, SendfileWriter::Outcome::kDone);
  ASSERT_EQ(got.size(), head.size() + contents.size() - 2 + tail.size());
  EXPECT_TRUE(got == head + contents.substr(1, contents.size() - 2) + tail);
}

// The frame's length is already on the wire when the file turns out
// shorter than its range (a segment truncated after the fetch read it):
// the writer must say so rather than send fewer bytes.
TEST_F(SendfileWriterTest, AFileThatEndsInsideItsRangeIsReported) {
  TempFile file("short");
  std::string head = "H";
  std::vector<iovec> segments{view(head)};
  std::vector<Exchange::FileRange> ranges{range(1, file.fd(), 0, 100)};
  SendfileWriter writer;
  writer.clear();
  writer.add(segments, ranges);
  SendfileWriter::Outcome last{};
  EXPECT_EQ(send_all(writer, &last), "Hshort");
  EXPECT_EQ(last, SendfileWriter::Outcome::kFileCutShort);
}

// sendfile(2) has no MSG_NOSIGNAL: with the peer gone the call fails with
// EPIPE instead of killing the process.
TEST_F(SendfileWriterTest, APeerThatClosedFailsTheWriteWithoutASignal) {
  SendfileWriter::ignore_sigpipe();
  TempFile file("payload");
  ::close(reader_end_);
  reader_end_ = -1;
  std::vector<iovec> segments{};
  std::vector<Exchange::FileRange> ranges{range(0, file.fd(), 0, 7)};
  SendfileWriter writer;
  writer.clear();
  writer.add(segments, ranges);
  EXPECT_EQ(writer.write(writer_end_), SendfileWriter::Outcome::kFailed);
  EXPECT_EQ(writer.error(), EPIPE);
}

// Reused batch after batch (the connection's steady state), the writer
// starts each batch from its beginning.
TEST_F(SendfileWriterTest, ClearStartsANewBatch) {
  TempFile file("xyz");
  std::string one = "1", two = "2";
  std::vector<iovec> first{view(one)};
  std::vector<iovec> second{view(two)};
  std::vector<Exchange::FileRange> ranges{range(1, file.fd(), 0, 3)};
  SendfileWriter writer;
  writer.clear();
  writer.add(first, ranges);
  EXPECT_EQ(send_all(writer), "1xyz");
  writer.clear();
  writer.add(second, ranges);
  EXPECT_EQ(send_all(writer), "2xyz");
  EXPECT_EQ(writer.file_bytes_sent(), 3u);
}

}  // namespace
}  // namespace spillway::broker
