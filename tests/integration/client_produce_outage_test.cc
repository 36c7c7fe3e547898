// `spillway produce` across a broker outage, with the real broker and CLI
// (issue 11, defect 4). The CLI reads its lines from a FIFO that the test
// feeds, so the outage falls between known lines:
//  - longer than --timeout-ms: the log holds an unbroken prefix (lines 1..k
//    at offsets 0..k-1, nothing after a gap), the CLI exits 1 naming line
//    k+1, and `tail -n +(k+1) input | spillway produce` completes the log in
//    order;
//  - shorter than --timeout-ms: nothing is lost and no resume is needed.
// The broker is stopped with SIGTERM, which answers every request it has
// read before exiting, so the last records stored before the outage have
// been acknowledged and k is exact (a SIGKILL could store a batch whose
// answer never leaves: at least once, resumed as a duplicate).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "spillway/admin.h"
#include "spillway/consumer.h"

namespace spillway::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr const char* kTopic = "outage";

// Line i (1-based) of the input: its number, padded to 100 bytes so that a
// few dozen lines fill the FIFO once the CLI stops reading.
std::string line_text(int i) {
  std::string s = "line-" + std::to_string(i) + "-";
  s.resize(100, 'x');
  return s;
}

int64_t high_watermark(const std::string& address) {
  Result<Admin> admin = Admin::connect(address);
  if (!admin.ok()) return -1;
  Result<TopicDescription> d = admin->describe_topic(kTopic);
  return d.ok() ? d->partitions[0].high_watermark : -1;
}

// Every value in the topic's partition 0, in offset order.
std::vector<std::string> read_log(const std::string& address) {
  std::vector<std::string> values;
  ConsumerOptions o;
  o.bootstrap = address;
  o.fetch_max_wait = milliseconds(50);
  auto consumer = Consumer::create(o);
  EXPECT_TRUE(consumer.ok()) << consumer.status().to_string();
  if (!consumer.ok()) return values;
  const int64_t end = high_watermark(address);
  EXPECT_TRUE((*consumer)->assign(kTopic).ok());
  int64_t expected_offset = 0;
  for (int polls = 0; expected_offset < end && polls < 1'000; ++polls) {
    Result<ConsumerRecords> records = (*consumer)->poll(milliseconds(500));
    EXPECT_TRUE(records.ok()) << records.status().to_string();
    if (!records.ok()) break;
    for (const ConsumerRecord& r : *records) {
      EXPECT_EQ(r.offset, expected_offset++);
      values.emplace_back(r.value_string());
    }
  }
  return values;
}

// The write end of the FIFO the CLI reads, once the CLI has opened it;
// non-blocking, with a one-page pipe.
int open_fifo_writer(const std::string& path) {
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  for (;;) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      ::fcntl(fd, F_SETPIPE_SZ, 4'096);
      return fd;
    }
    // ENXIO: no reader yet (the CLI checks the broker and topic first).
    if (errno != ENXIO || Clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(milliseconds(5));
  }
}

enum class Fed { kWritten, kReaderStalled, kReaderGone };

// Writes one line to the FIFO. When the pipe is full, waits up to `stall`
// for the reader to make room: kReaderStalled if it does not, kReaderGone
// when the reader closed the FIFO (the CLI exited).
Fed feed(int fd, const std::string& line, milliseconds stall) {
  const std::string bytes = line + "\n";  // below PIPE_BUF: written whole or not at all
  for (;;) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n == static_cast<ssize_t>(bytes.size())) return Fed::kWritten;
    if (n < 0 && errno == EPIPE) return Fed::kReaderGone;
    if (n < 0 && errno != EAGAIN && errno != EINTR) return Fed::kReaderGone;
    pollfd p{fd, POLLOUT, 0};
    const int r = ::poll(&p, 1, static_cast<int>(stall.count()));
    if (r == 0) return Fed::kReaderStalled;
    if (r > 0 && (p.revents & (POLLERR | POLLHUP))) return Fed::kReaderGone;
  }
}

class ProduceOutage : public ::testing::Test {
 protected:
  void SetUp() override {
    ::signal(SIGPIPE, SIG_IGN);  // writes to the FIFO after the CLI exited
    first_ = start_broker_on(data_);
    ASSERT_NE(first_, nullptr);
    address_ = first_->address();
    auto admin = Admin::connect(address_);
    ASSERT_TRUE(admin.ok()) << admin.status().to_string();
    ASSERT_TRUE(admin->create_topic(kTopic, TopicOptions{}).ok());
    fifo_ = (dir_.path() / "fifo").string();
    ASSERT_EQ(::mkfifo(fifo_.c_str(), 0600), 0);
    input_ = (dir_.path() / "input").string();
  }

  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
    if (cli_.joinable()) cli_.join();
  }

  // Writes `lines` lines to the input file and starts `spillway produce`
  // reading the FIFO with `args`; returns once the CLI has opened it.
  void start_cli(int lines, std::vector<std::string> args) {
    std::ofstream input(input_);
    for (int i = 1; i <= lines; ++i) input << line_text(i) << "\n";
    input.close();
    args.insert(args.begin(), {"produce", kTopic, "--broker", address_, "--file", fifo_});
    cli_ = std::thread(
        [this, args] { cli_exit_ = run_process(cli_binary(), args, milliseconds(120'000)); });
    fd_ = open_fifo_writer(fifo_);
    ASSERT_GE(fd_, 0) << "the CLI did not open its input";
  }

  // Feeds lines [first, last] while the CLI reads them all.
  void feed_all(int first, int last) {
    for (int i = first; i <= last; ++i) {
      ASSERT_EQ(feed(fd_, line_text(i), milliseconds(30'000)), Fed::kWritten) << "line " << i;
    }
  }

  void wait_for_high_watermark(const std::string& address, int64_t wanted) {
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (high_watermark(address) < wanted && Clock::now() < deadline) {
      std::this_thread::sleep_for(milliseconds(5));
    }
    ASSERT_EQ(high_watermark(address), wanted);
  }

  // Closes the FIFO (end of input) and waits for the CLI to exit.
  ProcessExit finish_cli() {
    ::close(fd_);
    fd_ = -1;
    cli_.join();
    EXPECT_TRUE(cli_exit_.has_value() && cli_exit_->ok())
        << (cli_exit_ ? cli_exit_->status().to_string() : "no result");
    return cli_exit_ && cli_exit_->ok() ? **cli_exit_ : ProcessExit{};
  }

  // The broker again, on the port and data directory of the first one.
  std::unique_ptr<BrokerProcess> restart() {
    return start_broker_on(data_, {"--listen", address_});
  }

  TempDir dir_;
  const std::filesystem::path data_ = dir_.path() / "data";
  std::unique_ptr<BrokerProcess> first_;
  std::string address_;
  std::string fifo_;
  std::string input_;
  int fd_ = -1;
  // Lines before, during and after a broker restart, with the CLI's extra
  // `args`: all of them stored once, in order.
  void expect_outage_loses_nothing(std::vector<std::string> args);

  std::thread cli_;
  std::optional<Result<ProcessExit>> cli_exit_;
};

TEST_F(ProduceOutage, LongerThanTheTimeoutLeavesAPrefixAndNamesTheLineToResumeFrom) {
  constexpr int kBefore = 1'000;  // lines stored before the outage
  constexpr int kLines = 8'000;
  ASSERT_NO_FATAL_FAILURE(start_cli(kLines, {"--timeout-ms", "2000"}));
  ASSERT_NO_FATAL_FAILURE(feed_all(1, kBefore));
  ASSERT_NO_FATAL_FAILURE(wait_for_high_watermark(address_, kBefore));
  ASSERT_TRUE(first_->stop(SIGTERM).ok());

  // Lines keep coming, one a millisecond, into the outage. The records of
  // the first ones fail after the 2 s delivery timeout; from then on the
  // CLI must not get any later line stored. It stops reading at its first
  // failure: the pipe stays full (or the CLI exits). Only then does the
  // broker come back, while records sent after the failed ones may still
  // be pending in the CLI.
  int fed = kBefore;
  while (fed < kLines) {
    const Fed f = feed(fd_, line_text(fed + 1), milliseconds(500));
    if (f != Fed::kWritten) break;
    ++fed;
    std::this_thread::sleep_for(milliseconds(1));  // pacing, not waiting for an event
  }
  ASSERT_LT(fed, kLines) << "the CLI read every line: no record failed";
  const auto second = restart();
  ASSERT_NE(second, nullptr);
  const ProcessExit produced = finish_cli();

  // The log: lines 1..k at offsets 0..k-1, nothing after them.
  const std::vector<std::string> log = read_log(address_);
  const int k = static_cast<int>(log.size());
  EXPECT_EQ(k, kBefore);
  for (int i = 0; i < k; ++i) {
    ASSERT_EQ(log[static_cast<size_t>(i)], line_text(i + 1)) << "offset " << i << " of " << k;
  }
  // The CLI failed and names line k+1 as the one to resume from.
  std::printf("spillway produce said:\n%s", produced.output.c_str());
  EXPECT_EQ(produced.exit_code, 1) << produced.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(produced.output, m, std::regex("stopped at line (\\d+)")))
      << produced.output;
  EXPECT_EQ(std::stoi(m[1]), k + 1) << produced.output;
  EXPECT_NE(produced.output.find("tail -n +" + std::to_string(k + 1)), std::string::npos)
      << produced.output;

  // Resuming from there, as the message says, completes the log in order.
  const std::string resume = "tail -n +" + std::to_string(k + 1) + " " + input_ + " | " +
                             cli_binary() + " produce " + kTopic + " --broker " + address_;
  Result<ProcessExit> resumed = run_process("/bin/sh", {"-c", resume});
  ASSERT_TRUE(resumed.ok()) << resumed.status().to_string();
  EXPECT_EQ(resumed->exit_code, 0) << resumed->output;
  const std::vector<std::string> full = read_log(address_);
  ASSERT_EQ(full.size(), static_cast<size_t>(kLines));
  for (int i = 0; i < kLines; ++i) {
    ASSERT_EQ(full[static_cast<size_t>(i)], line_text(i + 1)) << "offset " << i;
  }
}

TEST_F(ProduceOutage, ShorterThanTheTimeoutLosesNothing) {
  expect_outage_loses_nothing({"--timeout-ms", "60000"});
}

// Linger 0: the reading thread sends records itself while the connection is
// up (client/src/producer_sender.h), and its failed sends are the I/O
// thread's to handle.
TEST_F(ProduceOutage, ShorterThanTheTimeoutLosesNothingWithLingerZero) {
  expect_outage_loses_nothing({"--timeout-ms", "60000", "--linger-ms", "0"});
}

void ProduceOutage::expect_outage_loses_nothing(std::vector<std::string> args) {
  constexpr int kBefore = 1'000;
  constexpr int kDuring = 1'000;  // lines read while the broker is down
  constexpr int kLines = 3'000;
  ASSERT_NO_FATAL_FAILURE(start_cli(kLines, std::move(args)));
  ASSERT_NO_FATAL_FAILURE(feed_all(1, kBefore));
  ASSERT_NO_FATAL_FAILURE(wait_for_high_watermark(address_, kBefore));
  ASSERT_TRUE(first_->stop(SIGTERM).ok());
  ASSERT_NO_FATAL_FAILURE(feed_all(kBefore + 1, kBefore + kDuring));
  const auto second = restart();
  ASSERT_NE(second, nullptr);
  ASSERT_NO_FATAL_FAILURE(feed_all(kBefore + kDuring + 1, kLines));
  const ProcessExit produced = finish_cli();
  EXPECT_EQ(produced.exit_code, 0) << produced.output;
  EXPECT_NE(produced.output.find("produced 3000 messages"), std::string::npos) << produced.output;
  const std::vector<std::string> log = read_log(address_);
  ASSERT_EQ(log.size(), static_cast<size_t>(kLines));
  for (int i = 0; i < kLines; ++i) {
    ASSERT_EQ(log[static_cast<size_t>(i)], line_text(i + 1)) << "offset " << i;
  }
}

}  // namespace
}  // namespace spillway::testing
