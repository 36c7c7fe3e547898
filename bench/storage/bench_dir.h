// A scratch directory on a real disk for storage benchmarks (never tmpfs,
// whose fsync is free): $SPILLWAY_BENCH_DIR, else /var/tmp, else the working
// directory. Removed with its contents on destruction.
#pragma once

#include <linux/magic.h>
#include <stdlib.h>
#include <sys/vfs.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace spillway::storage::bench {

class BenchDir {
 public:
  BenchDir() {
    std::string base;
    if (const char* env = std::getenv("SPILLWAY_BENCH_DIR")) base = env;
    for (const std::string& candidate : {base, std::string("/var/tmp"), std::string(".")}) {
      struct statfs fs;
      if (candidate.empty() || ::statfs(candidate.c_str(), &fs) != 0) continue;
      if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC) continue;
      std::string tmpl = candidate + "/spillway-bench-XXXXXX";
      if (::mkdtemp(tmpl.data()) != nullptr) {
        path_ = tmpl;
        return;
      }
    }
    std::fprintf(stderr, "no disk-backed directory for benchmark data\n");
    std::abort();
  }
  ~BenchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  BenchDir(const BenchDir&) = delete;
  BenchDir& operator=(const BenchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace spillway::storage::bench
