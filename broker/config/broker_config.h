// The broker's settings after the config file and the command line have been
// applied. Every field is described, with unit, default and range, in
// config_keys.cc (the one table the file parser, the command line and --help
// share) and in config/broker.toml.
#pragma once

#include <cstdint>
#include <string>

namespace spillway::broker {

// Defaults that other settings structs start from too (ServerOptions), so
// each lives in one place. config/broker.toml shows them, and a test holds
// the file to these values.
namespace defaults {
inline constexpr int64_t kShutdownTimeoutMs = 10'000;
inline constexpr int64_t kMaxFrameBytes = 8 << 20;
inline constexpr int64_t kMaxConnections = 10'000;
inline constexpr int64_t kMaxInFlightPerConnection = 64;
}  // namespace defaults

struct BrokerConfig {
  // [broker]
  std::string listen = "127.0.0.1:9093";  // the native protocol
  std::string listeners;                  // more native listeners (config/listener_list.h)
  int64_t node_id = 0;
  std::string data_dir = "./data";
  int64_t threads = 0;  // 0 = one per core
  int64_t shutdown_timeout_ms = defaults::kShutdownTimeoutMs;
  // [log]
  std::string log_level = "info";
  // [limits]
  int64_t max_frame_bytes = defaults::kMaxFrameBytes;
  int64_t max_batch_bytes = 1 << 20;
  int64_t max_connections = defaults::kMaxConnections;
  int64_t max_in_flight_per_connection = defaults::kMaxInFlightPerConnection;
  int64_t max_connections_per_ip = 1'000;
  int64_t memory_budget_bytes = 0;  // 0 = sized from the machine (memory_budget_for)
  int64_t connection_memory_bytes = 16 << 20;
  int64_t max_open_log_files = 0;  // 0 = what RLIMIT_NOFILE leaves after max_connections
  int64_t idle_timeout_ms = 600'000;
  // [topics]
  bool auto_create_topics = false;
  int64_t default_partitions = 1;
  std::string flush_policy = "interval";
  int64_t flush_interval_ms = 1'000;
  int64_t segment_bytes = int64_t{1} << 30;
  int64_t retention_bytes = -1;
  int64_t retention_ms = 7 * 24 * 3600 * int64_t{1000};
  int64_t retention_check_interval_ms = 5'000;
  int64_t producer_id_expiration_ms = 86'400'000;  // Kafka's producer.id.expiration.ms
  // [integrity]
  bool verify_reads = false;
  int64_t scrub_bytes_per_second = 0;  // 0 = no scrubber
  // [kafka]
  std::string kafka_listen = "127.0.0.1:9092";  // empty = no Kafka listener
  std::string kafka_advertised_listener;        // empty = the bound listen address
  std::string kafka_listeners;                  // more Kafka listeners (config/listener_list.h)
  std::string kafka_advertised_listeners;       // one per kafka_listeners entry; empty = bound
  // [groups] (groups::GroupLimits; config/group_limits.h)
  int64_t group_min_session_timeout_ms = 6'000;
  int64_t group_max_session_timeout_ms = 300'000;
  int64_t group_initial_rebalance_delay_ms = 3'000;
  int64_t group_max_size = 1'000;
  int64_t group_max_groups = 10'000;
  int64_t group_max_protocols = 64;
  int64_t group_max_metadata_bytes = int64_t{1} << 20;
  int64_t group_max_assignment_bytes = int64_t{1} << 20;
  // [metrics]
  std::string metrics_listen;  // empty = no metrics endpoint
  // [sasl] (security/sasl/sasl_authenticator.h)
  std::string sasl_mechanisms = "SCRAM-SHA-256,SCRAM-SHA-512";
  int64_t sasl_max_failed_authentications = 10;
  int64_t sasl_max_token_bytes = 8192;
  // [tls] (security/tls_context.h): per listener kind the PEM certificate
  // chain, its key, the CA client certificates must come from (mutual TLS)
  // and whether a client certificate is none|requested|required.
  std::string tls_kafka_cert_file;
  std::string tls_kafka_key_file;
  std::string tls_kafka_client_ca_file;
  std::string tls_kafka_client_auth = "none";
  std::string tls_native_cert_file;
  std::string tls_native_key_file;
  std::string tls_native_client_ca_file;
  std::string tls_native_client_auth = "none";
  std::string tls_metrics_cert_file;  // set: /metrics is served over HTTPS
  std::string tls_metrics_key_file;
  std::string tls_metrics_client_ca_file;
  std::string tls_metrics_client_auth = "none";
  std::string tls_min_version = "1.2";
  std::string tls_ciphers =
      "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
      "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
  std::string tls_principal_mapping_rules = "DEFAULT";
  int64_t tls_handshake_timeout_ms = 10'000;
  // [metrics] allow_unauthenticated: /metrics on a non-loopback address
  // without mutual TLS is refused at start unless set.
  bool metrics_allow_unauthenticated = false;
  // [authorization] (security/acl/)
  bool authorization_enabled = false;
  std::string authorization_super_users;  // "User:admin;User:ops"
  // [cluster] (broker/cluster/, docs/replication.md). Empty etcd_endpoints:
  // one broker on its own, as before; set: a member of a replicated cluster
  // whose broker id is [broker] node_id.
  std::string cluster_etcd_endpoints;  // "http://127.0.0.1:2379,http://..."
  std::string cluster_name = "spillway";
  std::string cluster_rack;
  std::string cluster_advertised_native;   // host:port clients and peers reach; empty = bound
  int64_t cluster_lease_ttl_ms = 6'000;    // liveness hint; no safety property depends on it
  int64_t cluster_replica_lag_time_max_ms = 10'000;
  int64_t cluster_default_replication_factor = 1;
  int64_t cluster_min_insync_replicas = 1;
  bool cluster_unclean_leader_election = false;
  int64_t cluster_replica_fetch_max_wait_ms = 500;
  int64_t cluster_controlled_shutdown_timeout_ms = 30'000;

  // Not a key: the file the settings came from, empty when none (for the log).
  std::string config_file;
};

}  // namespace spillway::broker
