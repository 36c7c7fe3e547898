// Administrative calls on one broker: ApiVersions/ping and topic
// management (create, delete, list, describe).
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "spillway/common/api_versions.h"
#include "spillway/common/status.h"
#include "spillway/connection.h"
#include "spillway/topic_description.h"

namespace spillway {

struct PingReply {
  ApiVersionsResponse versions;            // the broker's version and apis
  std::chrono::nanoseconds round_trip{0};  // request sent to response read
};

// Settings of a new topic. kBrokerDefault / "" = the broker's default.
struct TopicOptions {
  // Values of the numeric settings besides a number.
  static constexpr int64_t kBrokerDefault = -2;  // the broker's setting
  static constexpr int64_t kUnlimited = -1;      // no limit (retention)

  int32_t partitions = 1;
  std::string flush_policy;                  // "durable", "interval" or "" (default)
  int64_t retention_bytes = kBrokerDefault;  // or kUnlimited
  int64_t retention_ms = kBrokerDefault;     // or kUnlimited
  int64_t segment_bytes = kBrokerDefault;
};

class Admin {
 public:
  // Connects to `address` (see Connection::connect).
  static Result<Admin> connect(std::string_view address, ConnectionOptions options = {});
  explicit Admin(Connection connection) : connection_(std::move(connection)) {}

  // The broker's version string and the api keys and versions it serves.
  Result<ApiVersionsResponse> api_versions();

  // One ApiVersions round trip, timed.
  Result<PingReply> ping();

  // Creates a topic. Errors: kTopicExists, kInvalidArgument (the message
  // names the bad setting), transport errors.
  Status create_topic(std::string_view name, const TopicOptions& options = {});
  // Deletes a topic and its data. Error: kUnknownTopic.
  Status delete_topic(std::string_view name);
  // Every topic, with its partitions' offsets, in the broker's order.
  Result<std::vector<TopicDescription>> list_topics();
  // One topic. Error: kUnknownTopic.
  Result<TopicDescription> describe_topic(std::string_view name);

  Connection& connection() noexcept { return connection_; }

 private:
  Connection connection_;
};

}  // namespace spillway
