// Topic metadata as the client reads it: the one way a Metadata request is
// encoded and its answer interpreted, shared by the blocking lookups (Admin,
// Consumer) and the Producer's pipelined requests. The answer (decoded by
// common/messages/metadata.h) is copied into owning TopicDescriptions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/messages/metadata.h"
#include "spillway/common/status.h"
#include "spillway/common/write_buffer.h"
#include "spillway/topic_description.h"

namespace spillway::wire {

class Channel;

struct TopicMetadata {
  TopicDescription topic;
  ErrorCode error = ErrorCode::kOk;
  std::string error_message;
};

// Writes the body of a Metadata request for `topics` into `out`. Error: the
// encoder's (a name above 32767 bytes, a refused spill).
Status write_metadata_request(WriteBuffer& out, std::span<const std::string_view> topics) noexcept;
// The same for every topic the broker has.
Status write_all_topics_metadata_request(WriteBuffer& out) noexcept;

// Decodes a Metadata response body (to a request of `version`) into owning
// copies. kCorruptMessage if the body is malformed.
Result<std::vector<TopicMetadata>> decode_metadata(std::span<const std::byte> body,
                                                   int16_t version = messages::kMetadataVersion);

// Takes `topic` out of a decoded answer: its description, or the status its
// error becomes (kUnknownTopic when the answer does not list it). The
// status is the topic's error message (else the code's name), prefixed with
// the topic unless the message names it already.
Result<TopicDescription> take_topic(std::vector<TopicMetadata>& answer, std::string_view topic);

// One Metadata round trip on `channel` (a control call) for `topics`, or for
// every topic. `version` 1 asks for partition sizes too; a broker that does
// not serve it (unsupported_version) is asked again at version 0, and the
// sizes stay -1.
Result<std::vector<TopicMetadata>> request_metadata(Channel& channel,
                                                    std::span<const std::string_view> topics,
                                                    int16_t version = messages::kMetadataVersion);
Result<std::vector<TopicMetadata>> request_all_metadata(
    Channel& channel, int16_t version = messages::kMetadataVersion);

// One topic's description, or its error (see take_topic).
Result<TopicDescription> describe_topic(Channel& channel, std::string_view topic,
                                        int16_t version = messages::kMetadataVersion);

}  // namespace spillway::wire
