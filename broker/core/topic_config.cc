// Topic metadata files and the atomic small-file write.
#include "topic_config.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

namespace spillway::broker {

namespace {

Status errno_status(int err, const std::string& what) {
  return Status(err == ENOSPC || err == EDQUOT ? ErrorCode::kNotEnoughSpace : ErrorCode::kIoError,
                what + ": " + std::strerror(err));
}

bool parse_i64(std::string_view s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

const char* flush_policy_name(storage::FlushPolicy policy) noexcept {
  return policy == storage::FlushPolicy::kDurable ? "durable" : "interval";
}

Result<storage::FlushPolicy> parse_flush_policy(std::string_view name) {
  if (name == "durable") return storage::FlushPolicy::kDurable;
  if (name == "interval") return storage::FlushPolicy::kInterval;
  return Status(
      ErrorCode::kInvalidArgument,
      "flush_policy must be \"durable\" or \"interval\", not \"" + std::string(name) + "\"");
}

Status validate_topic_name(std::string_view name) {
  if (name.empty() || name.size() > 249) {
    return Status(ErrorCode::kInvalidArgument, "topic name must be 1 to 249 bytes long");
  }
  if (name == "." || name == "..") {
    return Status(ErrorCode::kInvalidArgument, "topic name may not be \".\" or \"..\"");
  }
  if (name.starts_with(".deleted-")) {
    // Older brokers renamed deleted topics to ".deleted-N-NAME", and start-up
    // still removes such directories.
    return Status(ErrorCode::kInvalidArgument,
                  "topic names starting with \".deleted-\" are reserved");
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) {
      return Status(ErrorCode::kInvalidArgument,
                    "topic name \"" + std::string(name) +
                        "\" may contain only letters, digits, '.', '_' and '-'");
    }
  }
  return Status::Ok();
}

std::string serialize_topic_config(const TopicConfig& c) {
  return "partitions=" + std::to_string(c.partitions) +
         "\nflush_policy=" + flush_policy_name(c.flush_policy) +
         "\nretention_bytes=" + std::to_string(c.retention_bytes) +
         "\nretention_ms=" + std::to_string(c.retention_ms) +
         "\nsegment_bytes=" + std::to_string(c.segment_bytes) + "\n";
}

Result<TopicConfig> parse_topic_config(std::string_view text) {
  TopicConfig c;
  bool have_partitions = false;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      return Status(ErrorCode::kCorruptMessage, "topic metadata line without '='");
    }
    const std::string_view key = line.substr(0, eq), value = line.substr(eq + 1);
    int64_t n = 0;
    if (key == "flush_policy") {
      Result<storage::FlushPolicy> p = parse_flush_policy(value);
      if (!p.ok()) return Status(ErrorCode::kCorruptMessage, std::string(p.status().message()));
      c.flush_policy = *p;
      continue;
    }
    if (!parse_i64(value, &n)) {
      return Status(ErrorCode::kCorruptMessage,
                    "topic metadata: bad number for " + std::string(key));
    }
    if (key == "partitions" && n >= 1 && n <= kMaxPartitionsPerTopic) {
      c.partitions = static_cast<int32_t>(n);
      have_partitions = true;
    } else if (key == "retention_bytes" && n >= -1) {
      c.retention_bytes = n;
    } else if (key == "retention_ms" && n >= -1) {
      c.retention_ms = n;
    } else if (key == "segment_bytes" && n > 0) {
      c.segment_bytes = n;
    } else {
      return Status(ErrorCode::kCorruptMessage,
                    "topic metadata: unknown key or bad value: " + std::string(line));
    }
  }
  if (!have_partitions) return Status(ErrorCode::kCorruptMessage, "topic metadata: no partitions");
  return c;
}

Status write_file_atomically(const std::string& path, std::string_view contents) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_status(errno, "create " + tmp);
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      return errno_status(err, "write " + tmp);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    return errno_status(err, "fsync " + tmp);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return errno_status(errno, "rename " + tmp);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return errno_status(errno, "open directory " + dir);
  const int rc = ::fsync(dfd);
  const int err = errno;
  ::close(dfd);
  if (rc != 0) return errno_status(err, "fsync directory " + dir);
  return Status::Ok();
}

Result<std::string> read_small_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_status(errno, "open " + path);
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return errno_status(err, "read " + path);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

}  // namespace spillway::broker
