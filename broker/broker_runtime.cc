// BrokerRuntime: the broker's start-up, serving and orderly stop, moved out
// of main() unchanged in order and in what it logs (broker_runtime.h).
#include "broker_runtime.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>

#include "cluster/cluster_node.h"
#include "cluster/cluster_offsets.h"
#include "config/memory_budget_size.h"
#include "config/sasl_settings.h"
#include "core/cluster_id.h"
#include "core/offset_store.h"
#include "core/producer_ids.h"
#include "core/scrub_budget.h"
#include "core/topic_registry.h"
#include "data_dir.h"
#include "groups/group_coordinator.h"
#include "handlers/broker_context.h"
#include "handlers/native_handlers.h"
#include "handlers/replication_handlers.h"
#include "kafka/kafka_handlers.h"
#include "metrics/group_metrics.h"
#include "metrics/metrics.h"
#include "metrics/metrics_server.h"
#include "net/server.h"
#include "protocol/dispatcher.h"
#include "protocol/exchange.h"
#include "runtime/core_set.h"
#include "security/acl/acl_manager.h"
#include "security/sasl/credential_store.h"
#include "spillway/storage/bounded_file_system.h"

namespace spillway::broker {

namespace {

// What the native ApiVersions answer and the "listening on" line name.
constexpr const char* kBrokerVersion = "spillway-broker " SPILLWAY_VERSION;

std::string format_endpoint(const asio::ip::tcp::endpoint& endpoint) {
  const auto address = endpoint.address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  return host + ":" + std::to_string(endpoint.port());
}

Status config_error(std::string message) {
  return Status(ErrorCode::kConfig, std::move(message));
}

}  // namespace

BrokerRuntime::BrokerRuntime(BrokerConfig config, Mode mode)
    : config_(std::move(config)), mode_(mode) {}

BrokerRuntime::~BrokerRuntime() {
  // The latency observer points at metrics_, which dies with this object.
  if (mode_ == Mode::kDaemon && metrics_) Exchange::set_finish_observer(nullptr, nullptr);
}

Result<std::unique_ptr<BrokerRuntime>> BrokerRuntime::configure(BrokerConfig config, Mode mode) {
  std::unique_ptr<BrokerRuntime> runtime(new BrokerRuntime(std::move(config), mode));
  if (Status st = runtime->check_config(); !st.ok()) return st;
  return runtime;
}

Status BrokerRuntime::check_config() {
  const BrokerConfig& config = config_;
  Result<uint64_t> memory_budget = resolve_memory_budget(config);
  if (!memory_budget.ok()) return config_error(std::string(memory_budget.status().message()));
  memory_budget_ = *memory_budget;
  Result<std::vector<PlannedListener>> listeners = plan_listeners(config);
  if (!listeners.ok()) return config_error(std::string(listeners.status().message()));
  listeners_ = std::move(*listeners);
  Result<security::SaslSettings> sasl = sasl_settings(config);
  if (!sasl.ok()) return config_error(std::string(sasl.status().message()));
  sasl_ = std::make_unique<security::SaslSettings>(std::move(*sasl));
  // TLS: one context per listener kind with a TLS listener, checked here
  // (certificate, key, CA files) so a bad one is a config error.
  Result<security::PrincipalMapper> principal_mapper =
      security::PrincipalMapper::parse(config.tls_principal_mapping_rules);
  if (!principal_mapper.ok()) return config_error(std::string(principal_mapper.status().message()));
  principal_mapper_ = std::make_unique<security::PrincipalMapper>(std::move(*principal_mapper));
  for (const PlannedListener& planned : listeners_) {
    if (!security::uses_tls(planned.spec.security)) continue;
    std::unique_ptr<security::TlsContextSource>& source = planned.kafka ? kafka_tls_ : native_tls_;
    if (source) continue;
    security::TlsSettings settings =
        security::tls_settings(config, planned.kafka ? "kafka" : "native");
    auto context = security::build_server_context(settings);
    if (!context.ok()) {
      return config_error("listener " + planned.name + ": " +
                          std::string(context.status().message()));
    }
    source = std::make_unique<security::TlsContextSource>(std::move(settings),
                                                          std::move(context).value());
  }
  // /metrics: HTTPS when [tls] metrics_cert_file is set; on a non-loopback
  // address only with mutual TLS, unless [metrics] allow_unauthenticated.
  if (!config.metrics_listen.empty()) {
    const security::TlsSettings settings = security::tls_settings(config, "metrics");
    if (!config.tls_metrics_cert_file.empty()) {
      auto context = security::build_server_context(settings);
      if (!context.ok()) {
        return config_error("metrics endpoint: " + std::string(context.status().message()));
      }
      metrics_tls_ =
          std::make_unique<security::TlsContextSource>(settings, std::move(context).value());
    }
    asio::error_code ec;
    const auto host = asio::ip::make_address(parse_host_port(config.metrics_listen)->host, ec);
    const bool mutual = metrics_tls_ && settings.client_auth == security::ClientAuth::kRequired;
    if ((ec || !host.is_loopback()) && !mutual && !config.metrics_allow_unauthenticated) {
      return config_error(
          "[metrics] listen \"" + config.metrics_listen +
          "\" is not a loopback address and /metrics has no mutual TLS ([tls] "
          "metrics_cert_file, metrics_client_ca_file, metrics_client_auth = \"required\"); set "
          "[metrics] allow_unauthenticated = true to serve it to anyone who can reach it");
    }
  }
  Result<groups::GroupLimits> limits = group_limits(config);
  if (!limits.ok()) return config_error(std::string(limits.status().message()));
  limits_ = *limits;
  return Status::Ok();
}

void BrokerRuntime::log_start_notices() const {
  if (std::find(sasl_->mechanisms.begin(), sasl_->mechanisms.end(),
                security::SaslMechanism::kPlain) != sasl_->mechanisms.end()) {
    for (const PlannedListener& planned : listeners_) {
      if (planned.spec.security == security::SecurityProtocol::kSaslPlaintext) {
        spdlog::warn(
            "listener {}: SASL PLAIN over SASL_PLAINTEXT sends passwords in clear text; enable "
            "PLAIN only on SASL_SSL listeners ([sasl] mechanisms)",
            planned.name);
      }
    }
  }
  // Says what the broker really uses (the client library's gather writes,
  // which probe io_uring, are not on the broker's path yet).
  spdlog::info(
      "I/O: responses are sent with sendmsg (Asio), fetched records of 16 KiB or more on "
      "plaintext connections with sendfile, and log appends written with pwrite; the broker does "
      "not use io_uring (SPILLWAY_DISABLE_IO_URING only affects the client library)");
}

std::optional<BrokerRuntime::StartFailure> BrokerRuntime::start() {
  const BrokerConfig& config = config_;
  log_start_notices();
  Result<DataDirLock> data_dir = DataDirLock::acquire(config.data_dir);
  if (!data_dir.ok()) return StartFailure{data_dir.status()};
  data_dir_ = std::make_unique<DataDirLock>(std::move(*data_dir));

  // One dispatcher per protocol; the handlers are registered below.
  native_dispatcher_ = std::make_unique<Dispatcher>(Protocol::kNative);
  kafka_dispatcher_ = std::make_unique<Dispatcher>(Protocol::kKafka);

  // The cores: each an io_context with a sync thread and periodic tasks;
  // the server runs them, the topics and offsets live on them.
  cores_ = std::make_unique<CoreSet>(config.threads > 0
                                         ? static_cast<size_t>(config.threads)
                                         : std::max(1u, std::thread::hardware_concurrency()));
  ServerOptions options;
  for (const PlannedListener& planned : listeners_) {
    options.listeners.push_back(
        {.name = planned.name,
         .address = planned.spec.address,
         .dispatcher = planned.kafka ? kafka_dispatcher_.get() : native_dispatcher_.get(),
         .security = planned.spec.security,
         .tls = planned.kafka ? kafka_tls_.get() : native_tls_.get(),
         .principal_mapper = principal_mapper_.get(),
         .handshake_timeout = std::chrono::milliseconds(config.tls_handshake_timeout_ms)});
  }
  options.handle_signals = mode_ == Mode::kDaemon;
  if (options.handle_signals && (kafka_tls_ || native_tls_ || metrics_tls_)) {
    // SIGHUP: new connections get contexts built from the files as they are
    // now; established ones keep theirs. A failed reload keeps the old one.
    options.on_reload = [this] {
      for (security::TlsContextSource* source :
           {kafka_tls_.get(), native_tls_.get(), metrics_tls_.get()}) {
        if (source == nullptr) continue;
        if (Status st = source->reload(); !st.ok()) {
          spdlog::error("TLS reload failed, keeping the previous {} certificate: {}",
                        source->settings().kind, st.message());
        } else {
          spdlog::info("TLS reload: new {} connections use {}", source->settings().kind,
                       source->settings().cert_file);
        }
      }
    };
  }
  options.max_frame_bytes = static_cast<uint32_t>(config.max_frame_bytes);
  options.max_connections = static_cast<size_t>(config.max_connections);
  options.max_connections_per_address = static_cast<size_t>(config.max_connections_per_ip);
  options.memory_budget_bytes = memory_budget_;
  options.connection_memory_bytes = static_cast<uint64_t>(config.connection_memory_bytes);
  options.queue_depth = static_cast<size_t>(config.max_in_flight_per_connection);
  options.idle_timeout = std::chrono::milliseconds(config.idle_timeout_ms);
  options.shutdown_timeout = std::chrono::milliseconds(config.shutdown_timeout_ms);
  // A cluster member first moves its leaderships away (controlled
  // shutdown) when asked to stop; set once the member runs.
  const bool clustered = !config.cluster_etcd_endpoints.empty();
  options.on_core_stop = [this](size_t core) {
    // The follower links live on core 0: closed while it still runs.
    if (core == 0 && cluster_node_ptr_) cluster_node_ptr_->stop_fetching();
    if (registry_) registry_->stop_core(core);
    if (coordinator_) coordinator_->stop_core(core);
    if (core == 0 && metrics_server_) metrics_server_->close();
  };
  if (clustered) {
    options.before_stop = [this](std::function<void()> proceed) {
      if (cluster_node_ptr_ != nullptr) {
        cluster_node_ptr_->prepare_stop(std::move(proceed));
      } else {
        proceed();
      }
    };
  }
  server_ = std::make_unique<Server>(*cores_, options);

  if (std::optional<StartFailure> failed = open_stores()) return failed;

  if (Status st = server_->open(); !st.ok()) return StartFailure{std::move(st)};
  advertise_kafka_listeners();
  if (clustered) {
    if (Status st = start_cluster(); !st.ok()) {
      const bool bad_config = st.code() == ErrorCode::kConfig;
      return StartFailure{Status(st.code(), "cluster: " + std::string(st.message())), bad_config};
    }
  }
  if (!config.metrics_listen.empty()) {
    if (Status st = open_metrics_endpoint(); !st.ok()) return StartFailure{std::move(st)};
  }
  // Tests and scripts parse "listening on HOST:PORT" from this line.
  spdlog::info("{} listening on {} (data_dir \"{}\", config \"{}\", {} thread(s))", kBrokerVersion,
               format_endpoint(server_->local_endpoint(0)), config.data_dir,
               config.config_file.empty() ? "(none, defaults and flags)" : config.config_file,
               cores_->size());
  spdlog::info("memory budget for requests in flight: {} MiB in all, {} MiB per connection{}",
               memory_budget_ >> 20, config.connection_memory_bytes >> 20,
               config.memory_budget_bytes == 0 ? " (a quarter of the usable memory)" : "");
  started_ = true;
  return std::nullopt;
}

std::optional<BrokerRuntime::StartFailure> BrokerRuntime::open_stores() {
  const BrokerConfig& config = config_;
  if (mode_ == Mode::kDaemon) {
    ScrubBudget::global().set_rate(static_cast<uint64_t>(config.scrub_bytes_per_second));
  }
  // Partition logs hold two files per segment: bounded, so thousands of
  // partitions cannot run the process out of descriptors. A daemon first
  // raises its soft open-file limit to the hard one; an embedded broker
  // leaves its host's limit alone.
  storage::FileSystem& fs = storage::posix_file_system();
  const uint64_t nofile = mode_ == Mode::kDaemon ? storage::raise_open_file_limit()
                                                 : storage::current_open_file_limit();
  const std::size_t max_open_log_files =
      config.max_open_log_files > 0 ? static_cast<std::size_t>(config.max_open_log_files)
                                    : storage::default_max_open_log_files(
                                          nofile, static_cast<uint64_t>(config.max_connections));
  log_files_ = std::make_unique<storage::BoundedFileSystem>(fs, max_open_log_files);
  spdlog::info("log files: at most {} open at once (open-file limit {}{})", max_open_log_files,
               nofile, config.max_open_log_files > 0 ? ", [limits] max_open_log_files" : "");
  topics_ = std::make_unique<TopicRegistry>(config, *cores_, *log_files_);
  if (Status st = topics_->start(); !st.ok()) return StartFailure{std::move(st)};
  registry_ = topics_.get();
  offsets_ = std::make_unique<OffsetStore>(*cores_, fs, config.data_dir);
  if (Status st = offsets_->load(); !st.ok()) return StartFailure{std::move(st)};
  metrics_ = std::make_unique<Metrics>();
  metrics_->set_log_files(log_files_.get());
  if (mode_ == Mode::kDaemon) {
    // One observer per process: an embedded broker leaves the host's alone.
    Exchange::set_finish_observer(
        [](void* ctx, bool kafka, int16_t api, std::chrono::nanoseconds latency) {
          static_cast<Metrics*>(ctx)->record_request(
              kafka ? Metrics::Protocol::kKafka : Metrics::Protocol::kNative, api, latency);
        },
        metrics_.get());
  }
  Result<std::unique_ptr<ProducerIds>> producer_ids =
      ProducerIds::open(fs, config.data_dir, config.node_id);
  if (!producer_ids.ok()) return StartFailure{producer_ids.status()};
  producer_ids_ = std::move(*producer_ids);
  // Consumer groups live on the cores (each group on its owner core); the
  // stored ones are loaded here, before the cores run.
  Result<std::unique_ptr<groups::GroupCoordinator>> group_coordinator =
      groups::GroupCoordinator::open(*cores_, *offsets_, config.data_dir, limits_);
  if (!group_coordinator.ok()) return StartFailure{group_coordinator.status()};
  group_coordinator_ = std::move(*group_coordinator);
  coordinator_ = group_coordinator_.get();
  // ACLs: loaded only with authorization on (a damaged file stops the
  // broker here, see security/acl/acl_store.h).
  if (config.authorization_enabled) {
    Result<std::vector<std::string>> super_users =
        security::parse_super_users(config.authorization_super_users);
    if (!super_users.ok()) return StartFailure{super_users.status()};
    const size_t super_user_count = super_users->size();
    Result<std::unique_ptr<security::AclManager>> opened =
        security::AclManager::open(fs, config.data_dir, std::move(*super_users), cores_.get());
    if (!opened.ok()) {
      return StartFailure{
          Status(opened.status().code(),
                 "cannot load the ACLs: " + std::string(opened.status().message()))};
    }
    acls_ = std::move(*opened);
    spdlog::info("authorization on: {} ACL(s), {} super-user(s)",
                 acls_->matching(security::AclFilter{}).size(), super_user_count);
  }
  // SCRAM credentials, loaded whether or not a listener uses SASL (so that
  // `spillway user` works before one does).
  credentials_ = std::make_unique<security::CredentialStore>(fs, config.data_dir);
  if (Status st = credentials_->load(); !st.ok()) return StartFailure{std::move(st)};
  authenticator_ = std::make_unique<security::SaslAuthenticator>(*credentials_, std::move(*sasl_));
  context_ = std::make_unique<BrokerContext>(BrokerContext{
      *topics_, *offsets_, config, metrics_.get(), producer_ids_.get(), coordinator_});
  context_->sasl = authenticator_.get();
  if (acls_ != nullptr) {
    context_->authorizer = &acls_->authorizer();
    context_->acls = acls_.get();
  }
  native_handlers_ =
      std::make_unique<NativeHandlers>(*native_dispatcher_, *context_, kBrokerVersion);
  // ReplicaFetch, LeaderEpochEnd, DescribeCluster (native keys 26-28).
  replication_handlers_ = std::make_unique<ReplicationHandlers>(*native_dispatcher_, *context_);
  Result<std::string> cluster_id = load_or_create_cluster_id(fs, config.data_dir);
  if (!cluster_id.ok()) return StartFailure{cluster_id.status()};
  const bool clustered = !config.cluster_etcd_endpoints.empty();
  kafka_context_ = std::make_unique<kafka_listener::KafkaContext>(kafka_listener::KafkaContext{
      .broker = *context_,
      .node_id = static_cast<int32_t>(config.node_id),
      .advertised = {},
      // One id for every member of a cluster.
      .cluster_id = clustered ? "spillway-" + config.cluster_name : *cluster_id});
  kafka_handlers_ =
      std::make_unique<kafka_listener::KafkaHandlers>(*kafka_dispatcher_, *kafka_context_);
  return std::nullopt;
}

void BrokerRuntime::advertise_kafka_listeners() {
  kafka_context_->advertised.resize(listeners_.size());
  for (size_t i = 0; i < listeners_.size(); ++i) {
    const PlannedListener& planned = listeners_[i];
    const asio::ip::tcp::endpoint bound = server_->local_endpoint(i);
    if (!planned.kafka) {
      // Tests and scripts parse "native SSL on HOST:PORT" from these lines.
      if (i > 0) spdlog::info("{} on {}", planned.name, format_endpoint(bound));
      continue;
    }
    // Clients are told the advertised address, by default the bound one.
    const HostPort advertised = planned.advertised
                                    ? *planned.advertised
                                    : HostPort{bound.address().to_string(), bound.port()};
    kafka_context_->advertised[i] = {advertised.host, advertised.port};
    if (!planned.advertised && bound.address().is_unspecified()) {
      spdlog::warn(
          "the {} listener is bound to {} and no advertised address is set for it ([kafka] "
          "advertised_listener or advertised_listeners): clients will be told to connect to {}, "
          "which they cannot; set it to the address clients use",
          planned.name, format_endpoint(bound), advertised.host);
    }
    // Tests and scripts parse "kafka on HOST:PORT" (the first Kafka
    // listener) and "kafka SASL_SSL on HOST:PORT" from these lines.
    spdlog::info("{} on {} (advertised {}:{}, node id {}, cluster id {})", planned.name,
                 format_endpoint(bound), advertised.host, advertised.port, config_.node_id,
                 kafka_context_->cluster_id);
  }
}

Status BrokerRuntime::start_cluster() {
  const BrokerConfig& config = config_;
  // What other brokers and clients are told: the advertised addresses,
  // by default the bound ones.
  cluster::ClusterNode::Addresses addresses;
  addresses.native = config.cluster_advertised_native.empty()
                         ? format_endpoint(server_->local_endpoint(0))
                         : config.cluster_advertised_native;
  for (size_t i = 0; i < listeners_.size(); ++i) {
    if (listeners_[i].kafka && kafka_context_->advertised[i].port != 0) {
      addresses.kafka = kafka_context_->advertised[i].host + ":" +
                        std::to_string(kafka_context_->advertised[i].port);
      break;
    }
  }
  cluster_node_ = std::make_unique<cluster::ClusterNode>(config, *topics_, *log_files_, *cores_);
  if (Status st = cluster_node_->start(addresses); !st.ok()) return st;
  context_->cluster = &cluster_node_->member();
  context_->cluster_admin = cluster_node_.get();
  context_->replication_throttle = &cluster_node_->replication_throttle();
  metrics_->set_replication_throttle(&cluster_node_->replication_throttle());
  cluster_offsets_ = std::make_unique<cluster::ClusterOffsets>(*cluster_node_, *offsets_);
  context_->cluster_offsets = cluster_offsets_.get();
  context_->broker_id = static_cast<BrokerId>(config.node_id);
  cluster_node_ptr_ = cluster_node_.get();
  // Tests and scripts parse "cluster NAME member N" from this line.
  spdlog::info("cluster {} member {} (etcd {}, native {}, kafka {})", config.cluster_name,
               config.node_id, config.cluster_etcd_endpoints, addresses.native,
               addresses.kafka.empty() ? "off" : addresses.kafka);
  return Status::Ok();
}

Status BrokerRuntime::open_metrics_endpoint() {
  metrics_endpoint_ =
      std::make_unique<MetricsServer>(cores_->context(0), [this](MetricsServer::Reply reply) {
        const MemoryBudget& budget = server_->memory_budget();
        std::string page = metrics_->render(
            *topics_, NetworkGauges{
                          .connections = server_->open_connections(),
                          .memory_budget_bytes = budget.limit(),
                          .memory_in_use_bytes = budget.used(),
                          .connections_waiting_for_budget = budget.waiting(),
                          .connections_over_share = budget.over_share(),
                          .connections_at_max_in_flight = server_->paused_at_max_in_flight(),
                          .connections_moved = server_->connections_moved(),
                      });
        collect_group_metrics(context_->groups, *offsets_, *cores_,
                              [topics = topics_.get(), page = std::move(page),
                               reply = std::move(reply)](GroupMetricsInput input) mutable {
                                render_group_metrics(page, input, *topics);
                                reply(std::move(page));
                              });
      });
  if (metrics_tls_) metrics_endpoint_->use_tls(metrics_tls_.get());
  if (Status st = metrics_endpoint_->open(*parse_host_port(config_.metrics_listen)); !st.ok()) {
    return st;
  }
  metrics_server_ = metrics_endpoint_.get();
  // Tests parse "metrics on HOST:PORT" from this line.
  spdlog::info("metrics on {} (GET /metrics{})",
               format_endpoint(metrics_endpoint_->local_endpoint()), metrics_tls_ ? ", HTTPS" : "");
  return Status::Ok();
}

void BrokerRuntime::run() {
  server_->run();
  if (cluster_node_) cluster_node_->stop();  // the lease goes: the others elect new leaders
  topics_->close_all();
  cores_->stop_sync_threads();  // after the fdatasyncs the closes left queued
  spdlog::info("stopped cleanly");
}

void BrokerRuntime::stop() {
  server_->stop();
}

asio::ip::tcp::endpoint BrokerRuntime::native_endpoint() const {
  return server_->local_endpoint(0);
}

std::optional<asio::ip::tcp::endpoint> BrokerRuntime::kafka_endpoint() const {
  for (size_t i = 0; i < listeners_.size(); ++i) {
    if (listeners_[i].kafka) return server_->local_endpoint(i);
  }
  return std::nullopt;
}

}  // namespace spillway::broker
