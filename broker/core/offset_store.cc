// OffsetStore: one atomically rewritten file per consumer group.
#include "offset_store.h"

#include <asio/post.hpp>
#include <cassert>
#include <charconv>

namespace spillway::broker {

namespace {

std::string hex(std::string_view s) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

bool unhex(std::string_view s, std::string* out) {
  if (s.size() % 2) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); i += 2) {
    const int hi = nibble(s[i]), lo = nibble(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

template <typename T>
bool parse_num(std::string_view s, T* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

static_assert(OffsetStore::kMaxGroupNameBytes == 121);

Status OffsetStore::validate_group(std::string_view group) {
  if (group.empty() || group.size() > kMaxGroupNameBytes) {
    return Status(ErrorCode::kInvalidArgument, "group name must be 1 to " +
                                                   std::to_string(kMaxGroupNameBytes) +
                                                   " bytes, not " + std::to_string(group.size()));
  }
  return Status::Ok();
}

std::string OffsetStore::path_for(std::string_view group) const {
  return dir_ + "/" + hex(group) + ".offsets";
}

Status OffsetStore::load() {
  SPILLWAY_RETURN_IF_ERROR(fs_.create_dirs(dir_));
  Result<std::vector<std::string>> files = fs_.list_dir(dir_);
  if (!files.ok()) return files.status();
  std::lock_guard lock(mu_);
  for (const std::string& file : *files) {
    const std::string suffix = ".offsets";
    if (file.size() <= suffix.size() ||
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;  // e.g. a .tmp left by a crash
    }
    std::string group;
    if (!unhex(std::string_view(file).substr(0, file.size() - suffix.size()), &group)) continue;
    const std::string path = dir_ + "/" + file;
    Result<std::string> text = fs_.read_file(path);
    if (!text.ok()) return text.status();
    GroupOffsets offsets;
    std::string_view rest = *text;
    // Lines: <offset> <partition> <topic>  (the topic last: it may be anything)
    while (!rest.empty()) {
      const size_t eol = rest.find('\n');
      std::string_view line = rest.substr(0, eol);
      rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
      if (line.empty()) continue;
      const size_t a = line.find(' ');
      const size_t b = a == std::string_view::npos ? a : line.find(' ', a + 1);
      int64_t offset = 0;
      int32_t partition = 0;
      if (b == std::string_view::npos || !parse_num(line.substr(0, a), &offset) ||
          !parse_num(line.substr(a + 1, b - a - 1), &partition)) {
        return Status(ErrorCode::kConfig, "malformed committed-offsets file " + path);
      }
      offsets[{std::string(line.substr(b + 1)), partition}] = offset;
    }
    groups_[group] = std::move(offsets);
  }
  return Status::Ok();
}

Status OffsetStore::commit(std::string_view group, const std::vector<Entry>& entries) {
  SPILLWAY_RETURN_IF_ERROR(validate_group(group));
  std::lock_guard lock(mu_);
  auto it = groups_.find(group);
  GroupOffsets next = it == groups_.end() ? GroupOffsets() : it->second;
  for (const Entry& e : entries) next[{e.topic, e.partition}] = e.offset;
  std::string text;
  for (const auto& [key, offset] : next) {
    text += std::to_string(offset) + " " + std::to_string(key.second) + " " + key.first + "\n";
  }
  SPILLWAY_RETURN_IF_ERROR(storage::write_file_atomically(fs_, path_for(group), text));
  if (it == groups_.end()) {
    groups_.emplace(std::string(group), std::move(next));
  } else {
    it->second = std::move(next);
  }
  return Status::Ok();
}

void OffsetStore::commit_async(std::string group, std::vector<Entry> entries,
                               asio::any_io_executor executor, std::function<void(Status)> done) {
  const size_t core = CoreSet::current();
  assert(core != CoreSet::kNoCore);
  asio::post(cores_.sync_context(core == CoreSet::kNoCore ? 0 : core),
             [this, group = std::move(group), entries = std::move(entries),
              executor = std::move(executor), done = std::move(done)]() mutable {
               Status st = entries.empty() ? Status::Ok() : commit(group, entries);
               asio::post(executor, [done = std::move(done), st = std::move(st)]() mutable {
                 done(std::move(st));
               });
             });
}

Result<bool> OffsetStore::remove_group(std::string_view group) {
  std::lock_guard lock(mu_);
  auto it = groups_.find(group);
  if (it == groups_.end()) return false;
  SPILLWAY_RETURN_IF_ERROR(fs_.remove_all(path_for(group)));
  SPILLWAY_RETURN_IF_ERROR(fs_.sync_dir(dir_));
  const bool had_offsets = !it->second.empty();
  groups_.erase(it);
  return had_offsets;
}

void OffsetStore::remove_group_async(std::string group, asio::any_io_executor executor,
                                     std::function<void(Result<bool>)> done) {
  const size_t core = CoreSet::current();
  assert(core != CoreSet::kNoCore);
  asio::post(cores_.sync_context(core == CoreSet::kNoCore ? 0 : core),
             [this, group = std::move(group), executor = std::move(executor),
              done = std::move(done)]() mutable {
               Result<bool> removed = remove_group(group);
               asio::post(executor,
                          [done = std::move(done), removed = std::move(removed)]() mutable {
                            done(std::move(removed));
                          });
             });
}

int64_t OffsetStore::committed(std::string_view group, std::string_view topic,
                               int32_t partition) const {
  std::lock_guard lock(mu_);
  auto it = groups_.find(group);
  if (it == groups_.end()) return -1;
  auto jt = it->second.find({std::string(topic), partition});
  return jt == it->second.end() ? -1 : jt->second;
}

std::vector<OffsetStore::Entry> OffsetStore::group_offsets(std::string_view group) const {
  std::vector<Entry> out;
  std::lock_guard lock(mu_);
  auto it = groups_.find(group);
  if (it == groups_.end()) return out;
  out.reserve(it->second.size());
  for (const auto& [key, offset] : it->second) out.push_back({key.first, key.second, offset});
  return out;
}

std::vector<std::string> OffsetStore::groups() const {
  std::vector<std::string> out;
  std::lock_guard lock(mu_);
  for (const auto& [group, offsets] : groups_) {
    if (!offsets.empty()) out.push_back(group);
  }
  return out;
}

void OffsetStore::adopt(std::string_view group, const std::vector<Entry>& entries) {
  GroupOffsets offsets;
  for (const Entry& e : entries) offsets[{e.topic, e.partition}] = e.offset;
  std::lock_guard lock(mu_);
  auto it = groups_.find(group);
  if (it == groups_.end()) {
    if (!offsets.empty()) groups_.emplace(std::string(group), std::move(offsets));
  } else {
    it->second = std::move(offsets);
  }
}

void OffsetStore::forget_topic(std::string_view topic) {
  std::lock_guard lock(mu_);
  for (auto& [group, offsets] : groups_) {
    std::erase_if(offsets, [&](const auto& kv) { return kv.first.first == topic; });
  }
}

}  // namespace spillway::broker
