// The table of every broker setting, and typed, range-checked setters.
#include "config_keys.h"

#include <array>
#include <charconv>

#include "listen_address.h"
#include "listener_list.h"
#include "security/acl/acl_authorizer.h"
#include "spillway/common/log.h"

namespace spillway::broker {

namespace {

constexpr std::array<std::string_view, 2> kFlushPolicies = {"interval", "durable"};
constexpr std::array<std::string_view, 3> kTlsClientAuth = {"none", "requested", "required"};
constexpr std::array<std::string_view, 2> kTlsVersions = {"1.2", "1.3"};
constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;
constexpr int64_t kGiB = 1024 * kMiB;
constexpr int64_t kDayMs = 24 * 3600 * int64_t{1000};

using C = BrokerConfig;
using K = ConfigKind;

const std::array kKeys = {
    ConfigKey{"broker",
              "listen",
              "listen",
              K::kHostPort,
              &C::listen,
              0,
              0,
              {},
              "",
              "address the native protocol listens on; port 0 picks a free port"},
    ConfigKey{"broker",
              "listeners",
              "listeners",
              K::kListenerList,
              &C::listeners,
              0,
              0,
              {},
              "",
              "further native listeners, SECURITY://IP:PORT separated by commas (SECURITY: "
              "PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL); empty = none"},
    ConfigKey{"broker",
              "node_id",
              "node-id",
              K::kInteger,
              &C::node_id,
              0,
              8'388'607,
              {},
              "",
              "this broker's id: Kafka clients see it in Metadata; unique in a cluster ([cluster]); "
              "at most 2^23 - 1, as producer ids carry it in their top bits"},
    ConfigKey{"broker",
              "data_dir",
              "data-dir",
              K::kString,
              &C::data_dir,
              0,
              0,
              {},
              "",
              "directory holding topics and logs; created if missing"},
    ConfigKey{"broker",
              "threads",
              "threads",
              K::kInteger,
              &C::threads,
              0,
              1024,
              {},
              "threads",
              "network/IO threads, one io_context each; 0 = one per core"},
    ConfigKey{"broker",
              "shutdown_timeout_ms",
              "shutdown-timeout-ms",
              K::kInteger,
              &C::shutdown_timeout_ms,
              0,
              3'600'000,
              {},
              "milliseconds",
              "on SIGINT/SIGTERM, how long in-flight requests may take before connections are "
              "cut"},
    ConfigKey{"log",
              "level",
              "log-level",
              K::kLogLevel,
              &C::log_level,
              0,
              0,
              {},
              "",
              "log level: trace, debug, info, warn, error, critical or off"},
    ConfigKey{"limits",
              "max_frame_bytes",
              "max-frame-bytes",
              K::kInteger,
              &C::max_frame_bytes,
              1 * kKiB,
              1 * kGiB,
              {},
              "bytes",
              "largest request frame accepted (the length field); larger ones are refused "
              "before any buffer is sized"},
    ConfigKey{"limits",
              "max_batch_bytes",
              "max-batch-bytes",
              K::kInteger,
              &C::max_batch_bytes,
              1 * kKiB,
              1 * kGiB,
              {},
              "bytes",
              "largest record batch a produce may carry"},
    ConfigKey{"limits",
              "max_connections",
              "max-connections",
              K::kInteger,
              &C::max_connections,
              1,
              1'000'000,
              {},
              "connections",
              "open client connections; at the limit the longest idle connection is closed to "
              "make room, and a new one is refused if none is idle"},
    ConfigKey{"limits",
              "max_in_flight_per_connection",
              "max-in-flight-per-connection",
              K::kInteger,
              &C::max_in_flight_per_connection,
              1,
              4096,
              {},
              "requests",
              "responses queued per connection before the broker stops reading from it"},
    ConfigKey{"limits",
              "max_connections_per_ip",
              "max-connections-per-ip",
              K::kInteger,
              &C::max_connections_per_ip,
              1,
              1'000'000,
              {},
              "connections",
              "open connections from one client address; new ones beyond this are closed"},
    ConfigKey{"limits",
              "max_open_log_files",
              "max-open-log-files",
              K::kInteger,
              &C::max_open_log_files,
              0,
              1'000'000,
              {},
              "files",
              "partition log and index files held open at once; the least recently used are "
              "closed and reopened on their next use. 0: the open-file limit (raised to its hard "
              "limit at start) less max_connections and 256"},
    ConfigKey{"limits",
              "memory_budget_bytes",
              "memory-budget-bytes",
              K::kInteger,
              &C::memory_budget_bytes,
              0,
              INT64_MAX,
              {},
              "bytes",
              "request and response bytes in flight, whole broker; 0 = a quarter of the "
              "machine's (or container's) memory"},
    ConfigKey{"limits",
              "connection_memory_bytes",
              "connection-memory-bytes",
              K::kInteger,
              &C::connection_memory_bytes,
              64 * kKiB,
              INT64_MAX,
              {},
              "bytes",
              "request and response bytes in flight per connection; a connection holding this "
              "much in unsent responses is not read until it reads them"},
    ConfigKey{"limits",
              "idle_timeout_ms",
              "idle-timeout-ms",
              K::kInteger,
              &C::idle_timeout_ms,
              0,
              7 * kDayMs,
              {},
              "milliseconds",
              "close a connection that sends nothing for this long; 0 = never"},
    ConfigKey{"topics",
              "auto_create",
              "auto-create-topics",
              K::kBool,
              &C::auto_create_topics,
              0,
              0,
              {},
              "",
              "create a topic on its first produce"},
    ConfigKey{"topics",
              "default_partitions",
              "default-partitions",
              K::kInteger,
              &C::default_partitions,
              1,
              65'536,
              {},
              "partitions",
              "partitions of a topic created without a count"},
    ConfigKey{"topics", "flush_policy", "flush-policy", K::kChoice, &C::flush_policy, 0, 0,
              kFlushPolicies, "",
              "durable = fsync before acknowledging; interval = fsync every flush_interval_ms"},
    ConfigKey{"topics",
              "flush_interval_ms",
              "flush-interval-ms",
              K::kInteger,
              &C::flush_interval_ms,
              1,
              3'600'000,
              {},
              "milliseconds",
              "fsync period of the interval flush policy"},
    ConfigKey{"topics",
              "segment_bytes",
              "segment-bytes",
              K::kInteger,
              &C::segment_bytes,
              1 * kMiB,
              64 * kGiB,
              {},
              "bytes",
              "a partition's log rolls to a new segment file"},
    ConfigKey{"topics",
              "retention_bytes",
              "retention-bytes",
              K::kInteger,
              &C::retention_bytes,
              -1,
              INT64_MAX,
              {},
              "bytes",
              "per partition, delete the oldest segments beyond this size; -1 = no limit"},
    ConfigKey{"topics",
              "retention_ms",
              "retention-ms",
              K::kInteger,
              &C::retention_ms,
              -1,
              INT64_MAX,
              {},
              "milliseconds",
              "delete segments whose newest record is older than this; -1 = no limit"},
    ConfigKey{"topics",
              "retention_check_interval_ms",
              "retention-check-interval-ms",
              K::kInteger,
              &C::retention_check_interval_ms,
              10,
              3'600'000,
              {},
              "milliseconds",
              "how often each core applies retention_bytes and retention_ms to its partitions"},
    ConfigKey{"topics",
              "producer_id_expiration_ms",
              "producer-id-expiration-ms",
              K::kInteger,
              &C::producer_id_expiration_ms,
              1'000,
              INT64_MAX / 2,
              {},
              "milliseconds",
              "a partition forgets an idempotent producer that has not produced to it for this "
              "long (Kafka's producer.id.expiration.ms)"},
    ConfigKey{"integrity",
              "verify_reads",
              "verify-reads",
              K::kBool,
              &C::verify_reads,
              0,
              0,
              {},
              "",
              "check the CRC of every batch read from disk into a fetch response; a mismatch "
              "stops that partition (corrupt) instead of serving it"},
    ConfigKey{"integrity",
              "scrub_bytes_per_second",
              "scrub-bytes-per-second",
              K::kInteger,
              &C::scrub_bytes_per_second,
              0,
              64 * kGiB,
              {},
              "bytes per second",
              "re-read the sealed segments of every partition in a loop at this rate (all "
              "partitions together), checking each batch's CRC; 0 = off"},
    ConfigKey{"kafka",
              "listen",
              "kafka-listen",
              K::kHostPortOrEmpty,
              &C::kafka_listen,
              0,
              0,
              {},
              "",
              "address the Kafka protocol listens on; port 0 picks a free port; empty = off"},
    ConfigKey{"kafka",
              "advertised_listener",
              "kafka-advertised-listener",
              K::kAdvertised,
              &C::kafka_advertised_listener,
              0,
              0,
              {},
              "",
              "HOST:PORT Kafka clients are told to connect to; empty = the bound listen address"},
    ConfigKey{"kafka",
              "listeners",
              "kafka-listeners",
              K::kListenerList,
              &C::kafka_listeners,
              0,
              0,
              {},
              "",
              "further Kafka listeners, SECURITY://IP:PORT separated by commas (SECURITY: "
              "PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL); empty = none"},
    ConfigKey{"kafka",
              "advertised_listeners",
              "kafka-advertised-listeners",
              K::kAdvertisedList,
              &C::kafka_advertised_listeners,
              0,
              0,
              {},
              "",
              "SECURITY://HOST:PORT clients are told for each of [kafka] listeners, in the same "
              "order; empty = their bound addresses"},
    ConfigKey{"groups",
              "min_session_timeout_ms",
              "group-min-session-timeout-ms",
              K::kInteger,
              &C::group_min_session_timeout_ms,
              1,
              86'400'000,
              {},
              "milliseconds",
              "the shortest session timeout a member may ask for in JoinGroup (Kafka's "
              "group.min.session.timeout.ms); shorter: INVALID_SESSION_TIMEOUT"},
    ConfigKey{"groups",
              "max_session_timeout_ms",
              "group-max-session-timeout-ms",
              K::kInteger,
              &C::group_max_session_timeout_ms,
              1,
              86'400'000,
              {},
              "milliseconds",
              "the longest session timeout a member may ask for (Kafka's "
              "group.max.session.timeout.ms); longer: INVALID_SESSION_TIMEOUT"},
    ConfigKey{"groups",
              "initial_rebalance_delay_ms",
              "group-initial-rebalance-delay-ms",
              K::kInteger,
              &C::group_initial_rebalance_delay_ms,
              0,
              3'600'000,
              {},
              "milliseconds",
              "the first rebalance of an empty group waits this long for more members (Kafka's "
              "group.initial.rebalance.delay.ms)"},
    ConfigKey{"groups",
              "max_group_size",
              "group-max-size",
              K::kInteger,
              &C::group_max_size,
              1,
              1'000'000,
              {},
              "members",
              "members per group (Kafka's group.max.size); one more join: GROUP_MAX_SIZE_REACHED"},
    ConfigKey{"groups",
              "max_groups",
              "group-max-groups",
              K::kInteger,
              &C::group_max_groups,
              1,
              10'000'000,
              {},
              "groups",
              "groups with members (or member ids handed out), broker-wide; a join that would "
              "make one more: GROUP_MAX_SIZE_REACHED"},
    ConfigKey{"groups",
              "max_protocols",
              "group-max-protocols",
              K::kInteger,
              &C::group_max_protocols,
              1,
              4'096,
              {},
              "protocols",
              "assignors one JoinGroup may offer; more: INVALID_REQUEST"},
    ConfigKey{"groups",
              "max_metadata_bytes",
              "group-max-metadata-bytes",
              K::kInteger,
              &C::group_max_metadata_bytes,
              0,
              64 * kMiB,
              {},
              "bytes",
              "one member's subscription metadata for one assignor; larger: INVALID_REQUEST"},
    ConfigKey{"groups",
              "max_assignment_bytes",
              "group-max-assignment-bytes",
              K::kInteger,
              &C::group_max_assignment_bytes,
              0,
              64 * kMiB,
              {},
              "bytes",
              "one member's assignment sent by the leader in SyncGroup; larger: INVALID_REQUEST"},
    ConfigKey{"metrics",
              "listen",
              "metrics-listen",
              K::kHostPortOrEmpty,
              &C::metrics_listen,
              0,
              0,
              {},
              "",
              "address of the Prometheus /metrics endpoint; empty = off"},
    ConfigKey{"sasl",
              "mechanisms",
              "sasl-mechanisms",
              K::kString,
              &C::sasl_mechanisms,
              0,
              0,
              {},
              "",
              "SASL mechanisms SASL listeners offer, separated by commas: PLAIN, SCRAM-SHA-256, "
              "SCRAM-SHA-512"},
    ConfigKey{"sasl",
              "max_failed_authentications",
              "sasl-max-failed-authentications",
              K::kInteger,
              &C::sasl_max_failed_authentications,
              1,
              1'000'000,
              {},
              "failures per minute",
              "failed authentications one client address may make per minute; past that its "
              "attempts are refused until the minute is over"},
    ConfigKey{"sasl",
              "max_token_bytes",
              "sasl-max-token-bytes",
              K::kInteger,
              &C::sasl_max_token_bytes,
              256,
              1 << 20,
              {},
              "bytes",
              "largest SASL token a client may send; larger: authentication fails"},
    // [tls] (security/tls_context.h, docs/security-tls.md)
    ConfigKey{"tls",
              "kafka_cert_file",
              "tls-kafka-cert-file",
              K::kStringOrEmpty,
              &C::tls_kafka_cert_file,
              0,
              0,
              {},
              "",
              "PEM certificate chain of the Kafka TLS listeners (SSL, SASL_SSL); empty = none"},
    ConfigKey{"tls",
              "kafka_key_file",
              "tls-kafka-key-file",
              K::kStringOrEmpty,
              &C::tls_kafka_key_file,
              0,
              0,
              {},
              "",
              "PEM private key (unencrypted) of kafka_cert_file"},
    ConfigKey{"tls",
              "kafka_client_ca_file",
              "tls-kafka-client-ca-file",
              K::kStringOrEmpty,
              &C::tls_kafka_client_ca_file,
              0,
              0,
              {},
              "",
              "PEM CA(s) client certificates of the Kafka TLS listeners (SSL, SASL_SSL) must chain "
              "to (mutual TLS)"},
    ConfigKey{"tls", "kafka_client_auth", "tls-kafka-client-auth", K::kChoice,
              &C::tls_kafka_client_auth, 0, 0, kTlsClientAuth, "",
              "client certificate: none, requested (verified if sent) or required"},
    ConfigKey{"tls",
              "native_cert_file",
              "tls-native-cert-file",
              K::kStringOrEmpty,
              &C::tls_native_cert_file,
              0,
              0,
              {},
              "",
              "PEM certificate chain of the native TLS listeners; empty = none"},
    ConfigKey{"tls",
              "native_key_file",
              "tls-native-key-file",
              K::kStringOrEmpty,
              &C::tls_native_key_file,
              0,
              0,
              {},
              "",
              "PEM private key (unencrypted) of native_cert_file"},
    ConfigKey{
        "tls",
        "native_client_ca_file",
        "tls-native-client-ca-file",
        K::kStringOrEmpty,
        &C::tls_native_client_ca_file,
        0,
        0,
        {},
        "",
        "PEM CA(s) client certificates of the native TLS listeners must chain to (mutual TLS)"},
    ConfigKey{"tls", "native_client_auth", "tls-native-client-auth", K::kChoice,
              &C::tls_native_client_auth, 0, 0, kTlsClientAuth, "",
              "client certificate: none, requested (verified if sent) or required"},
    ConfigKey{"tls",
              "metrics_cert_file",
              "tls-metrics-cert-file",
              K::kStringOrEmpty,
              &C::tls_metrics_cert_file,
              0,
              0,
              {},
              "",
              "PEM certificate chain of the /metrics over HTTPS; empty = none"},
    ConfigKey{"tls",
              "metrics_key_file",
              "tls-metrics-key-file",
              K::kStringOrEmpty,
              &C::tls_metrics_key_file,
              0,
              0,
              {},
              "",
              "PEM private key (unencrypted) of metrics_cert_file"},
    ConfigKey{
        "tls",
        "metrics_client_ca_file",
        "tls-metrics-client-ca-file",
        K::kStringOrEmpty,
        &C::tls_metrics_client_ca_file,
        0,
        0,
        {},
        "",
        "PEM CA(s) client certificates of the /metrics over HTTPS must chain to (mutual TLS)"},
    ConfigKey{"tls", "metrics_client_auth", "tls-metrics-client-auth", K::kChoice,
              &C::tls_metrics_client_auth, 0, 0, kTlsClientAuth, "",
              "client certificate: none, requested (verified if sent) or required"},
    ConfigKey{"tls", "min_version", "tls-min-version", K::kChoice, &C::tls_min_version, 0, 0,
              kTlsVersions, "", "lowest TLS version accepted"},
    ConfigKey{"tls",
              "ciphers",
              "tls-ciphers",
              K::kString,
              &C::tls_ciphers,
              0,
              0,
              {},
              "",
              "OpenSSL cipher list for TLS 1.2 (TLS 1.3 suites are OpenSSL's defaults)"},
    ConfigKey{"tls",
              "principal_mapping_rules",
              "tls-principal-mapping-rules",
              K::kString,
              &C::tls_principal_mapping_rules,
              0,
              0,
              {},
              "",
              "client certificate subject to principal: RULE:pattern/replacement/[L|U] and "
              "DEFAULT, comma separated (Kafka's ssl.principal.mapping.rules)"},
    ConfigKey{"tls",
              "handshake_timeout_ms",
              "tls-handshake-timeout-ms",
              K::kInteger,
              &C::tls_handshake_timeout_ms,
              100,
              600'000,
              {},
              "milliseconds",
              "a TLS handshake not finished within it closes the connection"},
    ConfigKey{"metrics",
              "allow_unauthenticated",
              "metrics-allow-unauthenticated",
              K::kBool,
              &C::metrics_allow_unauthenticated,
              0,
              0,
              {},
              "",
              "serve /metrics on a non-loopback address without mutual TLS"},
    // [authorization] (security/acl/; docs/security-acls.md)
    ConfigKey{"authorization",
              "enabled",
              "authorization-enabled",
              K::kBool,
              &C::authorization_enabled,
              0,
              0,
              {},
              "",
              "check every request against the ACLs (deny unless a rule allows); false = "
              "everything is allowed and the ACL APIs answer SECURITY_DISABLED"},
    ConfigKey{"authorization",
              "super_users",
              "authorization-super-users",
              K::kPrincipalList,
              &C::authorization_super_users,
              0,
              0,
              {},
              "",
              "principals allowed everything whatever the ACLs say, e.g. \"User:admin;User:ops\""},    // [cluster] (broker/cluster/; docs/replication.md)
    ConfigKey{"cluster",
              "etcd_endpoints",
              "cluster-etcd-endpoints",
              K::kStringOrEmpty,
              &C::cluster_etcd_endpoints,
              0,
              0,
              {},
              "",
              "etcd v3 endpoints, comma-separated (http://HOST:PORT); empty = a single broker without a cluster"},
    ConfigKey{"cluster",
              "name",
              "cluster-name",
              K::kString,
              &C::cluster_name,
              0,
              0,
              {},
              "",
              "the cluster's name: its keys live under /spillway/NAME/ in etcd"},
    ConfigKey{"cluster",
              "rack",
              "cluster-rack",
              K::kStringOrEmpty,
              &C::cluster_rack,
              0,
              0,
              {},
              "",
              "this broker's rack; replicas of a partition go to different racks where possible"},
    ConfigKey{"cluster",
              "advertised_native",
              "cluster-advertised-native",
              K::kAdvertised,
              &C::cluster_advertised_native,
              0,
              0,
              {},
              "",
              "HOST:PORT of the native listener as other brokers and clients reach it; empty = the bound address"},
    ConfigKey{"cluster",
              "lease_ttl_ms",
              "cluster-lease-ttl-ms",
              K::kInteger,
              &C::cluster_lease_ttl_ms,
              2000,
              300'000,
              {},
              "milliseconds",
              "the etcd lease that marks this broker alive; a broker that cannot renew it stops leading"},
    ConfigKey{"cluster",
              "replica_lag_time_max_ms",
              "cluster-replica-lag-time-max-ms",
              K::kInteger,
              &C::cluster_replica_lag_time_max_ms,
              100,
              3'600'000,
              {},
              "milliseconds",
              "a follower not caught up for this long leaves the ISR"},
    ConfigKey{"cluster",
              "default_replication_factor",
              "cluster-default-replication-factor",
              K::kInteger,
              &C::cluster_default_replication_factor,
              1,
              16,
              {},
              "replicas",
              "replicas of a topic created without a replication factor"},
    ConfigKey{"cluster",
              "min_insync_replicas",
              "cluster-min-insync-replicas",
              K::kInteger,
              &C::cluster_min_insync_replicas,
              1,
              16,
              {},
              "replicas",
              "acks=all is refused (NOT_ENOUGH_REPLICAS) while the ISR is smaller"},
    ConfigKey{"cluster",
              "unclean_leader_election",
              "cluster-unclean-leader-election",
              K::kBool,
              &C::cluster_unclean_leader_election,
              0,
              0,
              {},
              "",
              "elect a replica outside the ISR when no ISR member lives: availability over acknowledged data (loses it)"},
    ConfigKey{"cluster",
              "replica_fetch_max_wait_ms",
              "cluster-replica-fetch-max-wait-ms",
              K::kInteger,
              &C::cluster_replica_fetch_max_wait_ms,
              1,
              60'000,
              {},
              "milliseconds",
              "how long a follower's fetch waits at the leader for new data"},
    ConfigKey{"cluster",
              "controlled_shutdown_timeout_ms",
              "cluster-controlled-shutdown-timeout-ms",
              K::kInteger,
              &C::cluster_controlled_shutdown_timeout_ms,
              0,
              600'000,
              {},
              "milliseconds",
              "SIGTERM waits this long for leadership to move away before the broker exits"},
};

Status mismatch(const ConfigKey& key, std::string_view got) {
  return Status(ErrorCode::kConfig, std::string(key.section) + "." + std::string(key.name) +
                                        ": expected " + describe_expected(key) + ", got " +
                                        std::string(got));
}

}  // namespace

std::span<const ConfigKey> config_keys() noexcept {
  return kKeys;
}

const ConfigKey* find_config_key(std::string_view section, std::string_view name) noexcept {
  for (const ConfigKey& key : kKeys) {
    if (key.section == section && key.name == name) return &key;
  }
  return nullptr;
}

std::string describe_expected(const ConfigKey& key) {
  std::string out;
  switch (key.kind) {
    case K::kInteger:
      out = "an integer in [" + std::to_string(key.min) + ", " +
            (key.max == INT64_MAX ? std::string("2^63-1") : std::to_string(key.max)) + "]";
      if (!key.unit.empty()) out += " (" + std::string(key.unit) + ")";
      return out;
    case K::kBool:
      return "true or false";
    case K::kString:
      return "a non-empty string";
    case K::kChoice:
      out = "one of";
      for (size_t i = 0; i < key.choices.size(); ++i) {
        out += (i == 0 ? " \"" : ", \"") + std::string(key.choices[i]) + "\"";
      }
      return out;
    case K::kHostPort:
      return "a string IP:PORT such as \"127.0.0.1:9092\" or \"[::1]:9092\"";
    case K::kHostPortOrEmpty:
      return "a string IP:PORT such as \"127.0.0.1:9644\", or \"\" for off";
    case K::kAdvertised:
      return "a string HOST:PORT such as \"kafka.example.com:9092\", or \"\" for the default";
    case K::kLogLevel:
      return "one of \"trace\", \"debug\", \"info\", \"warn\", \"error\", \"critical\", \"off\"";
    case K::kListenerList:
      return "a string of SECURITY://IP:PORT entries separated by commas, such as "
             "\"SASL_SSL://0.0.0.0:9094\", or \"\" for none";
    case K::kAdvertisedList:
      return "a string of SECURITY://HOST:PORT entries separated by commas, such as "
             "\"SASL_SSL://kafka.example.com:9094\", or \"\" for the bound addresses";
    case K::kStringOrEmpty:
      return "a string (a file path), or \"\" for none";
    case K::kPrincipalList:
      return "a string of principals Type:name separated by ';', such as "
             "\"User:admin;User:ops\", or \"\" for none";
  }
  return out;
}

std::string format_value(const ConfigKey& key, const BrokerConfig& config) {
  if (auto* f = std::get_if<int64_t BrokerConfig::*>(&key.field)) {
    return std::to_string(config.*(*f));
  }
  if (auto* f = std::get_if<bool BrokerConfig::*>(&key.field)) {
    return config.*(*f) ? "true" : "false";
  }
  return "\"" + config.*std::get<std::string BrokerConfig::*>(key.field) + "\"";
}

Status set_integer(const ConfigKey& key, int64_t value, BrokerConfig& config) {
  auto* f = std::get_if<int64_t BrokerConfig::*>(&key.field);
  if (f == nullptr) return mismatch(key, "an integer");
  if (value < key.min || value > key.max) return mismatch(key, std::to_string(value));
  config.*(*f) = value;
  return Status::Ok();
}

Status set_bool(const ConfigKey& key, bool value, BrokerConfig& config) {
  auto* f = std::get_if<bool BrokerConfig::*>(&key.field);
  if (f == nullptr) return mismatch(key, "a boolean");
  config.*(*f) = value;
  return Status::Ok();
}

Status set_string(const ConfigKey& key, std::string_view value, BrokerConfig& config) {
  auto* f = std::get_if<std::string BrokerConfig::*>(&key.field);
  if (f == nullptr) return mismatch(key, "a string");
  const std::string quoted = "\"" + std::string(value) + "\"";
  switch (key.kind) {
    case K::kChoice: {
      bool found = false;
      for (std::string_view choice : key.choices) found = found || choice == value;
      if (!found) return mismatch(key, quoted);
      break;
    }
    case K::kHostPortOrEmpty:
      if (value.empty()) break;
      [[fallthrough]];
    case K::kHostPort:
      if (!parse_host_port(value).ok()) return mismatch(key, quoted);
      break;
    case K::kAdvertised:
      if (!value.empty() && !parse_advertised_address(value).ok()) return mismatch(key, quoted);
      break;
    case K::kLogLevel:
      if (!log::validate_level(value).ok()) return mismatch(key, quoted);
      break;
    case K::kListenerList:
      if (!parse_listener_list(value).ok()) return mismatch(key, quoted);
      break;
    case K::kAdvertisedList:
      if (!parse_advertised_list(value).ok()) return mismatch(key, quoted);
      break;
    case K::kPrincipalList:
      if (!security::parse_super_users(value).ok()) return mismatch(key, quoted);
      break;
    case K::kString:
      if (value.empty()) return mismatch(key, "an empty string");
      break;
    default:
      break;
  }
  config.*(*f) = std::string(value);
  return Status::Ok();
}

Status set_from_text(const ConfigKey& key, std::string_view text, BrokerConfig& config) {
  if (std::holds_alternative<int64_t BrokerConfig::*>(key.field)) {
    int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
      return mismatch(key, "\"" + std::string(text) + "\"");
    }
    return set_integer(key, value, config);
  }
  if (std::holds_alternative<bool BrokerConfig::*>(key.field)) {
    if (text == "true") return set_bool(key, true, config);
    if (text == "false") return set_bool(key, false, config);
    return mismatch(key, "\"" + std::string(text) + "\"");
  }
  return set_string(key, text, config);
}

}  // namespace spillway::broker
