// The network front of the broker: one thread per core of the CoreSet
// (runtime/core_set.h), an acceptor that hands each new connection to the
// next core in turn, and the orderly shutdown on SIGINT/SIGTERM.
#pragma once

#include <asio/ip/tcp.hpp>
#include <asio/signal_set.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "../config/broker_config.h"
#include "../config/listen_address.h"
#include "../protocol/dispatcher.h"
#include "../protocol/memory_budget.h"
#include "../security/principal_mapping.h"
#include "../security/security_protocol.h"
#include "../security/tls_context.h"
#include "connection_limits.h"
#include "runtime/core_set.h"
#include "spillway/common/log.h"
#include "spillway/common/status.h"

namespace spillway::broker {

struct SessionHost;
struct MovedConnection;
struct SessionListener;

// One listening socket and the protocol its connections speak.
struct ListenerOptions {
  std::string name;  // for the log: "native", "kafka"
  HostPort address;
  // The handlers of its protocol (Dispatcher::protocol()); must outlive the
  // server.
  const Dispatcher* dispatcher = nullptr;
  security::SecurityProtocol security = security::SecurityProtocol::kPlaintext;
  // TLS listeners: the context source and principal mapping (both must
  // outlive the server) and the handshake's time limit.
  const security::TlsContextSource* tls = nullptr;
  const security::PrincipalMapper* principal_mapper = nullptr;
  std::chrono::milliseconds handshake_timeout{10'000};
};

// The server's settings. main() fills them from the BrokerConfig; the
// defaults are the broker's (config/broker_config.h), except those that
// bound nothing unless set: no per-address limit, no memory budget, no idle
// timeout (what the in-process tests use).
struct ServerOptions {
  std::vector<ListenerOptions> listeners;  // at least one
  uint32_t max_frame_bytes = defaults::kMaxFrameBytes;
  size_t max_connections = defaults::kMaxConnections;
  size_t max_connections_per_address = SIZE_MAX;
  size_t queue_depth = defaults::kMaxInFlightPerConnection;  // requests in flight per connection
  // Bytes of requests and responses in flight (protocol/memory_budget.h):
  // for the whole broker, and each connection's share.
  uint64_t memory_budget_bytes = UINT64_MAX / 2;
  uint64_t connection_memory_bytes = UINT64_MAX / 2;
  std::chrono::milliseconds idle_timeout{0};  // 0 = never close idle connections
  std::chrono::milliseconds shutdown_timeout{defaults::kShutdownTimeoutMs};
  bool handle_signals = true;  // SIGINT/SIGTERM call stop()
  // With handle_signals: SIGHUP calls it on core 0's thread (the TLS
  // certificate reload); unset = SIGHUP is not caught.
  std::function<void()> on_reload = nullptr;
  // Called on each core's thread when the stop begins, before the core's
  // periodic tasks are cancelled (CoreSet::stop_core), so work the broker put
  // on the cores (long polls, other acceptors) can end and let run() return.
  std::function<void(size_t core)> on_core_stop = nullptr;
  // With handle_signals: the first SIGINT/SIGTERM calls it (core 0's thread)
  // instead of stopping at once; the stop begins when it calls `proceed`
  // (any thread) or at a second signal. A cluster member moves the
  // leadership of its partitions away here (controlled shutdown).
  std::function<void(std::function<void()> proceed)> before_stop = nullptr;
};

class Server {
 public:
  // Serves on every core of `cores`, which must outlive the server, each
  // listener with its own dispatcher (fully registered).
  Server(CoreSet& cores, ServerOptions options);
  // Destroys what a cut shutdown left queued on the cores
  // (CoreSet::discard_queued_work): the cores cannot run afterwards.
  ~Server();

  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens on every listener (so the bound ports are known
  // before run()), and from then on catches SIGINT/SIGTERM if
  // handle_signals. Error: kIoError naming the listener, the address and
  // the reason.
  Status open();

  // Listener `index`'s bound address; valid after open() succeeded.
  asio::ip::tcp::endpoint local_endpoint(size_t index = 0) const;

  // Runs every core on a thread of its own (CoreSet::run) and serves until
  // stop() (or a signal), then waits for every connection to answer the
  // requests it has read, up to shutdown_timeout, after which the remaining
  // connections are cut (CoreSet::halt). Returns once every thread has ended.
  // Precondition: open() succeeded. Call once.
  void run();

  // Connections open right now (all cores).
  size_t open_connections() const { return limits_.open(); }
  // The broker-wide budget for requests and responses in flight.
  const MemoryBudget& memory_budget() const { return memory_; }
  // Connections not read because they have max_in_flight_per_connection
  // requests unanswered.
  int64_t paused_at_max_in_flight() const {
    return paused_at_max_in_flight_.load(std::memory_order_relaxed);
  }
  // Connections moved to the core of the partitions they use, since start
  // (docs/architecture.md, "Connections move to their partitions' core").
  uint64_t connections_moved() const { return connections_moved_.load(std::memory_order_relaxed); }

  // Starts the graceful stop: no new connections, no new requests read;
  // on each core on_core_stop; once the sessions of every core have ended,
  // CoreSet::stop_core on each.
  // Thread-safe, idempotent, returns at once.
  void stop();

 private:
  // A listening socket, on core 0.
  struct Acceptor {
    std::unique_ptr<asio::ip::tcp::acceptor> socket;
    std::unique_ptr<SessionListener> listener;  // what its sessions take from it
  };
  void accept_next(size_t listener);
  void wait_for_signal();
  void admit(asio::ip::tcp::socket socket, size_t listener, size_t target);
  // max_connections is reached: finds the connection idle longest on any
  // core, closes it and gives its place to the new one; refuses the new
  // one if no connection is idle.
  struct Eviction;
  void evict_idle_for(std::shared_ptr<Eviction> eviction);
  void refuse_at_limit(const asio::ip::address& address);
  // Refusals are logged at most once a second, from any core.
  bool allow_refusal_log(uint64_t* held_back);
  void start_session(asio::ip::tcp::socket socket, asio::ip::address address, size_t listener,
                     size_t target);
  // A session's SessionHost::move_session: a new session on `target`'s core
  // takes the connection over. Called on the old core.
  void move_session(SessionHost& target, MovedConnection moved);

  CoreSet& cores_;
  ServerOptions options_;
  ConnectionLimits limits_;
  MemoryBudget memory_;
  std::atomic<int64_t> paused_at_max_in_flight_{0};
  std::atomic<uint64_t> connections_moved_{0};
  // One per core: the sessions of the core, touched only on its thread.
  std::vector<std::unique_ptr<SessionHost>> hosts_;
  std::vector<Acceptor> acceptors_;            // one per listener, on core 0
  std::unique_ptr<asio::signal_set> signals_;  // on core 0
  bool stop_announced_ = false;                // before_stop ran (core 0)
  size_t next_core_ = 0;                       // used on core 0 only
  std::mutex refused_log_mu_;                  // refusals are logged from any core
  log::RateLimit refused_log_;
  std::atomic<bool> stop_requested_{false};
  // Cores whose sessions have all ended since stop(); at cores_.size(),
  // core_drained() lets every core's run() return.
  std::atomic<size_t> cores_drained_{0};
  void core_drained();

  std::mutex mu_;  // guards the two counters below, with cv_
  std::condition_variable cv_;
  bool stopping_ = false;
  size_t threads_done_ = 0;
};

}  // namespace spillway::broker
