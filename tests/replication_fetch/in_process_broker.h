// InProcessBroker: the native listener of a broker in the test process,
// with the real handlers (NativeHandlers, and the replication ones on
// request) behind a real Server on 127.0.0.1:0, its topics in a temporary
// data directory, and a blocking raw-frame client for requests the client
// library does not speak (keys 26-28). Tests reach the broker's
// Partitions directly (partition()) to drive or inspect them.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/offset_store.h"
#include "core/topic_registry.h"
#include "handlers/broker_context.h"
#include "handlers/native_handlers.h"
#include "net/server.h"
#include "protocol/dispatcher.h"
#include "runtime/core_set.h"
#include "socket_io.h"
#include "spillway/common/endian.h"
#include "spillway/common/frame.h"
#include "spillway/common/messages/topics.h"
#include "spillway/common/write_buffer.h"
#include "spillway/storage/file_system.h"

namespace spillway::broker::testing {

// A response: the frame's error code and its body.
struct RawResponse {
  ErrorCode code = ErrorCode::kUnknown;
  std::vector<std::byte> body;
};

// One blocking connection speaking native frames.
class RawClient {
 public:
  explicit RawClient(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval timeout{.tv_sec = 30, .tv_usec = 0};  // a hung broker fails the test
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;
  bool connected() const { return fd_ >= 0; }

  // Sends the body `encode` writes as request `key` v0 and reads the answer.
  template <typename Encode>
  std::optional<RawResponse> call(frame::ApiKey key, Encode&& encode) {
    std::array<std::byte, 256> scratch;
    WriteBuffer body(scratch);
    if (!encode(body).ok()) return std::nullopt;
    std::vector<std::byte> out(frame::kRequestHeaderBytes + body.bytes_written());
    frame::encode_request_header({.api_key = static_cast<int16_t>(key),
                                  .api_version = 0,
                                  .correlation_id = ++correlation_,
                                  .body_bytes = static_cast<uint32_t>(body.bytes_written())},
                                 std::span<std::byte, frame::kRequestHeaderBytes>(
                                     out.data(), frame::kRequestHeaderBytes));
    body.copy_to(std::span<std::byte>(out).subspan(frame::kRequestHeaderBytes));
    size_t sent = 0;
    while (sent < out.size()) {
      const ssize_t n = ::send(fd_, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return std::nullopt;
      sent += static_cast<size_t>(n);
    }
    std::array<std::byte, frame::kResponseHeaderBytes> header;
    if (!spillway::testing::read_exactly(fd_, header.data(), header.size())) return std::nullopt;
    frame::ResponseHeader h;
    if (!frame::decode_response_header(header, 64u << 20, &h).ok()) return std::nullopt;
    RawResponse response;
    response.code = h.error_code;
    response.body.resize(h.body_bytes);
    if (!spillway::testing::read_exactly(fd_, response.body.data(), response.body.size())) {
      return std::nullopt;
    }
    return response;
  }

 private:
  int fd_ = -1;
  int32_t correlation_ = 0;
};

class InProcessBroker {
 public:
  struct Options {
    BrokerId broker_id = 1;
    // Registers more handlers (the replication ones: tests that link the
    // Partition's replication methods); what it returns lives as long as
    // the broker.
    std::function<std::shared_ptr<void>(Dispatcher&, BrokerContext&)> add_handlers;
    cluster::ClusterMember* cluster = nullptr;
    cluster::ClusterAdmin* cluster_admin = nullptr;  // the reassignment handlers'
    const security::Authorizer* authorizer = nullptr;  // null: everything allowed
    size_t cores = 2;
  };

  explicit InProcessBroker(Options options) : options_(options) {
    char dir[] = "/tmp/spillway-replfetch-XXXXXX";
    data_dir_ = ::mkdtemp(dir);
    config_.data_dir = data_dir_;
    config_.node_id = options.broker_id;
    cores_ = std::make_unique<CoreSet>(options.cores);
    topics_ = std::make_unique<TopicRegistry>(config_, *cores_, storage::posix_file_system());
    started_ = topics_->start();
    offsets_ = std::make_unique<OffsetStore>(*cores_, storage::posix_file_system(), data_dir_);
    context_ = std::make_unique<BrokerContext>(BrokerContext{*topics_, *offsets_, config_});
    context_->cluster = options.cluster;
    context_->cluster_admin = options.cluster_admin;
    context_->authorizer = options.authorizer;
    context_->broker_id = options.broker_id;
    native_ = std::make_unique<NativeHandlers>(dispatcher_, *context_, "spillway-broker test");
    if (options.add_handlers) extra_ = options.add_handlers(dispatcher_, *context_);
    ServerOptions server_options;
    server_options.listeners.push_back(
        {.name = "native", .address = HostPort{"127.0.0.1", 0}, .dispatcher = &dispatcher_});
    server_options.handle_signals = false;
    server_options.on_core_stop = [this](size_t core) { topics_->stop_core(core); };
    server_ = std::make_unique<Server>(*cores_, server_options);
    if (started_.ok()) started_ = server_->open();
    if (started_.ok()) {
      port_ = server_->local_endpoint().port();
      runner_ = std::thread([this] { server_->run(); });
    }
  }

  ~InProcessBroker() {
    stop();
    std::error_code ignored;
    std::filesystem::remove_all(data_dir_, ignored);
  }

  // Stops the server (the cores stop with it) and closes the logs.
  void stop() {
    if (stopped_) return;
    stopped_ = true;
    if (runner_.joinable()) {
      server_->stop();
      runner_.join();
    }
    topics_->close_all();
  }

  const Status& started() const { return started_; }
  const std::string& data_dir() const { return data_dir_; }
  uint16_t port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  CoreSet& cores() { return *cores_; }
  TopicRegistry& topics() { return *topics_; }

  // Creates a topic through the native CreateTopics request.
  Status create_topic(const std::string& name, int32_t partitions) {
    RawClient client(port_);
    auto r = client.call(frame::ApiKey::kCreateTopics, [&](WriteBuffer& out) {
      return messages::encode_create_topics_request({.name = name, .partitions = partitions}, out);
    });
    if (!r) return Status(ErrorCode::kNotConnected, "no answer");
    if (r->code != ErrorCode::kOk) return frame::decode_error_body(r->code, r->body);
    return Status::Ok();
  }

  // The partition object (any thread; its methods run on its owner).
  std::shared_ptr<Partition> partition(const std::string& topic, int32_t index) {
    // The registry's tables are per core; core 0's is read on core 0.
    std::promise<std::shared_ptr<Partition>> found;
    asio::post(cores_->context(0), [&] {
      std::shared_ptr<Topic> t0 = topics_->find_shared(topic);
      found.set_value(t0 == nullptr || index < 0 ||
                              static_cast<size_t>(index) >= t0->partitions.size()
                          ? nullptr
                          : t0->partitions[static_cast<size_t>(index)]);
    });
    return found.get_future().get();
  }

 private:
  Options options_;
  std::string data_dir_;
  BrokerConfig config_;
  std::unique_ptr<CoreSet> cores_;
  std::unique_ptr<TopicRegistry> topics_;
  std::unique_ptr<OffsetStore> offsets_;
  std::unique_ptr<BrokerContext> context_;
  Dispatcher dispatcher_;
  std::unique_ptr<NativeHandlers> native_;
  std::shared_ptr<void> extra_;
  std::unique_ptr<Server> server_;
  std::thread runner_;
  Status started_;
  uint16_t port_ = 0;
  bool stopped_ = false;
};

}  // namespace spillway::broker::testing
