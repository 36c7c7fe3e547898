// MemoryFileSystem: in-memory files with injectable faults.
#include "memory_file_system.h"

#include <algorithm>
#include <cerrno>

namespace spillway::storage::testing {

class MemoryFile final : public File {
 public:
  MemoryFile(MemoryFileSystem& fs, std::shared_ptr<MemoryFileSystem::Node> node)
      : fs_(fs), node_(std::move(node)) {}

  void advise_will_need(uint64_t offset, uint64_t length) noexcept override {
    std::lock_guard lock(fs_.mu_);
    fs_.advised_.emplace_back(offset, length);
  }

  Result<std::size_t> write_at(std::span<const std::byte> data, uint64_t offset) override {
    std::lock_guard lock(fs_.mu_);
    auto& f = fs_.faults_;
    if (f.fail_writes) return status_from_errno(EIO, "memory write");
    if (!fs_.allow_change_locked()) return status_from_errno(EIO, "memory write (crashed)");
    std::size_t n = std::min(data.size(), f.max_write_chunk);
    const uint64_t end = offset + n;
    if (end > node_->data.size()) {
      const uint64_t grow = end - node_->data.size();
      const uint64_t used = used_locked();
      const uint64_t room = used >= f.capacity_bytes ? 0 : f.capacity_bytes - used;
      if (grow > room) {
        const uint64_t cut = grow - room;  // what does not fit: a short write
        if (cut >= n) return status_from_errno(ENOSPC, "memory write");
        n -= static_cast<std::size_t>(cut);
      }
    }
    if (offset + n > node_->data.size()) node_->data.resize(offset + n);
    std::copy(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n),
              node_->data.begin() + static_cast<std::ptrdiff_t>(offset));
    node_->mtime_ms = ++fs_.clock_;
    return n;
  }

  Result<std::size_t> read_at(std::span<std::byte> out, uint64_t offset) override {
    std::lock_guard lock(fs_.mu_);
    if (offset >= node_->data.size()) return std::size_t{0};
    const std::size_t n = std::min<uint64_t>(out.size(), node_->data.size() - offset);
    std::copy_n(node_->data.begin() + static_cast<std::ptrdiff_t>(offset), n, out.begin());
    fs_.bytes_read_ += n;
    return n;
  }

  Status sync_data() override {
    std::function<void()> hook;
    {
      std::lock_guard lock(fs_.mu_);
      hook = fs_.faults_.on_sync;
    }
    if (hook) hook();
    std::lock_guard lock(fs_.mu_);
    if (fs_.faults_.fail_sync) return status_from_errno(EIO, "memory fdatasync");
    if (!fs_.allow_change_locked()) return status_from_errno(EIO, "memory fdatasync (crashed)");
    node_->synced = node_->data;
    ++fs_.sync_count_;
    return Status::Ok();
  }

  Status truncate(uint64_t size) override {
    std::lock_guard lock(fs_.mu_);
    if (!fs_.allow_change_locked()) return status_from_errno(EIO, "memory truncate (crashed)");
    node_->data.resize(size);
    return Status::Ok();
  }

  Result<uint64_t> size() override {
    std::lock_guard lock(fs_.mu_);
    return static_cast<uint64_t>(node_->data.size());
  }

 private:
  uint64_t used_locked() {
    uint64_t used = 0;
    for (auto& [name, node] : fs_.files_) used += node->data.size();
    return used;
  }

  MemoryFileSystem& fs_;
  std::shared_ptr<MemoryFileSystem::Node> node_;
};

Result<std::unique_ptr<File>> MemoryFileSystem::open(const std::string& path, OpenMode mode) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) {
    if (mode != OpenMode::kCreate) return status_from_errno(ENOENT, "open " + path);
    if (!allow_change_locked()) return status_from_errno(EIO, "create " + path + " (crashed)");
    it = files_.emplace(path, std::make_shared<Node>()).first;
    it->second->mtime_ms = ++clock_;
  }
  return std::unique_ptr<File>(std::make_unique<MemoryFile>(*this, it->second));
}

bool MemoryFileSystem::allow_change_locked() {
  if (faults_.ops_until_crash == 0) return false;
  if (faults_.ops_until_crash > 0) --faults_.ops_until_crash;
  ++change_count_;
  return true;
}

void MemoryFileSystem::remember_removed_locked(const std::string& path,
                                               const std::shared_ptr<Node>& node) {
  // Only the first removal since the last sync counts: that is the name a
  // power loss brings back.
  if (node->name_durable && removed_.count(path) == 0) removed_[path] = node;
}

Status MemoryFileSystem::remove(const std::string& path) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return status_from_errno(ENOENT, "unlink " + path);
  if (!allow_change_locked()) return status_from_errno(EIO, "unlink " + path + " (crashed)");
  remember_removed_locked(path, it->second);
  files_.erase(it);
  return Status::Ok();
}

uint64_t MemoryFileSystem::change_count() {
  std::lock_guard lock(mu_);
  return change_count_;
}

namespace {

bool is_below(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() + 1 && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

}  // namespace

bool MemoryFileSystem::is_directory_locked(const std::string& path) const {
  if (dirs_.count(path) != 0) return true;
  for (auto& [file, node] : files_) {
    if (is_below(file, path)) return true;
  }
  for (const std::string& dir : dirs_) {
    if (is_below(dir, path)) return true;
  }
  return false;
}

Status MemoryFileSystem::remove_all(const std::string& path) {
  std::lock_guard lock(mu_);
  if (faults_.fail_removes) return status_from_errno(EBUSY, "memory remove " + path);
  std::erase_if(files_, [&](const auto& f) { return f.first == path || is_below(f.first, path); });
  std::erase_if(dirs_, [&](const std::string& d) { return d == path || is_below(d, path); });
  // Whole trees are modelled as gone at once, durably.
  std::erase_if(removed_,
                [&](const auto& r) { return r.first == path || is_below(r.first, path); });
  return Status::Ok();
}

Status MemoryFileSystem::rename(const std::string& from, const std::string& to) {
  std::lock_guard lock(mu_);
  const std::string what = "memory rename " + from + " to " + to;
  if (faults_.fail_renames) return status_from_errno(EIO, what);
  if (!allow_change_locked()) return status_from_errno(EIO, what + " (crashed)");
  if (auto it = files_.find(from); it != files_.end()) {
    if (is_directory_locked(to)) return status_from_errno(EISDIR, what);
    remember_removed_locked(from, it->second);
    if (auto old = files_.find(to); old != files_.end()) remember_removed_locked(to, old->second);
    std::shared_ptr<Node> node = std::move(it->second);
    files_.erase(it);
    node->name_durable = false;
    files_[to] = std::move(node);
    return Status::Ok();
  }
  if (!is_directory_locked(from)) return status_from_errno(ENOENT, what);
  if (files_.count(to) != 0) return status_from_errno(ENOTDIR, what);
  for (auto& [file, node] : files_) {
    if (is_below(file, to)) return status_from_errno(ENOTEMPTY, what);
  }
  std::map<std::string, std::shared_ptr<Node>> moved;
  for (auto it = files_.begin(); it != files_.end();) {
    if (is_below(it->first, from)) {
      it->second->name_durable = false;
      moved[to + it->first.substr(from.size())] = std::move(it->second);
      it = files_.erase(it);
    } else {
      ++it;
    }
  }
  files_.merge(moved);
  std::set<std::string> moved_dirs;
  for (auto it = dirs_.begin(); it != dirs_.end();) {
    if (*it == from || is_below(*it, from)) {
      moved_dirs.insert(to + it->substr(from.size()));
      it = dirs_.erase(it);
    } else {
      ++it;
    }
  }
  dirs_.merge(moved_dirs);
  return Status::Ok();
}

Result<std::vector<std::string>> MemoryFileSystem::list_dir(const std::string& dir) {
  std::lock_guard lock(mu_);
  std::set<std::string> names;
  auto add = [&](const std::string& path) {
    if (!is_below(path, dir)) return;
    const size_t start = dir.size() + 1;
    names.insert(path.substr(start, path.find('/', start) - start));
  };
  for (auto& [path, node] : files_) add(path);
  for (const std::string& path : dirs_) add(path);
  return std::vector<std::string>(names.begin(), names.end());
}

Status MemoryFileSystem::create_dirs(const std::string& dir) {
  std::lock_guard lock(mu_);
  for (size_t slash = dir.find('/', 1); slash != std::string::npos;
       slash = dir.find('/', slash + 1)) {
    dirs_.insert(dir.substr(0, slash));
  }
  dirs_.insert(dir);
  return Status::Ok();
}

Status MemoryFileSystem::sync_dir(const std::string& dir) {
  std::lock_guard lock(mu_);
  if (faults_.fail_sync || faults_.fail_sync_dir) return status_from_errno(EIO, "memory fsync dir");
  if (!allow_change_locked()) return status_from_errno(EIO, "memory fsync dir (crashed)");
  const std::string prefix = dir + "/";
  for (auto& [path, node] : files_) {
    if (path.compare(0, prefix.size(), prefix) == 0) node->name_durable = true;
  }
  std::erase_if(removed_,
                [&](const auto& r) { return r.first.compare(0, prefix.size(), prefix) == 0; });
  return Status::Ok();
}

bool MemoryFileSystem::exists(const std::string& path) {
  std::lock_guard lock(mu_);
  return files_.count(path) != 0 || is_directory_locked(path);
}

bool MemoryFileSystem::is_directory(const std::string& path) {
  std::lock_guard lock(mu_);
  return is_directory_locked(path);
}

Result<std::string> MemoryFileSystem::read_file(const std::string& path) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) {
    return status_from_errno(is_directory_locked(path) ? EISDIR : ENOENT, "read " + path);
  }
  const std::vector<std::byte>& data = it->second->data;
  bytes_read_ += data.size();
  return std::string(reinterpret_cast<const char*>(data.data()), data.size());
}

Result<int64_t> MemoryFileSystem::modified_time_ms(const std::string& path) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return status_from_errno(ENOENT, "stat " + path);
  return it->second->mtime_ms;
}

std::vector<std::byte> MemoryFileSystem::contents(const std::string& path) {
  std::lock_guard lock(mu_);
  auto it = files_.find(path);
  return it == files_.end() ? std::vector<std::byte>() : it->second->data;
}

void MemoryFileSystem::set_contents(const std::string& path, std::vector<std::byte> bytes) {
  std::lock_guard lock(mu_);
  removed_.erase(path);
  auto& node = files_[path];
  if (!node) node = std::make_shared<Node>();
  node->data = bytes;
  node->synced = std::move(bytes);
  node->name_durable = true;
}

void MemoryFileSystem::set_mtime(const std::string& path, int64_t ms) {
  std::lock_guard lock(mu_);
  if (auto it = files_.find(path); it != files_.end()) it->second->mtime_ms = ms;
}

uint64_t MemoryFileSystem::used_bytes() {
  std::lock_guard lock(mu_);
  uint64_t used = 0;
  for (auto& [path, node] : files_) used += node->data.size();
  return used;
}

void MemoryFileSystem::simulate_power_loss() {
  std::lock_guard lock(mu_);
  for (auto it = files_.begin(); it != files_.end();) {
    if (!it->second->name_durable) {
      it = files_.erase(it);
    } else {
      it->second->data = it->second->synced;
      ++it;
    }
  }
  for (auto& [path, node] : removed_) {
    node->data = node->synced;
    node->name_durable = true;
    files_[path] = node;
  }
  removed_.clear();
}

uint64_t MemoryFileSystem::bytes_read() {
  std::lock_guard lock(mu_);
  return bytes_read_;
}

std::vector<std::pair<uint64_t, uint64_t>> MemoryFileSystem::advised() {
  std::lock_guard lock(mu_);
  return advised_;
}

class MemoryGroupSync final : public GroupSync {
 public:
  explicit MemoryGroupSync(MemoryFileSystem& fs) : fs_(fs) {}
  bool covers(const std::string&) override { return true; }
  void sync(std::span<File* const> files, std::span<Status> results) override {
    if (fs_.sync_all_files()) {
      std::fill(results.begin(), results.end(), Status::Ok());
      return;
    }
    per_file_.sync(files, results);
  }

 private:
  MemoryFileSystem& fs_;
  PerFileGroupSync per_file_;
};

Result<std::unique_ptr<GroupSync>> MemoryFileSystem::open_group_sync(const std::string&) {
  return std::unique_ptr<GroupSync>(std::make_unique<MemoryGroupSync>(*this));
}

bool MemoryFileSystem::sync_all_files() {
  std::lock_guard lock(mu_);
  if (faults_.fail_sync || !allow_change_locked()) return false;
  for (auto& [path, node] : files_) node->synced = node->data;
  ++group_sync_count_;
  return true;
}

uint64_t MemoryFileSystem::group_sync_count() {
  std::lock_guard lock(mu_);
  return group_sync_count_;
}

uint64_t MemoryFileSystem::sync_count() {
  std::lock_guard lock(mu_);
  return sync_count_;
}

}  // namespace spillway::storage::testing
