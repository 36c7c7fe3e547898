// Which producer wrote each record a fault run read back, from the batch
// headers a replica stored (its segment files, read beside the running
// broker). The checker needs it to tell a broker that stored one producer
// batch twice (an idempotence failure) from a client that sent a batch
// again under a new producer epoch, which a broker cannot deduplicate:
// librdkafka does that after it bumps its epoch (librdkafka issue #4953,
// docs/kafka.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "log_checker.h"

namespace spillway::testing {

// Sets producer_id and producer_epoch of every record of partition
// `partition` in `contents` that a batch in `partition_dir` (a broker's
// <data dir>/topics/<topic>/<partition>) covers, and counts those records
// in `*covered` when given. Returns "" or what could not be read.
std::string annotate_producers(TopicContents& contents, int32_t partition,
                               const std::filesystem::path& partition_dir,
                               int64_t* covered = nullptr);

}  // namespace spillway::testing
