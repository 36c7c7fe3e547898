// Admin: administrative calls, each a control call on the Connection's
// channel (channel.h).
#include "spillway/admin.h"

#include "channel.h"
#include "metadata.h"
#include "spillway/common/messages/metadata.h"
#include "spillway/common/messages/topics.h"

namespace spillway {

Result<Admin> Admin::connect(std::string_view address, ConnectionOptions options) {
  Result<Connection> connection = Connection::connect(address, std::move(options));
  if (!connection.ok()) return connection.status();
  return Admin(std::move(connection).value());
}

Result<ApiVersionsResponse> Admin::api_versions() {
  std::vector<std::byte> body;
  encode_api_versions_request(connection_.options().client_id, body);
  Result<std::vector<std::byte>> response =
      connection_.request(frame::ApiKey::kApiVersions, kApiVersionsVersion, body);
  if (!response.ok()) return response.status();
  return decode_api_versions_response(*response);
}

Result<PingReply> Admin::ping() {
  const auto start = std::chrono::steady_clock::now();
  Result<ApiVersionsResponse> versions = api_versions();
  if (!versions.ok()) return versions.status();
  return PingReply{std::move(versions).value(), std::chrono::steady_clock::now() - start};
}

// TopicOptions' values go on the wire as they are.
static_assert(TopicOptions::kBrokerDefault == messages::kUseBrokerDefault);
static_assert(TopicOptions::kUnlimited == messages::kUnlimited);

Status Admin::create_topic(std::string_view name, const TopicOptions& options) {
  const messages::CreateTopicsRequest request{.name = name,
                                              .partitions = options.partitions,
                                              .flush_policy = options.flush_policy,
                                              .retention_bytes = options.retention_bytes,
                                              .retention_ms = options.retention_ms,
                                              .segment_bytes = options.segment_bytes,
                                              .replication_factor = options.replication_factor};
  // Version 1 carries the replication factor; a default one goes as v0, which
  // every broker serves.
  const int16_t version = options.replication_factor == -1 ? messages::kCreateTopicsVersion
                                                           : messages::kCreateTopicsMaxVersion;
  return wire::channel_of(connection_)
      .call(frame::ApiKey::kCreateTopics, version,
            [&](WriteBuffer& out) {
              return messages::encode_create_topics_request(request, out, version);
            })
      .status();
}

Status Admin::delete_topic(std::string_view name) {
  const messages::DeleteTopicsRequest request{.name = name};
  return wire::channel_of(connection_)
      .call(frame::ApiKey::kDeleteTopics, messages::kDeleteTopicsVersion,
            [&](WriteBuffer& out) { return messages::encode_delete_topics_request(request, out); })
      .status();
}

Result<std::vector<TopicDescription>> Admin::list_topics() {
  Result<std::vector<wire::TopicMetadata>> m =
      wire::request_all_metadata(wire::channel_of(connection_), messages::kMetadataMaxVersion);
  if (!m.ok()) return m.status();
  std::vector<TopicDescription> topics;
  topics.reserve(m->size());
  for (wire::TopicMetadata& t : *m) {
    if (t.error == ErrorCode::kOk) topics.push_back(std::move(t.topic));
  }
  return topics;
}

Result<TopicDescription> Admin::describe_topic(std::string_view name) {
  return wire::describe_topic(wire::channel_of(connection_), name, messages::kMetadataMaxVersion);
}

}  // namespace spillway
