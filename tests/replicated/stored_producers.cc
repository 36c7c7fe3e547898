#include "stored_producers.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "spillway/common/record_batch.h"

namespace spillway::testing {

namespace {

// Segment files <base offset>.log, in offset order.
std::vector<std::filesystem::path> segments_of(const std::filesystem::path& dir,
                                               std::string& error) {
  std::vector<std::pair<int64_t, std::filesystem::path>> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::filesystem::path& p = entry.path();
    if (p.extension() != ".log") continue;
    try {
      found.emplace_back(std::stoll(p.stem().string()), p);
    } catch (const std::exception&) {
      continue;  // not a segment
    }
  }
  if (ec) error = "cannot list " + dir.string() + ": " + ec.message();
  std::sort(found.begin(), found.end());
  std::vector<std::filesystem::path> out;
  for (auto& [base, path] : found) out.push_back(std::move(path));
  return out;
}

}  // namespace

std::string annotate_producers(TopicContents& contents, int32_t partition,
                               const std::filesystem::path& partition_dir, int64_t* covered) {
  std::string error;
  auto part = contents.partitions.find(partition);
  if (part == contents.partitions.end()) return error;
  std::map<int64_t, ReadRecord>& records = part->second;
  for (const std::filesystem::path& segment : segments_of(partition_dir, error)) {
    std::error_code size_error;
    const auto size = static_cast<std::streamoff>(std::filesystem::file_size(segment, size_error));
    if (size_error) continue;  // removed since it was listed
    std::ifstream in(segment, std::ios::binary);
    std::array<std::byte, batch::kHeaderSize> bytes{};
    std::streamoff at = 0;
    // The broker may be appending: a header or batch cut short at the end
    // is simply where this reading stops.
    while (in.seekg(at) && in.read(reinterpret_cast<char*>(bytes.data()), bytes.size())) {
      Result<batch::BatchHeader> h = batch::parse_header(std::span<const std::byte>(bytes));
      if (!h.ok()) {
        if (error.empty()) error = segment.string() + ": " + h.status().to_string();
        break;
      }
      if (at + static_cast<std::streamoff>(h->total_size()) > size) break;
      for (auto it = records.lower_bound(h->base_offset);
           it != records.end() && it->first <= h->last_offset(); ++it) {
        it->second.producer_id = h->producer_id;
        it->second.producer_epoch = h->producer_epoch;
        if (covered != nullptr) ++*covered;
      }
      at += static_cast<std::streamoff>(h->total_size());
    }
  }
  return error;
}

}  // namespace spillway::testing
