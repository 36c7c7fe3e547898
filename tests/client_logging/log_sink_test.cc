// The library log sink (common/include/spillway/common/log_sink.h): the
// threshold, the application's handler, the stderr default, and the
// broker's log::setup routing the same lines into spdlog.
#include "spillway/common/log_sink.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "broker_process.h"
#include "spillway/common/log.h"

namespace spillway {
namespace {

// Every line a handler received, as "LEVEL MESSAGE".
struct Received {
  std::mutex mutex;
  std::vector<std::string> lines;

  LogHandler handler() {
    return [this](LogLevel level, std::string_view message) {
      std::lock_guard<std::mutex> lock(mutex);
      lines.push_back(std::string(log_level_name(level)) + " " + std::string(message));
    };
  }
};

// What this process writes to file descriptor 2 while it lives.
class StderrCapture {
 public:
  StderrCapture() : path_(dir_.path() / "stderr") {
    std::fflush(stderr);
    saved_ = ::dup(2);
    FILE* file = std::fopen(path_.c_str(), "w");
    ::dup2(::fileno(file), 2);
    std::fclose(file);
  }
  ~StderrCapture() { restore(); }
  // Stops capturing and returns what was written.
  std::string take() {
    restore();
    std::ifstream in(path_);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }

  testing::TempDir dir_;
  std::filesystem::path path_;
  int saved_ = -1;
};

class LogSink : public ::testing::Test {
 protected:
  // Each test leaves the defaults behind.
  void TearDown() override {
    set_log_handler({});
    set_log_level(LogLevel::kWarn);
  }
};

TEST_F(LogSink, LetsWarningsAndErrorsThroughByDefault) {
  Received received;
  set_log_handler(received.handler());
  log::write(LogLevel::kDebug, "d");
  log::write(LogLevel::kInfo, "i");
  log::write(LogLevel::kWarn, "w");
  log::write(LogLevel::kError, "e");
  EXPECT_EQ(received.lines, (std::vector<std::string>{"warning w", "error e"}));
  EXPECT_FALSE(log::enabled(LogLevel::kInfo));
  EXPECT_TRUE(log::enabled(LogLevel::kWarn));
}

TEST_F(LogSink, TheLevelSetIsTheLowestThatPasses) {
  Received received;
  set_log_handler(received.handler());
  set_log_level(LogLevel::kDebug);
  log::write(LogLevel::kDebug, "d");
  set_log_level(LogLevel::kError);
  log::write(LogLevel::kWarn, "w");
  log::write(LogLevel::kError, "e");
  set_log_level(LogLevel::kOff);
  log::write(LogLevel::kError, "dropped");
  EXPECT_FALSE(log::enabled(LogLevel::kError));
  EXPECT_EQ(received.lines, (std::vector<std::string>{"debug d", "error e"}));
}

TEST_F(LogSink, WritesToStderrUntilAHandlerIsSetAndAgainOnceItIsCleared) {
  Received received;
  StderrCapture capture;
  log::write(LogLevel::kWarn, "before");
  set_log_handler(received.handler());
  log::write(LogLevel::kWarn, "during");
  set_log_handler({});
  log::write(LogLevel::kError, "after");
  EXPECT_EQ(capture.take(), "spillway: warning: before\nspillway: error: after\n");
  EXPECT_EQ(received.lines, (std::vector<std::string>{"warning during"}));
}

TEST_F(LogSink, AThrowingHandlerLosesTheLineOnly) {
  set_log_handler([](LogLevel, std::string_view) { throw std::runtime_error("full"); });
  log::write(LogLevel::kError, "lost");  // must not throw (write is noexcept)
  Received received;
  set_log_handler(received.handler());
  log::write(LogLevel::kError, "kept");
  EXPECT_EQ(received.lines, (std::vector<std::string>{"error kept"}));
}

TEST_F(LogSink, EveryLineReachesOneHandlerWhileHandlersAreReplaced) {
  constexpr int kThreads = 4;
  constexpr int kLinesPerThread = 20'000;
  std::atomic<int> delivered{0};
  auto counting = [&delivered](LogLevel, std::string_view) {
    delivered.fetch_add(1, std::memory_order_relaxed);
  };
  set_log_handler(counting);
  std::atomic<bool> writing{true};
  std::thread replacer([&] {
    while (writing.load()) set_log_handler(counting);
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([] {
      for (int i = 0; i < kLinesPerThread; ++i) log::write(LogLevel::kWarn, "line");
    });
  }
  for (std::thread& w : writers) w.join();
  writing.store(false);
  replacer.join();
  EXPECT_EQ(delivered.load(), kThreads * kLinesPerThread);
}

// The broker's side: log::setup installs spdlog's logger on stderr and sends
// the library's lines to it, at spdlog's level.
TEST_F(LogSink, TheBrokersSetupRoutesLibraryLinesIntoSpdlog) {
  StderrCapture capture;
  log::setup("info");
  log::write(LogLevel::kInfo, "library line at info");
  log::write(LogLevel::kDebug, "library line at debug");
  spdlog::default_logger()->flush();
  log::setup("error");
  log::write(LogLevel::kWarn, "library line at warning");
  log::write(LogLevel::kError, "library line at error");
  spdlog::default_logger()->flush();
  const std::string written = capture.take();
  EXPECT_NE(written.find("] [info] ["), std::string::npos) << written;
  EXPECT_NE(written.find("library line at info\n"), std::string::npos) << written;
  EXPECT_NE(written.find("] [error] ["), std::string::npos) << written;
  EXPECT_NE(written.find("library line at error\n"), std::string::npos) << written;
  EXPECT_EQ(written.find("at debug"), std::string::npos) << written;
  EXPECT_EQ(written.find("at warning"), std::string::npos) << written;
  EXPECT_EQ(written.find("spillway: "), std::string::npos) << written;
}

}  // namespace
}  // namespace spillway
