// The cluster id Kafka clients see in Metadata and DescribeCluster: made
// once, at the first start on a data directory, and kept there
// (DATA_DIR/cluster.id), in Kafka's form (16 random bytes, URL-safe base64
// without padding: 22 characters).
#pragma once

#include <string>

#include "spillway/common/status.h"
#include "spillway/storage/file_system.h"

namespace spillway::broker {

// The id stored in `data_dir`, or a new one written there (atomically).
// Errors: kIoError from the file system; kCorruptMessage for a file that
// does not hold an id.
Result<std::string> load_or_create_cluster_id(storage::FileSystem& fs, const std::string& data_dir);

}  // namespace spillway::broker
