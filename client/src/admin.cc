// Admin: administrative calls over one Connection.
#include "spillway/admin.h"

#include "metadata.h"
#include "request_body.h"
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

Status Admin::create_topic(std::string_view name, const TopicOptions& options) {
  const messages::CreateTopicsRequest request{name,
                                              options.partitions,
                                              options.flush_policy,
                                              options.retention_bytes,
                                              options.retention_ms,
                                              options.segment_bytes};
  Result<std::vector<std::byte>> body = wire::encode_body(
      [&](WriteBuffer& out) { return messages::encode_create_topics_request(request, out); });
  if (!body.ok()) return body.status();
  Result<std::vector<std::byte>> response =
      connection_.request(frame::ApiKey::kCreateTopics, messages::kCreateTopicsVersion, *body);
  return response.ok() ? Status::Ok() : response.status();
}

Status Admin::delete_topic(std::string_view name) {
  const messages::DeleteTopicsRequest request{name};
  Result<std::vector<std::byte>> body = wire::encode_body(
      [&](WriteBuffer& out) { return messages::encode_delete_topics_request(request, out); });
  if (!body.ok()) return body.status();
  Result<std::vector<std::byte>> response =
      connection_.request(frame::ApiKey::kDeleteTopics, messages::kDeleteTopicsVersion, *body);
  return response.ok() ? Status::Ok() : response.status();
}

Result<std::vector<TopicDescription>> Admin::list_topics() {
  Result<std::vector<wire::TopicMetadata>> m = wire::request_metadata(connection_, {}, true);
  if (!m.ok()) return m.status();
  std::vector<TopicDescription> topics;
  topics.reserve(m->size());
  for (wire::TopicMetadata& t : *m) {
    if (t.error == ErrorCode::kOk) topics.push_back(std::move(t.topic));
  }
  return topics;
}

Result<TopicDescription> Admin::describe_topic(std::string_view name) {
  return wire::describe_topic(connection_, name);
}

}  // namespace spillway
