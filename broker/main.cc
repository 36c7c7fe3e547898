// spillway-broker: the daemon. Reads the config (file, then flags), sets up
// logging, locks the data directory, listens, and serves until SIGINT/SIGTERM.
// `spillway-broker repair ...` is the offline repair of a corrupt partition
// instead (repair/repair_command.h).
//
// Exit status: 0 after a clean stop, 2 for a bad command line or config
// (nothing was started), 1 when start-up fails (address in use, data dir).
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <thread>

#include "cluster/cluster_node.h"
#include "cluster/cluster_offsets.h"
#include "config/command_line.h"
#include "config/group_limits.h"
#include "config/listener_list.h"
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
#include "repair/repair_command.h"
#include "runtime/core_set.h"
#include "security/acl/acl_manager.h"
#include "security/sasl/credential_store.h"
#include "security/sasl/sasl_authenticator.h"
#include "spillway/common/log.h"

namespace {

constexpr const char* kBrokerVersion = "spillway-broker " SPILLWAY_VERSION;

std::string format_endpoint(const asio::ip::tcp::endpoint& endpoint) {
  const auto address = endpoint.address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  return host + ":" + std::to_string(endpoint.port());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace spillway;
  using namespace spillway::broker;

  if (argc >= 2 && std::string_view(argv[1]) == "repair") return run_repair_command(argc, argv);
  CLI::App app("Spillway message broker", "spillway-broker");
  app.footer(
      "Offline repair of a corrupt partition (broker stopped):\n"
      "  spillway-broker repair --data-dir DIR --topic TOPIC --partition N   (see repair --help)");
  app.set_version_flag("--version", kBrokerVersion);
  ConfigCommandLine command_line(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return ConfigCommandLine::exit_status(app, e);
  }
  Result<BrokerConfig> resolved = command_line.resolve();
  if (!resolved.ok()) {
    std::fprintf(stderr, "spillway-broker: %s\n", std::string(resolved.status().message()).c_str());
    return 2;
  }
  const BrokerConfig& config = *resolved;
  Result<uint64_t> memory_budget = resolve_memory_budget(config);
  if (!memory_budget.ok()) {
    std::fprintf(stderr, "spillway-broker: %s\n",
                 std::string(memory_budget.status().message()).c_str());
    return 2;
  }
  Result<std::vector<PlannedListener>> listeners = plan_listeners(config);
  if (!listeners.ok()) {
    std::fprintf(stderr, "spillway-broker: %s\n",
                 std::string(listeners.status().message()).c_str());
    return 2;
  }
  Result<security::SaslSettings> sasl = sasl_settings(config);
  if (!sasl.ok()) {
    std::fprintf(stderr, "spillway-broker: %s\n", std::string(sasl.status().message()).c_str());
    return 2;
  }
  // TLS: one context per listener kind with a TLS listener, checked here
  // (certificate, key, CA files) so a bad one is a config error.
  Result<security::PrincipalMapper> principal_mapper =
      security::PrincipalMapper::parse(config.tls_principal_mapping_rules);
  if (!principal_mapper.ok()) {
    std::fprintf(stderr, "spillway-broker: %s\n",
                 std::string(principal_mapper.status().message()).c_str());
    return 2;
  }
  std::unique_ptr<security::TlsContextSource> kafka_tls;
  std::unique_ptr<security::TlsContextSource> native_tls;
  for (const PlannedListener& planned : *listeners) {
    if (!security::uses_tls(planned.spec.security)) continue;
    std::unique_ptr<security::TlsContextSource>& source = planned.kafka ? kafka_tls : native_tls;
    if (source) continue;
    security::TlsSettings settings =
        security::tls_settings(config, planned.kafka ? "kafka" : "native");
    auto context = security::build_server_context(settings);
    if (!context.ok()) {
      std::fprintf(stderr, "spillway-broker: listener %s: %s\n", planned.name.c_str(),
                   std::string(context.status().message()).c_str());
      return 2;
    }
    source = std::make_unique<security::TlsContextSource>(std::move(settings),
                                                          std::move(context).value());
  }
  // /metrics: HTTPS when [tls] metrics_cert_file is set; on a non-loopback
  // address only with mutual TLS, unless [metrics] allow_unauthenticated.
  std::unique_ptr<security::TlsContextSource> metrics_tls;
  if (!config.metrics_listen.empty()) {
    const security::TlsSettings settings = security::tls_settings(config, "metrics");
    if (!config.tls_metrics_cert_file.empty()) {
      auto context = security::build_server_context(settings);
      if (!context.ok()) {
        std::fprintf(stderr, "spillway-broker: metrics endpoint: %s\n",
                     std::string(context.status().message()).c_str());
        return 2;
      }
      metrics_tls =
          std::make_unique<security::TlsContextSource>(settings, std::move(context).value());
    }
    asio::error_code ec;
    const auto host = asio::ip::make_address(parse_host_port(config.metrics_listen)->host, ec);
    const bool mutual = metrics_tls && settings.client_auth == security::ClientAuth::kRequired;
    if ((ec || !host.is_loopback()) && !mutual && !config.metrics_allow_unauthenticated) {
      std::fprintf(stderr,
                   "spillway-broker: [metrics] listen \"%s\" is not a loopback address and "
                   "/metrics has no mutual TLS ([tls] metrics_cert_file, metrics_client_ca_file, "
                   "metrics_client_auth = \"required\"); set [metrics] allow_unauthenticated = "
                   "true to serve it to anyone who can reach it\n",
                   config.metrics_listen.c_str());
      return 2;
    }
  }
  Result<groups::GroupLimits> limits = group_limits(config);
  if (!limits.ok()) {
    std::fprintf(stderr, "spillway-broker: %s\n", std::string(limits.status().message()).c_str());
    return 2;
  }
  log::setup(config.log_level);
  if (std::find(sasl->mechanisms.begin(), sasl->mechanisms.end(),
                security::SaslMechanism::kPlain) != sasl->mechanisms.end()) {
    for (const PlannedListener& planned : *listeners) {
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
      "I/O: responses are sent with sendmsg (Asio) and log appends written with pwrite; the "
      "broker does not use io_uring (SPILLWAY_DISABLE_IO_URING only affects the client library)");

  Result<DataDirLock> data_dir = DataDirLock::acquire(config.data_dir);
  if (!data_dir.ok()) {
    spdlog::critical("{}", data_dir.status().message());
    return 1;
  }

  // One dispatcher per protocol; the handlers are registered below.
  Dispatcher native_dispatcher(Protocol::kNative);
  Dispatcher kafka_dispatcher(Protocol::kKafka);

  // Set before the server exists; they run on stop, on each core's thread.
  TopicRegistry* registry = nullptr;
  MetricsServer* metrics_server = nullptr;
  groups::GroupCoordinator* coordinator = nullptr;

  // The cores: each an io_context with a sync thread and periodic tasks;
  // the server runs them, the topics and offsets live on them.
  CoreSet cores(config.threads > 0 ? static_cast<size_t>(config.threads)
                                   : std::max(1u, std::thread::hardware_concurrency()));
  ServerOptions options;
  for (const PlannedListener& planned : *listeners) {
    options.listeners.push_back(
        {.name = planned.name,
         .address = planned.spec.address,
         .dispatcher = planned.kafka ? &kafka_dispatcher : &native_dispatcher,
         .security = planned.spec.security,
         .tls = planned.kafka ? kafka_tls.get() : native_tls.get(),
         .principal_mapper = &*principal_mapper,
         .handshake_timeout = std::chrono::milliseconds(config.tls_handshake_timeout_ms)});
  }
  if (kafka_tls || native_tls || metrics_tls) {
    // SIGHUP: new connections get contexts built from the files as they are
    // now; established ones keep theirs. A failed reload keeps the old one.
    options.on_reload = [&kafka_tls, &native_tls, &metrics_tls] {
      for (security::TlsContextSource* source :
           {kafka_tls.get(), native_tls.get(), metrics_tls.get()}) {
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
  options.memory_budget_bytes = *memory_budget;
  options.connection_memory_bytes = static_cast<uint64_t>(config.connection_memory_bytes);
  options.queue_depth = static_cast<size_t>(config.max_in_flight_per_connection);
  options.idle_timeout = std::chrono::milliseconds(config.idle_timeout_ms);
  options.shutdown_timeout = std::chrono::milliseconds(config.shutdown_timeout_ms);
  // A cluster member first moves its leaderships away (controlled
  // shutdown) when asked to stop; set once the member runs.
  cluster::ClusterNode* cluster_node_ptr = nullptr;
  const bool clustered = !config.cluster_etcd_endpoints.empty();
  options.on_core_stop = [&](size_t core) {
    // The follower links live on core 0: closed while it still runs.
    if (core == 0 && cluster_node_ptr) cluster_node_ptr->stop_fetching();
    if (registry) registry->stop_core(core);
    if (coordinator) coordinator->stop_core(core);
    if (core == 0 && metrics_server) metrics_server->close();
  };
  if (clustered) {
    options.before_stop = [&cluster_node_ptr](std::function<void()> proceed) {
      if (cluster_node_ptr != nullptr) {
        cluster_node_ptr->prepare_stop(std::move(proceed));
      } else {
        proceed();
      }
    };
  }
  Server server(cores, options);

  ScrubBudget::global().set_rate(static_cast<uint64_t>(config.scrub_bytes_per_second));
  storage::FileSystem& fs = storage::posix_file_system();
  TopicRegistry topics(config, cores, fs);
  if (Status st = topics.start(); !st.ok()) {
    spdlog::critical("{}", st.message());
    return 1;
  }
  registry = &topics;
  OffsetStore offsets(cores, fs, config.data_dir);
  if (Status st = offsets.load(); !st.ok()) {
    spdlog::critical("{}", st.message());
    return 1;
  }
  Metrics metrics;
  Exchange::set_finish_observer(
      [](void* ctx, bool kafka, int16_t api, std::chrono::nanoseconds latency) {
        static_cast<Metrics*>(ctx)->record_request(
            kafka ? Metrics::Protocol::kKafka : Metrics::Protocol::kNative, api, latency);
      },
      &metrics);
  Result<std::unique_ptr<ProducerIds>> producer_ids =
      ProducerIds::open(fs, config.data_dir, config.node_id);
  if (!producer_ids.ok()) {
    spdlog::critical("{}", producer_ids.status().message());
    return 1;
  }
  // Consumer groups live on the cores (each group on its owner core); the
  // stored ones are loaded here, before the cores run.
  Result<std::unique_ptr<groups::GroupCoordinator>> group_coordinator =
      groups::GroupCoordinator::open(cores, offsets, config.data_dir, *limits);
  if (!group_coordinator.ok()) {
    spdlog::critical("{}", group_coordinator.status().message());
    return 1;
  }
  coordinator = group_coordinator->get();
  // ACLs: loaded only with authorization on (a damaged file stops the
  // broker here, see security/acl/acl_store.h).
  std::unique_ptr<security::AclManager> acls;
  if (config.authorization_enabled) {
    Result<std::vector<std::string>> super_users =
        security::parse_super_users(config.authorization_super_users);
    if (!super_users.ok()) {
      spdlog::critical("{}", super_users.status().message());
      return 1;
    }
    const size_t super_user_count = super_users->size();
    Result<std::unique_ptr<security::AclManager>> opened =
        security::AclManager::open(fs, config.data_dir, std::move(*super_users), &cores);
    if (!opened.ok()) {
      spdlog::critical("cannot load the ACLs: {}", opened.status().message());
      return 1;
    }
    acls = std::move(*opened);
    spdlog::info("authorization on: {} ACL(s), {} super-user(s)",
                 acls->matching(security::AclFilter{}).size(), super_user_count);
  }
  // SCRAM credentials, loaded whether or not a listener uses SASL (so that
  // `spillway user` works before one does).
  security::CredentialStore credentials(fs, config.data_dir);
  if (Status st = credentials.load(); !st.ok()) {
    spdlog::critical("{}", st.message());
    return 1;
  }
  security::SaslAuthenticator authenticator(credentials, std::move(*sasl));
  BrokerContext context{topics, offsets, config, &metrics, producer_ids->get(), coordinator};
  context.sasl = &authenticator;
  if (acls != nullptr) {
    context.authorizer = &acls->authorizer();
    context.acls = acls.get();
  }
  NativeHandlers native_handlers(native_dispatcher, context, kBrokerVersion);
  // ReplicaFetch, LeaderEpochEnd, DescribeCluster (native keys 26-28).
  ReplicationHandlers replication_handlers(native_dispatcher, context);
  Result<std::string> cluster_id = load_or_create_cluster_id(fs, config.data_dir);
  if (!cluster_id.ok()) {
    spdlog::critical("{}", cluster_id.status().message());
    return 1;
  }
  kafka_listener::KafkaContext kafka_context{
      .broker = context,
      .node_id = static_cast<int32_t>(config.node_id),
      .advertised = {},
      // One id for every member of a cluster.
      .cluster_id = clustered ? "spillway-" + config.cluster_name : *cluster_id};
  kafka_listener::KafkaHandlers kafka_handlers(kafka_dispatcher, kafka_context);

  if (Status st = server.open(); !st.ok()) {
    spdlog::critical("{}", st.message());
    return 1;
  }
  kafka_context.advertised.resize(listeners->size());
  for (size_t i = 0; i < listeners->size(); ++i) {
    const PlannedListener& planned = (*listeners)[i];
    const asio::ip::tcp::endpoint bound = server.local_endpoint(i);
    if (!planned.kafka) {
      // Tests and scripts parse "native SSL on HOST:PORT" from these lines.
      if (i > 0) spdlog::info("{} on {}", planned.name, format_endpoint(bound));
      continue;
    }
    // Clients are told the advertised address, by default the bound one.
    const HostPort advertised = planned.advertised
                                    ? *planned.advertised
                                    : HostPort{bound.address().to_string(), bound.port()};
    kafka_context.advertised[i] = {advertised.host, advertised.port};
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
                 format_endpoint(bound), advertised.host, advertised.port, config.node_id,
                 kafka_context.cluster_id);
  }
  std::unique_ptr<cluster::ClusterNode> cluster_node;
  std::unique_ptr<cluster::ClusterOffsets> cluster_offsets;
  if (clustered) {
    // What other brokers and clients are told: the advertised addresses,
    // by default the bound ones.
    cluster::ClusterNode::Addresses addresses;
    addresses.native = config.cluster_advertised_native.empty()
                           ? format_endpoint(server.local_endpoint(0))
                           : config.cluster_advertised_native;
    for (size_t i = 0; i < listeners->size(); ++i) {
      if ((*listeners)[i].kafka && kafka_context.advertised[i].port != 0) {
        addresses.kafka = kafka_context.advertised[i].host + ":" +
                          std::to_string(kafka_context.advertised[i].port);
        break;
      }
    }
    cluster_node = std::make_unique<cluster::ClusterNode>(config, topics, fs, cores);
    if (Status st = cluster_node->start(addresses); !st.ok()) {
      spdlog::critical("cluster: {}", st.message());
      return st.code() == ErrorCode::kConfig ? 2 : 1;
    }
    context.cluster = &cluster_node->member();
    context.cluster_admin = cluster_node.get();
    context.replication_throttle = &cluster_node->replication_throttle();
    metrics.set_replication_throttle(&cluster_node->replication_throttle());
    cluster_offsets = std::make_unique<cluster::ClusterOffsets>(*cluster_node, offsets);
    context.cluster_offsets = cluster_offsets.get();
    context.broker_id = static_cast<BrokerId>(config.node_id);
    cluster_node_ptr = cluster_node.get();
    // Tests and scripts parse "cluster NAME member N" from this line.
    spdlog::info("cluster {} member {} (etcd {}, native {}, kafka {})", config.cluster_name,
                 config.node_id, config.cluster_etcd_endpoints, addresses.native,
                 addresses.kafka.empty() ? "off" : addresses.kafka);
  }
  std::unique_ptr<MetricsServer> metrics_endpoint;
  if (!config.metrics_listen.empty()) {
    metrics_endpoint =
        std::make_unique<MetricsServer>(cores.context(0), [&](MetricsServer::Reply reply) {
          const MemoryBudget& budget = server.memory_budget();
          std::string page = metrics.render(
              topics, NetworkGauges{
                          .connections = server.open_connections(),
                          .memory_budget_bytes = budget.limit(),
                          .memory_in_use_bytes = budget.used(),
                          .connections_waiting_for_budget = budget.waiting(),
                          .connections_over_share = budget.over_share(),
                          .connections_at_max_in_flight = server.paused_at_max_in_flight(),
                      });
          collect_group_metrics(context.groups, offsets, cores,
                                [&topics, page = std::move(page),
                                 reply = std::move(reply)](GroupMetricsInput input) mutable {
                                  render_group_metrics(page, input, topics);
                                  reply(std::move(page));
                                });
        });
    if (metrics_tls) metrics_endpoint->use_tls(metrics_tls.get());
    if (Status st = metrics_endpoint->open(*parse_host_port(config.metrics_listen)); !st.ok()) {
      spdlog::critical("{}", st.message());
      return 1;
    }
    metrics_server = metrics_endpoint.get();
    // Tests parse "metrics on HOST:PORT" from this line.
    spdlog::info("metrics on {} (GET /metrics{})",
                 format_endpoint(metrics_endpoint->local_endpoint()), metrics_tls ? ", HTTPS" : "");
  }
  // Tests and scripts parse "listening on HOST:PORT" from this line.
  spdlog::info("{} listening on {} (data_dir \"{}\", config \"{}\", {} thread(s))", kBrokerVersion,
               format_endpoint(server.local_endpoint(0)), config.data_dir,
               config.config_file.empty() ? "(none, defaults and flags)" : config.config_file,
               cores.size());
  spdlog::info("memory budget for requests in flight: {} MiB in all, {} MiB per connection{}",
               *memory_budget >> 20, config.connection_memory_bytes >> 20,
               config.memory_budget_bytes == 0 ? " (a quarter of the usable memory)" : "");
  server.run();
  if (cluster_node) cluster_node->stop();  // the lease goes: the others elect new leaders
  topics.close_all();
  cores.stop_sync_threads();  // after the fdatasyncs the closes left queued
  spdlog::info("stopped cleanly");
  return 0;
}
