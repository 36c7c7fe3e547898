// `spillway produce --value-file PATH`: a file's bytes as one record's value.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "spillway/common/status.h"

namespace spillway::cli {

// The bytes of the regular file at `path`. Its size is checked against
// `max_bytes` before anything is allocated or read. Errors: kInvalidArgument
// when it is larger (naming both sizes) or not a regular file, kIoError when
// it cannot be opened or read (or changed size while read).
Result<std::vector<std::byte>> read_value_file(const std::string& path, size_t max_bytes);

}  // namespace spillway::cli
