// spillway::testing::EmbeddedBroker: a whole Spillway broker inside the
// calling process, for tests. It listens on ephemeral ports of 127.0.0.1
// (the native protocol and, unless turned off, Kafka's), keeps its data in a
// fresh temporary directory, and serves until the object is destroyed; the
// destructor stops it, joins every thread it started and removes the
// directory. Several may exist at once, or one after another, in one
// process.
//
// It is the same broker as spillway-broker (broker/broker_runtime.h), minus
// what belongs to a process rather than to a broker: it installs no signal
// handler, serves no /metrics, leaves the scrubber off and does not set up
// logging. Its log lines go to spdlog's default logger, whatever the host
// made of it (see EmbeddedBrokerOptions::log_level).
//
//   auto broker = spillway::testing::EmbeddedBroker::start({.topics = {{"orders", 3}}});
//   ASSERT_TRUE(broker.ok()) << broker.status().to_string();
//   producer_options.bootstrap = (*broker)->native_address();
//
// docs/testing-with-spillway.md has a complete GoogleTest example.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spillway/common/status.h"

namespace spillway::testing {

// A topic the broker creates before start() returns.
struct EmbeddedTopic {
  std::string name;
  int32_t partitions = 1;
};

struct EmbeddedBrokerOptions {
  // Threads serving requests (the broker's cores); partitions are spread
  // over them. One is enough for most tests and starts fastest.
  size_t cores = 1;
  // Created (on the broker's defaults) before start() returns.
  std::vector<EmbeddedTopic> topics;
  // Whether the Kafka-protocol listener is opened.
  bool kafka_listener = true;
  // Whether a produce or metadata request for an unknown topic creates it
  // with one partition ([topics] auto_create_topics).
  bool auto_create_topics = false;
  // Consumer groups: how long the first rebalance of an empty group waits
  // for more members ([groups] initial_rebalance_delay_ms; the daemon's 3 s
  // would slow every group test down, so none by default), and the shortest
  // session timeout a member may ask for ([groups] min_session_timeout_ms).
  std::chrono::milliseconds group_initial_rebalance_delay{0};
  std::chrono::milliseconds group_min_session_timeout{6'000};
  // Empty: spdlog's default logger is left as it is. Otherwise
  // "trace|debug|info|warn|error|critical|off", applied to the default
  // logger's level: the broker logs through that logger, so this is the
  // whole process's level, not the broker's alone.
  std::string log_level;
};

class EmbeddedBroker {
 public:
  // Starts a broker and returns once it serves on both listeners and every
  // topic in `options` exists. Errors: kConfig for an unknown log level or
  // zero cores, kIoError when the temporary directory cannot be made or a
  // listener cannot be bound, and the broker's own start-up errors.
  static Result<std::unique_ptr<EmbeddedBroker>> start(const EmbeddedBrokerOptions& options = {});

  // Stops the broker (in-flight requests are answered, open connections
  // closed), joins its threads and removes its data directory.
  ~EmbeddedBroker();
  EmbeddedBroker(const EmbeddedBroker&) = delete;
  EmbeddedBroker& operator=(const EmbeddedBroker&) = delete;

  // "127.0.0.1:PORT" of the native listener: what ProducerOptions,
  // ConsumerOptions and Admin::connect take as their bootstrap.
  std::string native_address() const;
  uint16_t native_port() const;
  // "127.0.0.1:PORT" of the Kafka listener (bootstrap.servers for
  // librdkafka, kcat, Java clients); empty when kafka_listener is off.
  std::string kafka_address() const;
  uint16_t kafka_port() const;  // 0 when kafka_listener is off
  // The data directory (removed by the destructor).
  const std::string& data_dir() const;

  // Creates a topic while the broker runs (as the CreateTopics request
  // does). Errors: kTopicExists, kInvalidArgument naming the field,
  // kIoError.
  Status create_topic(const EmbeddedTopic& topic);

 private:
  struct Running;
  explicit EmbeddedBroker(std::unique_ptr<Running> running);
  std::unique_ptr<Running> running_;
};

}  // namespace spillway::testing
