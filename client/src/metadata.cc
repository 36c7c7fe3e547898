// Client-side topic metadata lookups over the common Metadata codec (see
// metadata.h).
#include "metadata.h"

#include "request_body.h"
#include "spillway/common/messages/metadata.h"

namespace spillway::wire {

Result<std::vector<TopicMetadata>> decode_metadata(std::span<const std::byte> body) {
  Result<messages::MetadataResponse> decoded = messages::decode_metadata_response(body);
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
      PartitionDescription pm;
      pm.partition = p.partition;
      pm.log_start_offset = p.log_start_offset;
      pm.high_watermark = p.high_watermark;
      pm.error = p.error_code;
      pm.error_message = std::string(p.error_message);
      m.topic.partitions.push_back(pm);
    }
    topics.push_back(std::move(m));
  }
  return topics;
}

Result<std::vector<TopicMetadata>> request_metadata(Connection& connection,
                                                    std::span<const std::string_view> topics,
                                                    bool all) {
  messages::MetadataRequest request;
  request.all_topics = all;
  request.topics = topics;
  Result<std::vector<std::byte>> body = encode_body(
      [&](WriteBuffer& out) { return messages::encode_metadata_request(request, out); });
  if (!body.ok()) return body.status();
  Result<std::vector<std::byte>> response =
      connection.request(frame::ApiKey::kMetadata, messages::kMetadataVersion, *body);
  if (!response.ok()) return response.status();
  return decode_metadata(*response);
}

Status topic_error(const TopicMetadata& m, std::string_view topic) {
  std::string why =
      m.error_message.empty() ? std::string(error_code_name(m.error)) : m.error_message;
  if (why.find(topic) == std::string::npos) why = "topic '" + std::string(topic) + "': " + why;
  return Status(m.error, std::move(why));
}

Result<TopicDescription> describe_topic(Connection& connection, std::string_view topic) {
  const std::string_view names[] = {topic};
  Result<std::vector<TopicMetadata>> m = request_metadata(connection, names, false);
  if (!m.ok()) return m.status();
  for (TopicMetadata& t : *m) {
    if (t.topic.name != topic) continue;
    if (t.error != ErrorCode::kOk) return topic_error(t, topic);
    return std::move(t.topic);
  }
  return Status(ErrorCode::kUnknownTopic, "topic '" + std::string(topic) + "' does not exist");
}

}  // namespace spillway::wire
