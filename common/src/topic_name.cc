// The topic-name rules (topic_name.h).
#include "spillway/common/topic_name.h"

#include <string>

namespace spillway {

Status check_topic_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxTopicNameBytes) {
    return Status(ErrorCode::kInvalidArgument, "topic name must be 1 to 249 bytes long");
  }
  if (name == "." || name == "..") {
    return Status(ErrorCode::kInvalidArgument, "topic name may not be \".\" or \"..\"");
  }
  if (name.starts_with(".deleted-")) {
    // Older brokers renamed deleted topics to ".deleted-N-NAME", and start-up
    // still removes such directories.
    return Status(ErrorCode::kInvalidArgument,
                  "topic names starting with \".deleted-\" are reserved");
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) {
      return Status(ErrorCode::kInvalidArgument,
                    "topic name \"" + std::string(name) +
                        "\" may contain only letters, digits, '.', '_' and '-'");
    }
  }
  return Status::Ok();
}

}  // namespace spillway
