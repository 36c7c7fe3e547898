// The repair subcommand: checks arguments, locks the data directory and runs
// storage::repair_partition_log on one partition directory.
#include "repair/repair_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/topic_config.h"
#include "data_dir.h"
#include "spillway/common/log.h"
#include "spillway/common/record_batch.h"
#include "spillway/storage/repair.h"

namespace spillway::broker {
namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "spillway-broker repair: %s\n", message.c_str());
  return 1;
}

std::string offsets(const storage::RemovedRange& r) {
  if (r.end_offset < 0) return "offsets from " + std::to_string(r.first_offset) + " on";
  return "offsets [" + std::to_string(r.first_offset) + ", " + std::to_string(r.end_offset) + ")";
}

}  // namespace

int run_repair_command(int argc, char** argv) {
  CLI::App app(
      "Repairs a corrupt partition log while no broker runs on the data directory: checks "
      "every batch, cuts out each damaged byte range and keeps every valid batch at its "
      "offset (the log then has an offset gap where the damage was). Prints what it removed.",
      "spillway-broker repair");
  std::string data_dir;
  std::string topic;
  int32_t partition = -1;
  app.add_option("--data-dir", data_dir, "the broker's data directory")->required();
  app.add_option("--topic", topic, "topic of the corrupt partition")->required();
  app.add_option("--partition", partition, "the corrupt partition")
      ->required()
      ->check(CLI::Range(0, 1 << 20));
  try {
    app.parse(argc - 1, argv + 1);  // argv[1] ("repair") stands in for the program name
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);  // prints the message or the help
    return code == 0 ? 0 : 2;
  }
  log::setup("warn");
  if (Status st = validate_topic_name(topic); !st.ok()) {
    std::fprintf(stderr, "spillway-broker repair: %s\n", std::string(st.message()).c_str());
    return 2;
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(data_dir, ec)) {
    return fail("no data directory " + data_dir);
  }
  const std::string dir = data_dir + "/topics/" + topic + "/" + std::to_string(partition);
  if (!std::filesystem::is_directory(dir, ec)) {
    return fail("topic " + topic + " has no partition " + std::to_string(partition) + " in " +
                data_dir + " (no directory " + dir + ")");
  }
  Result<DataDirLock> lock = DataDirLock::acquire(data_dir);
  if (!lock.ok()) {
    return fail(std::string(lock.status().message()) + "; stop the broker first");
  }
  // The largest batch the format allows, so that no valid batch written
  // under a larger max_batch_bytes than today's is taken for damage.
  storage::LogConfig config;
  config.max_batch_bytes = batch::kMaxBatchBytes;
  Result<storage::RepairReport> report =
      storage::repair_partition_log(storage::posix_file_system(), dir, config);
  const std::string name = "topic " + topic + " partition " + std::to_string(partition);
  if (!report.ok()) return fail(name + ": " + report.status().to_string());
  uint64_t bytes = 0;
  for (const storage::RemovedRange& r : report->removed) {
    bytes += r.length;
    std::printf("%s: removed %s: %llu bytes at byte %llu of %s (%s)\n", name.c_str(),
                offsets(r).c_str(), static_cast<unsigned long long>(r.length),
                static_cast<unsigned long long>(r.position), r.segment.c_str(), r.reason.c_str());
  }
  for (const std::string& segment : report->created_segments) {
    std::printf("%s: the batches after a removed range now start segment %s\n", name.c_str(),
                segment.c_str());
  }
  if (report->removed.empty()) {
    std::printf("%s: every batch checks out; nothing removed. It serves at the next start.\n",
                name.c_str());
  } else {
    std::printf(
        "%s: repaired: %zu damaged range(s), %llu bytes removed; every other batch keeps its "
        "offset. It serves again at the next start.\n",
        name.c_str(), report->removed.size(), static_cast<unsigned long long>(bytes));
  }
  return 0;
}

}  // namespace spillway::broker
