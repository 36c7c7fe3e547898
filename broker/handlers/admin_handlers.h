// Metadata (3), CreateTopics (4), DeleteTopics (5), CommitOffsets (7),
// FetchOffsets (8) and CommitMemberOffsets (17): the control requests
// (docs/protocol.md). None of them is on the produce/fetch hot path.
#pragma once

#include "broker_context.h"
#include "protocol/dispatcher.h"

namespace spillway::broker {

// Whether `offset` may be committed for `partition` of `topic` (null when
// no topic is named `name`): the checks every commit makes, native or
// Kafka. kUnknownTopic, the partition's own error (Topic::check_partition),
// or kInvalidArgument for a negative offset.
Status check_commit(const Topic* topic, std::string_view name, int32_t partition, int64_t offset);

class MetadataHandler final : public Handler {
 public:
  explicit MetadataHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class CreateTopicsHandler final : public Handler {
 public:
  explicit CreateTopicsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class DeleteTopicsHandler final : public Handler {
 public:
  explicit DeleteTopicsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

// Commits run on the core's sync thread (an fsync per commit) and the answer
// comes back to the connection. Both ask the group coordinator first
// (GroupCoordinator::check_commit): CommitOffsets as a "simple" commit
// (refused with unknown_member while the group has members),
// CommitMemberOffsets with the member's id and generation.
class CommitOffsetsHandler final : public Handler {
 public:
  explicit CommitOffsetsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class CommitMemberOffsetsHandler final : public Handler {
 public:
  explicit CommitMemberOffsetsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

class FetchOffsetsHandler final : public Handler {
 public:
  explicit FetchOffsetsHandler(BrokerContext& context) : context_(context) {}
  void handle(Exchange& exchange) override;

 private:
  BrokerContext& context_;
};

}  // namespace spillway::broker
