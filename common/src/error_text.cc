// The safe form of an error message (error_text.h): paths shortened, bytes
// that are not printable UTF-8 escaped, the length bounded.
#include "spillway/common/error_text.h"

#include <cstdint>

namespace spillway {

namespace {

constexpr std::string_view kCut = "...";

// Hands pieces to `emit` while they fit under `limit`; after the first piece
// that does not fit (and the prefix of it that does, for plain text) nothing
// more is taken, so the text is cut at one point.
class Sink {
 public:
  Sink(void (*emit)(void*, std::string_view), void* ctx, size_t limit) noexcept
      : emit_(emit), ctx_(ctx), limit_(limit) {}

  // `text`: printable characters that may be cut at a character boundary.
  void text(std::string_view piece) noexcept {
    if (full_) return;
    if (piece.size() > limit_ - size_) {
      size_t fit = limit_ - size_;
      // Back up to the start of a UTF-8 character.
      while (fit > 0 && (static_cast<unsigned char>(piece[fit]) & 0xc0) == 0x80) --fit;
      piece = piece.substr(0, fit);
      full_ = true;
    }
    put(piece);
  }
  // An escape: taken whole or not at all.
  void atom(std::string_view piece) noexcept {
    if (full_) return;
    if (piece.size() > limit_ - size_) {
      full_ = true;
      return;
    }
    put(piece);
  }
  size_t size() const noexcept { return size_; }

 private:
  void put(std::string_view piece) noexcept {
    if (emit_ != nullptr && !piece.empty()) emit_(ctx_, piece);
    size_ += piece.size();
  }

  void (*emit_)(void*, std::string_view);
  void* ctx_;
  size_t limit_;
  size_t size_ = 0;
  bool full_ = false;
};

// Bytes of the printable character that starts at s[i] (printable ASCII or
// a well-formed UTF-8 sequence that is not a C1 control), or 0.
size_t printable_char(std::string_view s, size_t i) noexcept {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 >= 0x20 && b0 < 0x7f) return 1;
  // Controls, DEL, stray continuation bytes, overlong two-byte leads (c0,
  // c1) and leads beyond U+10FFFF (f5..ff).
  if (b0 < 0xc2 || b0 > 0xf4) return 0;
  const size_t n = b0 < 0xe0 ? 2 : b0 < 0xf0 ? 3 : 4;
  if (n > s.size() - i) return 0;
  uint32_t cp = b0 & (0x7fu >> n);
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3fu);
  }
  if (n == 3 && cp < 0x800) return 0;                       // overlong
  if (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) return 0;  // overlong, out of range
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;               // surrogates
  if (cp >= 0x80 && cp <= 0x9f) return 0;                   // C1 controls
  return n;
}

void escape(std::string_view s, Sink& sink) noexcept {
  static constexpr char kHex[] = "0123456789abcdef";
  size_t run = 0;  // start of the current run of printable characters
  size_t i = 0;
  while (i < s.size()) {
    const size_t n = printable_char(s, i);
    if (n > 0) {
      i += n;
      continue;
    }
    sink.text(s.substr(run, i - run));
    const auto b = static_cast<unsigned char>(s[i]);
    const char esc[4] = {'\\', 'x', kHex[b >> 4], kHex[b & 15]};
    sink.atom(std::string_view(esc, sizeof(esc)));
    run = ++i;
  }
  sink.text(s.substr(run));
}

bool starts_path(std::string_view s, size_t i) noexcept {
  if (s[i] != '/' || i + 1 == s.size()) return false;
  if (i == 0) return true;
  switch (s[i - 1]) {
    case ' ':
    case '\t':
    case '"':
    case '\'':
    case '(':
    case '[':
    case '<':
    case '=':
      return true;
    default:
      return false;
  }
}

bool ends_path(char c) noexcept {
  switch (c) {
    case ' ':
    case '\t':
    case '\n':
    case '\r':
    case '"':
    case '\'':
    case ':':
    case ',':
    case ';':
    case ')':
    case ']':
    case '>':
      return true;
    default:
      return false;
  }
}

// "/a/b/c" -> "c", "/a/b/" -> "b"; a path of slashes only stays as it is.
std::string_view last_component(std::string_view path) noexcept {
  std::string_view trimmed = path;
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.remove_suffix(1);
  if (trimmed.empty()) return path;
  return trimmed.substr(trimmed.rfind('/') + 1);
}

void walk(std::string_view message, Sink& sink) noexcept {
  size_t plain = 0;  // start of text not yet handed on
  size_t i = 0;
  while (i < message.size()) {
    if (!starts_path(message, i)) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < message.size() && !ends_path(message[end])) ++end;
    escape(message.substr(plain, i - plain), sink);
    escape(last_component(message.substr(i, end - i)), sink);
    plain = i = end;
  }
  escape(message.substr(plain), sink);
}

}  // namespace

size_t write_error_text(std::string_view message, void (*emit)(void* ctx, std::string_view piece),
                        void* ctx) noexcept {
  Sink measure(nullptr, nullptr, SIZE_MAX);
  walk(message, measure);
  if (measure.size() <= kMaxErrorTextBytes) {
    if (emit != nullptr) {
      Sink sink(emit, ctx, kMaxErrorTextBytes);
      walk(message, sink);
    }
    return measure.size();
  }
  Sink sink(emit, ctx, kMaxErrorTextBytes - kCut.size());
  walk(message, sink);
  if (emit != nullptr) emit(ctx, kCut);
  return sink.size() + kCut.size();
}

std::string error_text(std::string_view message) {
  std::string out;
  write_error_text(
      message,
      [](void* ctx, std::string_view piece) { static_cast<std::string*>(ctx)->append(piece); },
      &out);
  return out;
}

}  // namespace spillway
