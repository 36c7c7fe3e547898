// EmbeddedBroker: a BrokerRuntime in kEmbedded mode on a thread of its own,
// over a temporary data directory (embedded_broker.h).
#include "spillway/testing/embedded_broker.h"

#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <asio/post.hpp>
#include <filesystem>
#include <future>
#include <thread>

#include "broker_runtime.h"
#include "core/topic_registry.h"
#include "runtime/core_set.h"
#include "spillway/common/log.h"

namespace spillway::testing {

namespace {

// More cores than this is a mistake in a test, not a wish.
constexpr size_t kMaxCores = 64;

// A fresh directory under $TMPDIR (or /tmp).
Result<std::string> make_data_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/spillway-embedded-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Status(ErrorCode::kIoError, "cannot create a data directory from " + pattern);
  }
  return pattern;
}

broker::BrokerConfig embedded_config(const EmbeddedBrokerOptions& options,
                                     const std::string& data_dir) {
  broker::BrokerConfig config;
  config.listen = "127.0.0.1:0";
  config.kafka_listen = options.kafka_listener ? "127.0.0.1:0" : "";
  config.data_dir = data_dir;
  config.threads = static_cast<int64_t>(options.cores);
  config.auto_create_topics = options.auto_create_topics;
  config.group_initial_rebalance_delay_ms = options.group_initial_rebalance_delay.count();
  config.group_min_session_timeout_ms = options.group_min_session_timeout.count();
  config.metrics_listen.clear();  // /metrics is the daemon's, on a fixed port
  config.log_level = options.log_level.empty() ? "info" : options.log_level;
  return config;
}

}  // namespace

// What lives while the broker runs; destroyed in reverse order: the runtime
// (after its thread has ended), then the directory.
struct EmbeddedBroker::Running {
  std::string data_dir;
  std::unique_ptr<broker::BrokerRuntime> runtime;
  std::thread server_thread;  // runs BrokerRuntime::run()
  uint16_t native_port = 0;
  uint16_t kafka_port = 0;

  ~Running() {
    if (server_thread.joinable()) {
      runtime->stop();
      server_thread.join();
    }
    runtime.reset();  // unlocks the directory before it goes
    std::error_code ignored;
    std::filesystem::remove_all(data_dir, ignored);
  }
};

Result<std::unique_ptr<EmbeddedBroker>> EmbeddedBroker::start(
    const EmbeddedBrokerOptions& options) {
  if (options.cores == 0 || options.cores > kMaxCores) {
    return Status(ErrorCode::kConfig, "EmbeddedBroker: cores must be 1 to " +
                                          std::to_string(kMaxCores) + ", not " +
                                          std::to_string(options.cores));
  }
  if (!options.log_level.empty()) {
    if (Status st = log::validate_level(options.log_level); !st.ok()) return st;
  }
  Result<std::string> data_dir = make_data_dir();
  if (!data_dir.ok()) return data_dir.status();
  auto running = std::make_unique<Running>();
  running->data_dir = std::move(*data_dir);

  Result<std::unique_ptr<broker::BrokerRuntime>> runtime = broker::BrokerRuntime::configure(
      embedded_config(options, running->data_dir), broker::BrokerRuntime::Mode::kEmbedded);
  if (!runtime.ok()) return runtime.status();
  running->runtime = std::move(*runtime);
  // Only the level: the host's sinks and format stay as they are.
  if (!options.log_level.empty()) spdlog::set_level(spdlog::level::from_str(options.log_level));
  if (std::optional<broker::BrokerRuntime::StartFailure> failed = running->runtime->start()) {
    return std::move(failed->error);
  }
  running->native_port = running->runtime->native_endpoint().port();
  if (auto kafka = running->runtime->kafka_endpoint()) running->kafka_port = kafka->port();
  running->server_thread = std::thread([runtime = running->runtime.get()] { runtime->run(); });

  std::unique_ptr<EmbeddedBroker> broker(new EmbeddedBroker(std::move(running)));
  for (const EmbeddedTopic& topic : options.topics) {
    if (Status st = broker->create_topic(topic); !st.ok()) return st;
  }
  return broker;
}

EmbeddedBroker::EmbeddedBroker(std::unique_ptr<Running> running) : running_(std::move(running)) {}

EmbeddedBroker::~EmbeddedBroker() = default;

std::string EmbeddedBroker::native_address() const {
  return "127.0.0.1:" + std::to_string(running_->native_port);
}

uint16_t EmbeddedBroker::native_port() const {
  return running_->native_port;
}

std::string EmbeddedBroker::kafka_address() const {
  if (running_->kafka_port == 0) return "";
  return "127.0.0.1:" + std::to_string(running_->kafka_port);
}

uint16_t EmbeddedBroker::kafka_port() const {
  return running_->kafka_port;
}

const std::string& EmbeddedBroker::data_dir() const {
  return running_->data_dir;
}

Status EmbeddedBroker::create_topic(const EmbeddedTopic& topic) {
  // As the CreateTopics handler does: on a core (core 0 here), answered
  // once every core's table has the topic.
  broker::TopicRegistry& topics = running_->runtime->topics();
  asio::io_context& core0 = running_->runtime->cores().context(0);
  std::promise<Status> created;
  asio::post(core0, [&] {
    broker::CreateTopicSpec spec;
    spec.name = topic.name;
    spec.partitions = topic.partitions;
    Result<std::shared_ptr<broker::Topic>> made =
        topics.create(spec, core0.get_executor(), [&created](Status st) { created.set_value(st); });
    if (!made.ok()) created.set_value(made.status());
  });
  return created.get_future().get();
}

}  // namespace spillway::testing
