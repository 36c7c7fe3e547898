// MetadataCache: partition counts per topic (see metadata_cache.h).
#include "metadata_cache.h"

#include <vector>

#include "channel.h"
#include "metadata.h"
#include "spillway/common/messages/metadata.h"

namespace spillway::producer_internal {

MetadataCache::Topic& MetadataCache::topic(std::string_view name) {
  auto it = topics_.find(name);
  if (it == topics_.end()) {
    auto fresh = std::make_unique<Topic>();
    fresh->name = std::string(name);
    it = topics_.emplace(fresh->name, std::move(fresh)).first;
  }
  return *it->second;
}

bool MetadataCache::request_due() const {
  for (const auto& [name, t] : topics_) {
    if (t->wanted && !t->asked) return true;
  }
  return false;
}

Status MetadataCache::write_request(WriteBuffer& out, int32_t correlation_id) {
  std::vector<std::string_view> names;
  for (const auto& [name, t] : topics_) {
    if (t->wanted && !t->asked) names.push_back(t->name);
  }
  SPILLWAY_RETURN_IF_ERROR(wire::write_frame(
      out, frame::ApiKey::kMetadata, messages::kMetadataVersion, correlation_id,
      [&](WriteBuffer& body) { return wire::write_metadata_request(body, names); }));
  for (auto& [name, t] : topics_) {
    if (t->wanted) t->asked = true;
  }
  return Status::Ok();
}

void MetadataCache::request_lost() {
  for (auto& [name, t] : topics_) t->asked = false;
}

void MetadataCache::apply(Status request_error, std::span<const std::byte> body) {
  std::vector<wire::TopicMetadata> answer;
  if (request_error.ok()) {
    Result<std::vector<wire::TopicMetadata>> decoded = wire::decode_metadata(body);
    if (decoded.ok()) {
      answer = std::move(decoded).value();
    } else {
      request_error = decoded.status();
    }
  }
  for (auto& [name, t] : topics_) {
    if (!t->asked) continue;
    t->asked = false;
    t->wanted = false;
    ++t->answers;
    if (!request_error.ok()) {
      t->error = request_error;
      continue;
    }
    Result<TopicDescription> m = wire::take_topic(answer, t->name);
    if (!m.ok()) {
      t->error = m.status();
    } else if (m->partitions.empty()) {
      t->error = Status(ErrorCode::kUnknownTopic, "topic '" + t->name + "' has no partitions");
    } else {
      t->error = Status::Ok();
      t->partitions = static_cast<int32_t>(m->partitions.size());
    }
  }
}

}  // namespace spillway::producer_internal
