// DATA_DIR/cluster.id.
#include "cluster_id.h"

#include <array>
#include <random>

namespace spillway::broker {

namespace {

constexpr char kFile[] = "/cluster.id";
constexpr size_t kIdChars = 22;

std::string new_cluster_id() {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::random_device random;
  std::array<uint8_t, 16> bytes;
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(random());
  // 128 bits in 6-bit digits: 21 whole digits and 2 bits in the last.
  std::string id;
  uint32_t acc = 0;
  int bits = 0;
  for (uint8_t b : bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 6) {
      id += kAlphabet[(acc >> (bits - 6)) & 63];
      bits -= 6;
    }
  }
  if (bits > 0) id += kAlphabet[(acc << (6 - bits)) & 63];
  return id;
}

bool looks_like_id(std::string_view text) {
  if (text.size() != kIdChars) return false;
  for (char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Result<std::string> load_or_create_cluster_id(storage::FileSystem& fs,
                                              const std::string& data_dir) {
  const std::string path = data_dir + kFile;
  if (fs.exists(path)) {
    Result<std::string> text = fs.read_file(path);
    if (!text.ok()) return text.status();
    std::string id = *text;
    while (!id.empty() && (id.back() == '\n' || id.back() == '\r')) id.pop_back();
    if (!looks_like_id(id)) {
      return Status(ErrorCode::kCorruptMessage,
                    path + " does not hold a cluster id (22 characters of URL-safe base64)");
    }
    return id;
  }
  std::string id = new_cluster_id();
  if (Status st = storage::write_file_atomically(fs, path, id + "\n"); !st.ok()) return st;
  return id;
}

}  // namespace spillway::broker
