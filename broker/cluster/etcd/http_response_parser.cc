#include "cluster/etcd/http_response_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace spillway::broker::cluster::etcd {
namespace {

// A chunk-size line is a hex number and optional extensions; real ones are
// a few bytes. Bounding it keeps a peer from feeding an endless line.
constexpr size_t kMaxChunkLine = 1024;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool contains_token(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (iequals(trim(list.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

void HttpResponseParser::reset(BodySink sink) {
  sink_ = std::move(sink);
  state_ = State::kHeaders;
  framing_ = Framing::kLength;
  head_.clear();
  line_.clear();
  status_code_ = 0;
  keep_alive_ = true;
  stopped_ = false;
  failed_ = false;
  remaining_ = 0;
  body_bytes_ = 0;
  trailing_bytes_ = 0;
}

Status HttpResponseParser::fail(std::string message) {
  failed_ = true;
  keep_alive_ = false;
  return Status(ErrorCode::kCoordinationUnavailable, "etcd: malformed HTTP response: " + message);
}

Status HttpResponseParser::deliver(std::string_view bytes) {
  if (bytes.empty() || stopped_) return Status::Ok();
  if (bytes.size() > limits_.max_body_bytes - body_bytes_) {
    return fail("body longer than " + std::to_string(limits_.max_body_bytes) + " bytes");
  }
  body_bytes_ += bytes.size();
  if (sink_ && !sink_(status_code_, bytes)) {
    stopped_ = true;
    keep_alive_ = false;
  }
  return Status::Ok();
}

bool HttpResponseParser::take_line(std::string_view& bytes, size_t max_line, Status& error) {
  size_t lf = bytes.find('\n');
  size_t take = lf == std::string_view::npos ? bytes.size() : lf + 1;
  if (line_.size() + take > max_line) {
    error = fail("line longer than " + std::to_string(max_line) + " bytes");
    return false;
  }
  line_.append(bytes.data(), take);
  bytes.remove_prefix(take);
  if (lf == std::string_view::npos) return false;
  line_.pop_back();  // '\n'
  if (!line_.empty() && line_.back() == '\r') line_.pop_back();
  return true;
}

Status HttpResponseParser::parse_headers() {
  std::string_view head(head_);
  size_t eol = head.find("\r\n");
  std::string_view status_line = head.substr(0, eol);
  // "HTTP/1.1 200 OK"
  if (status_line.size() < 12 || status_line.substr(0, 5) != "HTTP/" || status_line[8] != ' ') {
    return fail("bad status line");
  }
  if (status_line.substr(5, 3) == "1.0") keep_alive_ = false;
  int code = 0;
  auto [ptr, ec] = std::from_chars(status_line.data() + 9, status_line.data() + 12, code);
  if (ec != std::errc() || ptr != status_line.data() + 12 || code < 100 || code > 599) {
    return fail("bad status code");
  }
  status_code_ = code;

  bool have_length = false;
  bool chunked = false;
  uint64_t length = 0;
  head.remove_prefix(eol + 2);
  while (!head.empty()) {
    eol = head.find("\r\n");
    std::string_view line = head.substr(0, eol);
    head.remove_prefix(eol == std::string_view::npos ? head.size() : eol + 2);
    if (line.empty()) break;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return fail("header line without ':'");
    std::string_view name = line.substr(0, colon);
    std::string_view value = trim(line.substr(colon + 1));
    if (iequals(name, "Content-Length")) {
      auto [p, e] = std::from_chars(value.data(), value.data() + value.size(), length);
      if (e != std::errc() || p != value.data() + value.size()) return fail("bad Content-Length");
      if (have_length) return fail("repeated Content-Length");
      have_length = true;
    } else if (iequals(name, "Transfer-Encoding")) {
      if (!contains_token(value, "chunked")) return fail("unsupported Transfer-Encoding");
      chunked = true;
    } else if (iequals(name, "Connection")) {
      if (contains_token(value, "close")) keep_alive_ = false;
    }
  }
  // 1xx, 204 and 304 have no body; etcd's gateway sends none of them, and
  // a 100 Continue is never asked for.
  if (code < 200) return fail("unexpected informational response");
  if (chunked) {
    framing_ = Framing::kChunked;
    state_ = State::kChunkSize;
  } else if (have_length) {
    if (length > limits_.max_body_bytes) {
      return fail("body of " + std::to_string(length) + " bytes, more than the limit of " +
                  std::to_string(limits_.max_body_bytes));
    }
    framing_ = Framing::kLength;
    remaining_ = length;
    state_ = length == 0 || code == 204 || code == 304 ? State::kDone : State::kBody;
  } else if (code == 204 || code == 304) {
    state_ = State::kDone;
  } else {
    framing_ = Framing::kUntilClose;
    keep_alive_ = false;
    state_ = State::kBody;
  }
  head_.clear();
  head_.shrink_to_fit();
  return Status::Ok();
}

Status HttpResponseParser::feed(std::string_view bytes) {
  if (failed_) return fail("parser already failed");
  while (!bytes.empty() && !stopped_) {
    switch (state_) {
      case State::kHeaders: {
        // Search only where the blank line can end: the last 3 bytes kept
        // plus the new ones.
        size_t from = head_.size() >= 3 ? head_.size() - 3 : 0;
        size_t room = limits_.max_header_bytes - head_.size();
        size_t take = std::min(bytes.size(), room);
        head_.append(bytes.data(), take);
        size_t end = head_.find("\r\n\r\n", from);
        if (end == std::string::npos) {
          if (take < bytes.size() || head_.size() >= limits_.max_header_bytes) {
            return fail("headers longer than " + std::to_string(limits_.max_header_bytes) +
                        " bytes");
          }
          bytes.remove_prefix(take);
          break;
        }
        // Give back what followed the blank line.
        size_t used = end + 4;
        size_t extra = head_.size() - used;
        bytes.remove_prefix(take - extra);
        head_.resize(used);
        SPILLWAY_RETURN_IF_ERROR(parse_headers());
        break;
      }
      case State::kBody: {
        size_t take = bytes.size();
        if (framing_ == Framing::kLength)
          take = static_cast<size_t>(std::min<uint64_t>(take, remaining_));
        SPILLWAY_RETURN_IF_ERROR(deliver(bytes.substr(0, take)));
        bytes.remove_prefix(take);
        if (framing_ == Framing::kLength) {
          remaining_ -= take;
          if (remaining_ == 0) state_ = State::kDone;
        }
        break;
      }
      case State::kChunkSize: {
        Status error;
        if (!take_line(bytes, kMaxChunkLine, error)) {
          if (!error.ok()) return error;
          break;
        }
        std::string_view text(line_);
        text = text.substr(0, text.find(';'));  // chunk extensions
        text = trim(text);
        uint64_t size = 0;
        auto [p, e] = std::from_chars(text.data(), text.data() + text.size(), size, 16);
        if (text.empty() || e != std::errc() || p != text.data() + text.size()) {
          return fail("bad chunk size");
        }
        if (size > limits_.max_body_bytes - body_bytes_) {
          return fail("chunk of " + std::to_string(size) + " bytes exceeds the body limit of " +
                      std::to_string(limits_.max_body_bytes));
        }
        line_.clear();
        remaining_ = size;
        state_ = size == 0 ? State::kTrailers : State::kChunkData;
        break;
      }
      case State::kChunkData: {
        size_t take = static_cast<size_t>(std::min<uint64_t>(bytes.size(), remaining_));
        SPILLWAY_RETURN_IF_ERROR(deliver(bytes.substr(0, take)));
        bytes.remove_prefix(take);
        remaining_ -= take;
        if (remaining_ == 0) state_ = State::kChunkDataEnd;
        break;
      }
      case State::kChunkDataEnd: {
        Status error;
        if (!take_line(bytes, 2, error)) {
          if (!error.ok()) return error;
          break;
        }
        if (!line_.empty()) return fail("chunk not followed by CRLF");
        state_ = State::kChunkSize;
        break;
      }
      case State::kTrailers: {
        Status error;
        if (!take_line(bytes, limits_.max_header_bytes, error)) {
          if (!error.ok()) return error;
          break;
        }
        bool last = line_.empty();
        line_.clear();
        if (last) state_ = State::kDone;
        break;
      }
      case State::kDone:
        trailing_bytes_ += bytes.size();
        bytes = {};
        break;
    }
  }
  return Status::Ok();
}

Status HttpResponseParser::feed_eof() {
  if (failed_) return fail("parser already failed");
  keep_alive_ = false;
  if (state_ == State::kDone || stopped_) return Status::Ok();
  if (state_ == State::kBody && framing_ == Framing::kUntilClose) {
    state_ = State::kDone;
    return Status::Ok();
  }
  return Status(ErrorCode::kCoordinationUnavailable,
                "etcd: connection closed before the end of the HTTP response");
}

}  // namespace spillway::broker::cluster::etcd
