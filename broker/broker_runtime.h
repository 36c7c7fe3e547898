// BrokerRuntime: one whole broker (listeners, cores, topics, offsets,
// groups, security, the cluster membership and /metrics) built from a
// BrokerConfig. spillway-broker (main.cc) runs one as the process's daemon;
// spillway::testing::EmbeddedBroker runs one inside a test process.
//
// The steps, in the daemon's order (so its logs and exit codes stay what
// docs/operations.md describes):
//   configure()  checks the config and builds the TLS contexts; no side
//                effects, no logging (a refusal is a bad config: exit 2);
//   start()      logs the start-up notices, locks the data directory, opens
//                the stores, binds every listener and logs the addresses;
//   run()        serves until stop() (or, for the daemon, SIGINT/SIGTERM),
//                then closes the logs and ends the threads it started.
//
// Process-wide state: only a runtime made with Mode::kDaemon touches it
// (the SIGINT/SIGTERM/SIGHUP handlers, the scrubber's global byte rate and
// the request-latency observer of the /metrics histograms). A kEmbedded
// runtime installs no signal handler and leaves those alone, so several can
// live in one process, one after another or at once. Neither mode sets up
// logging: the broker logs through spdlog's default logger, which the
// caller configures (log::setup in the daemon).
//
// Threading: configure(), start() and run() on one thread; stop() and the
// accessors from any thread once start() succeeded. The object must outlive
// run() and is neither copied nor moved (its parts point at each other).
#pragma once

#include <asio/ip/tcp.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/broker_config.h"
#include "config/group_limits.h"
#include "config/listener_list.h"
#include "security/principal_mapping.h"
#include "security/sasl/sasl_authenticator.h"
#include "security/tls_context.h"
#include "spillway/common/status.h"

namespace spillway::storage {
class BoundedFileSystem;
}  // namespace spillway::storage

namespace spillway::broker {

class CoreSet;
class DataDirLock;
class Dispatcher;
class Metrics;
class MetricsServer;
class NativeHandlers;
class OffsetStore;
class ProducerIds;
class ReplicationHandlers;
class Server;
class TopicRegistry;
struct BrokerContext;
namespace cluster {
class ClusterNode;
class ClusterOffsets;
}  // namespace cluster
namespace groups {
class GroupCoordinator;
}  // namespace groups
namespace kafka_listener {
class KafkaHandlers;
struct KafkaContext;
}  // namespace kafka_listener
namespace security {
class AclManager;
class CredentialStore;
}  // namespace security

class BrokerRuntime {
 public:
  enum class Mode {
    kDaemon,    // the process is the broker: signals and process-wide settings
    kEmbedded,  // a guest in someone else's process: touches neither
  };

  // Why start() failed. `error`'s message is what the daemon logs as
  // critical; `bad_config` is true when the settings themselves were
  // refused (the cluster's), which the daemon reports with exit status 2.
  struct StartFailure {
    Status error;
    bool bad_config = false;
  };

  // Checks `config` (listeners, memory budget, SASL, TLS files, /metrics
  // exposure, group limits). Error (kConfig) with the message the daemon
  // prints after "spillway-broker: ".
  static Result<std::unique_ptr<BrokerRuntime>> configure(BrokerConfig config, Mode mode);

  // Frees everything; the data directory is unlocked, not removed.
  // Precondition: run() has returned or was never called.
  ~BrokerRuntime();
  BrokerRuntime(const BrokerRuntime&) = delete;
  BrokerRuntime& operator=(const BrokerRuntime&) = delete;

  // Everything short of serving: on success every listener is bound and
  // its address known (native_endpoint(), kafka_endpoint()). Call once.
  std::optional<StartFailure> start();

  // Serves on one thread per core until stop() (or a signal in kDaemon),
  // waits for in-flight requests up to [broker] shutdown_timeout_ms, then
  // closes the logs and ends the sync threads. Returns once every thread
  // the runtime started has ended. Precondition: start() succeeded. Call
  // once.
  void run();

  // Begins the graceful stop; run() returns when it is done. Thread-safe,
  // idempotent, returns at once. Precondition: start() succeeded.
  void stop();

  const BrokerConfig& config() const { return config_; }
  // The native PLAINTEXT listener ([broker] listen) as bound.
  asio::ip::tcp::endpoint native_endpoint() const;
  // The first Kafka listener as bound; none when [kafka] listen and
  // [kafka] listeners are both empty.
  std::optional<asio::ip::tcp::endpoint> kafka_endpoint() const;

  // The topics and the cores that own them (valid after start()).
  TopicRegistry& topics() { return *topics_; }
  CoreSet& cores() { return *cores_; }

 private:
  BrokerRuntime(BrokerConfig config, Mode mode);
  Status check_config();
  void log_start_notices() const;
  std::optional<StartFailure> open_stores();
  Status start_cluster();
  Status open_metrics_endpoint();
  void advertise_kafka_listeners();

  // Declared in the order main() used to build them, so they are destroyed
  // in the reverse order, as before.
  const BrokerConfig config_;
  const Mode mode_;
  uint64_t memory_budget_ = 0;
  std::vector<PlannedListener> listeners_;
  std::unique_ptr<security::SaslSettings> sasl_;
  std::unique_ptr<security::PrincipalMapper> principal_mapper_;
  std::unique_ptr<security::TlsContextSource> kafka_tls_;
  std::unique_ptr<security::TlsContextSource> native_tls_;
  std::unique_ptr<security::TlsContextSource> metrics_tls_;
  groups::GroupLimits limits_;

  std::unique_ptr<DataDirLock> data_dir_;
  std::unique_ptr<Dispatcher> native_dispatcher_;
  std::unique_ptr<Dispatcher> kafka_dispatcher_;
  // Set once each exists; the server's stop hooks read them on the cores.
  TopicRegistry* registry_ = nullptr;
  MetricsServer* metrics_server_ = nullptr;
  groups::GroupCoordinator* coordinator_ = nullptr;
  cluster::ClusterNode* cluster_node_ptr_ = nullptr;
  // The partition logs' files (and replicas'); outlives everything that
  // holds one of them.
  std::unique_ptr<storage::BoundedFileSystem> log_files_;
  std::unique_ptr<CoreSet> cores_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<TopicRegistry> topics_;
  std::unique_ptr<OffsetStore> offsets_;
  std::unique_ptr<Metrics> metrics_;
  std::unique_ptr<ProducerIds> producer_ids_;
  std::unique_ptr<groups::GroupCoordinator> group_coordinator_;
  std::unique_ptr<security::AclManager> acls_;
  std::unique_ptr<security::CredentialStore> credentials_;
  std::unique_ptr<security::SaslAuthenticator> authenticator_;
  std::unique_ptr<BrokerContext> context_;
  std::unique_ptr<NativeHandlers> native_handlers_;
  std::unique_ptr<ReplicationHandlers> replication_handlers_;
  std::unique_ptr<kafka_listener::KafkaContext> kafka_context_;
  std::unique_ptr<kafka_listener::KafkaHandlers> kafka_handlers_;
  std::unique_ptr<cluster::ClusterNode> cluster_node_;
  std::unique_ptr<cluster::ClusterOffsets> cluster_offsets_;
  std::unique_ptr<MetricsServer> metrics_endpoint_;
  bool started_ = false;
};

}  // namespace spillway::broker
