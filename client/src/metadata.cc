// Client-side topic metadata over the common Metadata codec (see
// metadata.h).
#include "metadata.h"

#include "channel.h"
#include "spillway/common/messages/metadata.h"

namespace spillway::wire {

namespace {

Status encode_request(WriteBuffer& out, const messages::MetadataRequest& request) noexcept {
  return messages::encode_metadata_request(request, out);
}

Result<std::vector<TopicMetadata>> round_trip(Channel& channel,
                                              const messages::MetadataRequest& request,
                                              int16_t version) {
  Result<std::vector<std::byte>> response =
      channel.call(frame::ApiKey::kMetadata, version,
                   [&](WriteBuffer& out) { return encode_request(out, request); });
  // A broker from before version 1 answers the same request at version 0.
  if (!response.ok() && response.status().code() == ErrorCode::kUnsupportedVersion &&
      version != messages::kMetadataVersion) {
    return round_trip(channel, request, messages::kMetadataVersion);
  }
  if (!response.ok()) return response.status();
  return decode_metadata(*response, version);
}

}  // namespace

Status write_metadata_request(WriteBuffer& out, std::span<const std::string_view> topics) noexcept {
  return encode_request(out, {.all_topics = false, .topics = topics});
}

Status write_all_topics_metadata_request(WriteBuffer& out) noexcept {
  return encode_request(out, {.all_topics = true, .topics = {}});
}

Result<std::vector<TopicMetadata>> decode_metadata(std::span<const std::byte> body,
                                                   int16_t version) {
  Result<messages::MetadataResponse> decoded = messages::decode_metadata_response(body, version);
  if (!decoded.ok()) return decoded.status();
  std::vector<TopicMetadata> topics;
  topics.reserve(static_cast<std::size_t>(decoded->topics.size()));
  for (const messages::MetadataTopic& t : decoded->topics) {
    TopicMetadata m;
    m.topic.name = std::string(t.name);
    m.error = t.error_code;
    m.error_message = std::string(t.error_message);
    m.topic.flush_policy = std::string(t.flush_policy);
    m.topic.retention_bytes = t.retention_bytes;
    m.topic.retention_ms = t.retention_ms;
    m.topic.partitions.reserve(static_cast<std::size_t>(t.partitions.size()));
    for (const messages::MetadataPartition& p : t.partitions) {
      m.topic.partitions.push_back({.partition = p.partition,
                                    .log_start_offset = p.log_start_offset,
                                    .high_watermark = p.high_watermark,
                                    .error = p.error_code,
                                    .error_message = std::string(p.error_message),
                                    .size_bytes = p.size_bytes});
    }
    topics.push_back(std::move(m));
  }
  return topics;
}

Result<TopicDescription> take_topic(std::vector<TopicMetadata>& answer, std::string_view topic) {
  for (TopicMetadata& t : answer) {
    if (t.topic.name != topic) continue;
    if (t.error == ErrorCode::kOk) return std::move(t.topic);
    std::string why =
        t.error_message.empty() ? std::string(error_code_name(t.error)) : t.error_message;
    if (why.find(topic) == std::string::npos) why = "topic '" + std::string(topic) + "': " + why;
    return Status(t.error, std::move(why));
  }
  return Status(ErrorCode::kUnknownTopic, "topic '" + std::string(topic) + "' does not exist");
}

Result<std::vector<TopicMetadata>> request_metadata(Channel& channel,
                                                    std::span<const std::string_view> topics,
                                                    int16_t version) {
  return round_trip(channel, {.all_topics = false, .topics = topics}, version);
}

Result<std::vector<TopicMetadata>> request_all_metadata(Channel& channel, int16_t version) {
  return round_trip(channel, {.all_topics = true, .topics = {}}, version);
}

Result<TopicDescription> describe_topic(Channel& channel, std::string_view topic, int16_t version) {
  const std::string_view names[] = {topic};
  Result<std::vector<TopicMetadata>> answer = request_metadata(channel, names, version);
  if (!answer.ok()) return answer.status();
  return take_topic(*answer, topic);
}

}  // namespace spillway::wire
