// A Google Benchmark reporter that, after the usual console output, prints
// each benchmark's time as a ratio to its floor (a raw baseline measured in
// the same run), so results read as "x times the floor" on any machine.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace spillway::bench {

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  // pairs: (benchmark name, floor benchmark name), full run names.
  explicit RatioReporter(std::vector<std::pair<std::string, std::string>> pairs)
      : pairs_(std::move(pairs)) {}

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.run_type == Run::RT_Iteration && !r.error_occurred) {
        real_[r.benchmark_name()] = r.GetAdjustedRealTime();
        cpu_[r.benchmark_name()] = r.GetAdjustedCPUTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    // CPU time is the steadier figure on a shared machine; both are shown.
    std::printf("\n%-34s %-32s %10s %10s\n", "benchmark", "floor", "cpu ratio", "real ratio");
    for (const auto& [name, floor] : pairs_) {
      auto a = cpu_.find(name), b = cpu_.find(floor);
      if (a == cpu_.end() || b == cpu_.end() || b->second <= 0) continue;
      std::printf("%-34s %-32s %9.2fx %9.2fx\n", name.c_str(), floor.c_str(), a->second / b->second,
                  real_[name] / real_[floor]);
    }
  }

 private:
  std::vector<std::pair<std::string, std::string>> pairs_;
  std::map<std::string, double> real_;
  std::map<std::string, double> cpu_;
};

}  // namespace spillway::bench
