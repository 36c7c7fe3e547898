// Topic metadata as the client keeps it: the Metadata response (decoded by
// common/messages/metadata.h) copied into owning TopicDescriptions, and the
// one-round-trip lookups the Admin and the Consumer make with it.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/status.h"
#include "spillway/connection.h"
#include "spillway/topic_description.h"

namespace spillway::wire {

struct TopicMetadata {
  TopicDescription topic;
  ErrorCode error = ErrorCode::kOk;
  std::string error_message;
};

// Decodes a Metadata response body into owning copies. kCorruptMessage if
// the body is malformed.
Result<std::vector<TopicMetadata>> decode_metadata(std::span<const std::byte> body);

// One Metadata round trip on `connection` for `topics` (every topic when
// `all`).
Result<std::vector<TopicMetadata>> request_metadata(Connection& connection,
                                                    std::span<const std::string_view> topics,
                                                    bool all);

// The status a topic's metadata error becomes: its message (else the code's
// name), prefixed with the topic unless the message names it already.
Status topic_error(const TopicMetadata& m, std::string_view topic);

// describe: the one topic's description, or its error (kUnknownTopic when
// the broker does not list it).
Result<TopicDescription> describe_topic(Connection& connection, std::string_view topic);

}  // namespace spillway::wire
