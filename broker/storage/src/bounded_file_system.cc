// Open files bounded by a least-recently-used set (see bounded_file_system.h).
#include "spillway/storage/bounded_file_system.h"

#include <sys/resource.h>

#include <algorithm>
#include <cassert>
#include <utility>

namespace spillway::storage {

// A file of a BoundedFileSystem: its path, and its descriptor while it is
// among the most recently used. Every operation goes through acquire().
class BoundedFile final : public File {
 public:
  BoundedFile(BoundedFileSystem& fs, std::string path) : fs_(fs), path_(std::move(path)) {}
  ~BoundedFile() override { fs_.release(*this); }

  Result<std::size_t> write_at(std::span<const std::byte> data, uint64_t offset) override {
    return with_file([&](File& f) { return f.write_at(data, offset); });
  }
  Result<std::size_t> read_at(std::span<std::byte> out, uint64_t offset) override {
    return with_file([&](File& f) { return f.read_at(out, offset); });
  }
  Status sync_data() override {
    return with_file([](File& f) { return f.sync_data(); });
  }
  Status start_writeback(uint64_t offset, uint64_t length) override {
    return with_file([&](File& f) { return f.start_writeback(offset, length); });
  }
  void advise_will_need(uint64_t offset, uint64_t length) noexcept override {
    (void)with_file([&](File& f) {
      f.advise_will_need(offset, length);
      return Status::Ok();
    });
  }
  Status truncate(uint64_t size) override {
    return with_file([&](File& f) { return f.truncate(size); });
  }
  Result<uint64_t> size() override {
    return with_file([](File& f) { return f.size(); });
  }
  Status hold_open() override { return fs_.pin(*this); }
  // What with_file() holds for one call, held by the caller instead (a
  // sendfile of a fetch response, until its bytes are sent).
  Result<std::shared_ptr<File>> held_descriptor() override { return fs_.acquire(*this); }

 private:
  friend class BoundedFileSystem;

  // `op` on the descriptor, held for the call (reopened if evicted).
  template <typename Op>
  auto with_file(Op op) -> decltype(op(std::declval<File&>())) {
    Result<std::shared_ptr<File>> file = fs_.acquire(*this);
    if (!file.ok()) return file.status();
    return op(**file);
  }

  BoundedFileSystem& fs_;
  const std::string path_;
  // Everything below is guarded by fs_.mu_.
  std::shared_ptr<File> open_;  // null while evicted
  BoundedFile* newer_ = nullptr;
  BoundedFile* older_ = nullptr;
  bool linked_ = false;
  bool pinned_ = false;
};

BoundedFileSystem::BoundedFileSystem(FileSystem& inner, std::size_t max_open)
    : inner_(inner), max_open_(std::max<std::size_t>(1, max_open)) {}

BoundedFileSystem::~BoundedFileSystem() {
  // Every file must be gone first: each refers back to this object.
  assert(linked_ == 0 && pinned_ == 0);
}

Result<std::unique_ptr<File>> BoundedFileSystem::open(const std::string& path, OpenMode mode) {
  auto file = std::make_unique<BoundedFile>(*this, path);
  std::lock_guard lock(mu_);
  make_room_locked();
  // The first open applies `mode` (creates, or fails on a missing file);
  // reopens after an eviction always expect the file to exist.
  Result<std::unique_ptr<File>> opened = inner_.open(path, mode);
  if (!opened.ok()) return opened.status();
  file->open_ = std::shared_ptr<File>(std::move(*opened));
  link_front_locked(*file);
  return std::unique_ptr<File>(std::move(file));
}

std::size_t BoundedFileSystem::open_files() const {
  std::lock_guard lock(mu_);
  return linked_ + pinned_;
}

Result<std::shared_ptr<File>> BoundedFileSystem::acquire(BoundedFile& file) {
  std::lock_guard lock(mu_);
  if (file.open_) {
    if (file.linked_ && head_ != &file) {
      unlink_locked(file);
      link_front_locked(file);
    }
    return file.open_;
  }
  SPILLWAY_RETURN_IF_ERROR(reopen_locked(file));
  link_front_locked(file);
  return file.open_;
}

Status BoundedFileSystem::reopen_locked(BoundedFile& file) {
  make_room_locked();
  Result<std::unique_ptr<File>> opened = inner_.open(file.path_, OpenMode::kExisting);
  if (!opened.ok()) return opened.status();
  reopens_.fetch_add(1, std::memory_order_relaxed);
  file.open_ = std::shared_ptr<File>(std::move(*opened));
  return Status::Ok();
}

Status BoundedFileSystem::pin(BoundedFile& file) {
  std::lock_guard lock(mu_);
  if (file.pinned_) return Status::Ok();
  if (!file.open_) SPILLWAY_RETURN_IF_ERROR(reopen_locked(file));
  if (file.linked_) unlink_locked(file);
  file.pinned_ = true;
  ++pinned_;
  return Status::Ok();
}

void BoundedFileSystem::release(BoundedFile& file) {
  std::lock_guard lock(mu_);
  if (file.linked_) unlink_locked(file);
  if (file.pinned_) --pinned_;
  file.open_.reset();
}

void BoundedFileSystem::make_room_locked() {
  while (linked_ + pinned_ >= max_open_ && tail_ != nullptr) {
    BoundedFile& victim = *tail_;
    unlink_locked(victim);
    // Closes now, or when the operation still using it finishes.
    victim.open_.reset();
  }
}

void BoundedFileSystem::link_front_locked(BoundedFile& file) {
  file.older_ = head_;
  file.newer_ = nullptr;
  if (head_ != nullptr) head_->newer_ = &file;
  head_ = &file;
  if (tail_ == nullptr) tail_ = &file;
  file.linked_ = true;
  ++linked_;
}

void BoundedFileSystem::unlink_locked(BoundedFile& file) {
  if (file.newer_ != nullptr) {
    file.newer_->older_ = file.older_;
  } else {
    head_ = file.older_;
  }
  if (file.older_ != nullptr) {
    file.older_->newer_ = file.newer_;
  } else {
    tail_ = file.newer_;
  }
  file.newer_ = file.older_ = nullptr;
  file.linked_ = false;
  --linked_;
}

std::size_t default_max_open_log_files(uint64_t nofile_limit, uint64_t max_connections,
                                       uint64_t reserve) {
  const uint64_t taken = max_connections + reserve;
  if (nofile_limit > taken + 64) return static_cast<std::size_t>(nofile_limit - taken);
  // A limit too low for max_connections as configured: half of it, so a
  // small broker still works with the connections it really gets.
  return static_cast<std::size_t>(std::max<uint64_t>(16, nofile_limit / 2));
}

namespace {
// An unlimited hard limit cannot be the soft one; the kernel's own ceiling
// (fs.nr_open) is 1,048,576 by default.
constexpr rlim_t kCeiling = 1u << 20;
}  // namespace

uint64_t current_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  return limit.rlim_cur == RLIM_INFINITY ? kCeiling : limit.rlim_cur;
}

uint64_t raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  const rlim_t want = limit.rlim_max == RLIM_INFINITY ? kCeiling : limit.rlim_max;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < want) {
    rlimit raised = limit;
    raised.rlim_cur = want;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur == RLIM_INFINITY ? kCeiling : limit.rlim_cur;
}

}  // namespace spillway::storage
