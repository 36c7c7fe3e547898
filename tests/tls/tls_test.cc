// TLS listeners end to end: kcat and librdkafka with security.protocol=SSL,
// mutual TLS and the principal from the client certificate, the spillway
// CLI over TLS, garbage and stalled handshakes, SIGHUP certificate reload,
// and the start-up checks of the [tls] settings.
#include <librdkafka/rdkafka.h>
#include <signal.h>

#include <filesystem>

#include "spillway/admin.h"
#include "tls_support.h"

namespace spillway::testing {
namespace {

TEST_F(TlsTest, KcatProducesAndConsumesOverSsl) {
  auto broker = start_broker(pki_.server);
  ASSERT_NE(broker, nullptr);
  ProcessExit created = cli({"topic", "create", "tls-kcat", "--broker", broker->address()});
  ASSERT_EQ(created.exit_code, 0) << created.output;
  const std::string input = write_file("lines", "one\ntwo\nthree\n");
  ProcessExit produced = kcat(*broker, pki_.ca, {"-P", "-t", "tls-kcat", "-l", input});
  ASSERT_EQ(produced.exit_code, 0) << produced.output;
  ProcessExit consumed =
      kcat(*broker, pki_.ca, {"-C", "-t", "tls-kcat", "-o", "beginning", "-e", "-q"});
  ASSERT_EQ(consumed.exit_code, 0) << consumed.output;
  EXPECT_EQ(consumed.output, "one\ntwo\nthree\n");
}

struct RdConfDeleter {
  void operator()(rd_kafka_conf_t* c) const { rd_kafka_conf_destroy(c); }
};
struct RdKafkaDeleter {
  void operator()(rd_kafka_t* k) const { rd_kafka_destroy(k); }
};

rd_kafka_conf_t* ssl_conf(const std::string& bootstrap, const std::string& ca) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  for (auto [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"bootstrap.servers", bootstrap},
                                                        {"security.protocol", "SSL"},
                                                        {"ssl.ca.location", ca},
                                                        {"acks", "all"}}) {
    EXPECT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof(err)), RD_KAFKA_CONF_OK)
        << err;
  }
  return conf;
}

TEST_F(TlsTest, LibrdkafkaProducesAndConsumesOverSsl) {
  auto broker = start_broker(pki_.server);
  ASSERT_NE(broker, nullptr);
  ASSERT_EQ(cli({"topic", "create", "tls-rd", "--broker", broker->address()}).exit_code, 0);
  const std::string bootstrap = "127.0.0.1:" + std::to_string(broker->listener_port("kafka SSL"));
  constexpr int kRecords = 2000;
  char err[512];
  {
    std::unique_ptr<rd_kafka_t, RdKafkaDeleter> producer(
        rd_kafka_new(RD_KAFKA_PRODUCER, ssl_conf(bootstrap, pki_.ca), err, sizeof(err)));
    ASSERT_NE(producer, nullptr) << err;
    std::string value(1024, 'v');
    for (int i = 0; i < kRecords; ++i) {
      value.replace(0, 8, std::to_string(10'000'000 + i).substr(0, 8));
      ASSERT_EQ(rd_kafka_producev(producer.get(), RD_KAFKA_V_TOPIC("tls-rd"),
                                  RD_KAFKA_V_PARTITION(0), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                  RD_KAFKA_V_VALUE(value.data(), value.size()), RD_KAFKA_V_END),
                RD_KAFKA_RESP_ERR_NO_ERROR);
      rd_kafka_poll(producer.get(), 0);
    }
    ASSERT_EQ(rd_kafka_flush(producer.get(), 60'000), RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  rd_kafka_conf_t* conf = ssl_conf(bootstrap, pki_.ca);
  rd_kafka_conf_set(conf, "group.id", "tls-rd-reader", err, sizeof(err));
  std::unique_ptr<rd_kafka_t, RdKafkaDeleter> consumer(
      rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err)));
  ASSERT_NE(consumer, nullptr) << err;
  rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(parts, "tls-rd", 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  ASSERT_EQ(rd_kafka_assign(consumer.get(), parts), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(parts);
  int received = 0;
  const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (received < kRecords && std::chrono::steady_clock::now() < guard) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer.get(), 500);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      EXPECT_EQ(m->offset, received);
      EXPECT_EQ(m->len, 1024u);
      ++received;
    }
    rd_kafka_message_destroy(m);
  }
  EXPECT_EQ(received, kRecords);
  rd_kafka_consumer_close(consumer.get());
}

TEST_F(TlsTest, MutualTlsGivesThePrincipalOfTheClientCertificate) {
  std::vector<std::string> flags = mtls_flags();
  flags.insert(flags.end(),
               {"--tls-principal-mapping-rules", "RULE:^CN=([^,]+),OU=eng,.*$/eng-$1/U, DEFAULT"});
  auto broker = start_broker(pki_.server, flags);
  ASSERT_NE(broker, nullptr);
  ASSERT_EQ(cli({"topic", "create", "mtls", "--broker", broker->address()}).exit_code, 0);
  const std::string input = write_file("mtls-lines", "a\nb\n");
  ProcessExit with_cert =
      kcat(*broker, pki_.ca,
           {"-X", "ssl.certificate.location=" + pki_.client.cert, "-X",
            "ssl.key.location=" + pki_.client.key, "-P", "-t", "mtls", "-l", input});
  EXPECT_EQ(with_cert.exit_code, 0) << with_cert.output;
  EXPECT_TRUE(wait_for_log(*broker,
                           "TLS client certificate \"CN=alice,OU=eng,O=Example\", principal "
                           "User:ENG-ALICE"))
      << broker->log();
  ProcessExit without = kcat(*broker, pki_.ca, {"-m", "2", "-L"});  // fails at once
  EXPECT_NE(without.exit_code, 0) << without.output;
  std::cout << "[failure table] kcat, mTLS required, no client certificate:\n"
            << without.output << "\n";

  // The native listener and the CLI, with and without a certificate.
  ProcessExit cli_with = cli({"topic", "list", "--broker", ssl_native(*broker), "--tls-ca", pki_.ca,
                              "--tls-cert", pki_.client.cert, "--tls-key", pki_.client.key});
  EXPECT_EQ(cli_with.exit_code, 0) << cli_with.output;
  EXPECT_TRUE(contains(cli_with.output, "mtls")) << cli_with.output;
  ProcessExit cli_without =
      cli({"topic", "list", "--broker", ssl_native(*broker), "--tls-ca", pki_.ca});
  EXPECT_NE(cli_without.exit_code, 0) << cli_without.output;
  std::cout << "[failure table] spillway CLI, mTLS required, no client certificate:\n"
            << cli_without.output << "\n";
}

TEST_F(TlsTest, CliProducesAndConsumesOverTls) {
  auto broker = start_broker(pki_.server);
  ASSERT_NE(broker, nullptr);
  const std::string at = ssl_native(*broker);
  ProcessExit created =
      cli({"topic", "create", "tls-cli", "--partitions", "2", "--broker", at, "--tls-ca", pki_.ca});
  ASSERT_EQ(created.exit_code, 0) << created.output;
  ProcessExit listed = cli({"topic", "list", "--broker", at, "--tls-ca", pki_.ca});
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_TRUE(contains(listed.output, "tls-cli")) << listed.output;
  std::string text;
  for (int i = 0; i < 500; ++i) text += "line-" + std::to_string(i) + "\n";
  const std::string input = write_file("cli-lines", text);
  ProcessExit produced =
      cli({"produce", "tls-cli", "-f", input, "--broker", at, "--tls-ca", pki_.ca});
  ASSERT_EQ(produced.exit_code, 0) << produced.output;
  ProcessExit consumed = cli(
      {"consume", "tls-cli", "--from-beginning", "-n", "500", "--broker", at, "--tls-ca", pki_.ca});
  ASSERT_EQ(consumed.exit_code, 0) << consumed.output;
  for (int i : {0, 1, 250, 499}) {
    EXPECT_TRUE(contains(consumed.output, "line-" + std::to_string(i) + "\n")) << i;
  }
  // The name checked is the address's host unless --tls-server-name says
  // otherwise; "localhost" is in the certificate too.
  ProcessExit by_name = cli({"topic", "list", "--broker",
                             "localhost:" + at.substr(at.find(':') + 1), "--tls-ca", pki_.ca});
  EXPECT_EQ(by_name.exit_code, 0) << by_name.output;
}

TEST_F(TlsTest, GarbageAndStalledHandshakesAreClosedAndOthersServed) {
  auto broker = start_broker(pki_.server, {"--tls-handshake-timeout-ms", "300"});
  ASSERT_NE(broker, nullptr);
  const uint16_t port = broker->listener_port("kafka SSL");
  // A client that connects and says nothing is cut at the handshake
  // timeout (the read sees the close).
  const int stalled = connect_local(port);
  ASSERT_GE(stalled, 0);
  char buf[256];
  EXPECT_LE(::recv(stalled, buf, sizeof(buf), 0), 0);
  ::close(stalled);
  EXPECT_TRUE(wait_for_log(*broker, "TLS handshake not finished within 300 ms")) << broker->log();

  const int64_t rss_before = process_status_kib(broker->pid());
  std::string garbage(16 * 1024, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(i * 131 + 7);
  for (int i = 0; i < 200; ++i) {
    const int fd = connect_local(port);
    ASSERT_GE(fd, 0);
    (void)::send(fd, garbage.data(), garbage.size(), MSG_NOSIGNAL);
    while (::recv(fd, buf, sizeof(buf), 0) > 0) {
    }
    ::close(fd);
  }
  EXPECT_TRUE(contains(broker->log(), "TLS handshake failed")) << broker->log();
  // Still serving, on TLS and in plaintext; memory did not grow with the
  // bad connections (generous bound: 200 connections' buffers would be more).
  EXPECT_TRUE(tls_probe(port, pki_.ca).ok);
  EXPECT_EQ(cli({"topic", "list", "--broker", broker->address()}).exit_code, 0);
  const int64_t rss_after = process_status_kib(broker->pid());
  EXPECT_LT(rss_after - rss_before, 16 * 1024) << rss_before << " -> " << rss_after;
}

TEST_F(TlsTest, SighupReloadsCertificatesForNewConnections) {
  // The broker reads its certificate from files the test replaces.
  const CertFiles live{(dir_.path() / "live.pem").string(), (dir_.path() / "live.key").string()};
  std::filesystem::copy_file(pki_.server.cert, live.cert);
  std::filesystem::copy_file(pki_.server.key, live.key);
  auto broker = start_broker(live);
  ASSERT_NE(broker, nullptr);
  const uint16_t port = broker->listener_port("native SSL");
  EXPECT_EQ(tls_probe(port, pki_.ca).subject, "CN=localhost,O=Spillway Test");

  ConnectionOptions options;
  options.security.tls = {.enabled = true, .ca_file = pki_.ca};
  Result<Admin> old = Admin::connect(ssl_native(*broker), options);
  ASSERT_TRUE(old.ok()) << old.status().to_string();
  ASSERT_TRUE(old->create_topic("before-reload").ok());

  // A reload that fails (a key that does not match) keeps the old one.
  std::filesystem::copy_file(pki_.client.key, live.key,
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_EQ(::kill(broker->pid(), SIGHUP), 0);
  EXPECT_TRUE(wait_for_log(*broker, "TLS reload failed, keeping the previous native certificate"))
      << broker->log();
  EXPECT_EQ(tls_probe(port, pki_.ca).subject, "CN=localhost,O=Spillway Test");

  Result<CertFiles> next = issue_server_cert(dir_.path(), "next", "reloaded.localhost");
  ASSERT_TRUE(next.ok()) << next.status().to_string();
  std::filesystem::copy_file(next->cert, live.cert,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(next->key, live.key,
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_EQ(::kill(broker->pid(), SIGHUP), 0);
  EXPECT_TRUE(wait_for_log(*broker, "TLS reload: new native connections use")) << broker->log();
  EXPECT_EQ(tls_probe(port, pki_.ca).subject, "CN=reloaded.localhost,O=Spillway Test");
  // The connection made before the reload still works.
  Result<std::vector<TopicDescription>> topics = old->list_topics();
  ASSERT_TRUE(topics.ok()) << topics.status().to_string();
  EXPECT_EQ(topics->size(), 1u);
}

TEST_F(TlsTest, BadTlsSettingsAreConfigErrors) {
  auto start = [&](std::vector<std::string> args) {
    args.insert(args.begin(),
                {"--listen", "127.0.0.1:0", "--data-dir", (dir_.path() / "data").string()});
    return run(broker_binary(), args);
  };
  ProcessExit no_cert = start({"--kafka-listeners", "SSL://127.0.0.1:0"});
  EXPECT_EQ(no_cert.exit_code, 2) << no_cert.output;
  EXPECT_TRUE(contains(no_cert.output, "[tls] kafka_cert_file")) << no_cert.output;
  ProcessExit no_native_key =
      start({"--listeners", "SSL://127.0.0.1:0", "--tls-native-cert-file", pki_.server.cert});
  EXPECT_EQ(no_native_key.exit_code, 2) << no_native_key.output;
  EXPECT_TRUE(contains(no_native_key.output, "[tls] native_key_file")) << no_native_key.output;
  ProcessExit mismatch = start({"--kafka-listeners", "SSL://127.0.0.1:0", "--tls-kafka-cert-file",
                                pki_.server.cert, "--tls-kafka-key-file", pki_.client.key});
  EXPECT_EQ(mismatch.exit_code, 2) << mismatch.output;
  EXPECT_TRUE(contains(mismatch.output, "does not match the certificate")) << mismatch.output;
  ProcessExit missing =
      start({"--kafka-listeners", "SSL://127.0.0.1:0", "--tls-kafka-cert-file",
             (dir_.path() / "nope.pem").string(), "--tls-kafka-key-file", pki_.server.key});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_TRUE(contains(missing.output, "cannot be read")) << missing.output;
  ProcessExit rules = start({"--tls-principal-mapping-rules", "RULE:broken"});
  EXPECT_EQ(rules.exit_code, 2) << rules.output;
  EXPECT_TRUE(contains(rules.output, "principal_mapping_rules")) << rules.output;
}

TEST_F(TlsTest, StopWithOpenTlsConnectionsIsGraceful) {
  auto broker = start_broker(pki_.server);
  ASSERT_NE(broker, nullptr);
  ConnectionOptions options;
  options.security.tls = {.enabled = true, .ca_file = pki_.ca};
  Result<Admin> idle = Admin::connect(ssl_native(*broker), options);
  ASSERT_TRUE(idle.ok()) << idle.status().to_string();
  ASSERT_TRUE(idle->create_topic("stop").ok());
  // One connection idle after a request, one in the middle of its handshake.
  const int half = connect_local(broker->listener_port("kafka SSL"));
  ASSERT_GE(half, 0);
  Result<ProcessExit> stopped = broker->stop(SIGTERM);
  ::close(half);
  ASSERT_TRUE(stopped.ok()) << stopped.status().to_string();
  EXPECT_EQ(stopped->exit_code, 0) << stopped->output;
  // Every connection ended without waiting for the shutdown timeout.
  EXPECT_FALSE(contains(stopped->output, "shutdown_timeout_ms")) << stopped->output;
}

uint16_t metrics_port_of(const BrokerProcess& broker) {
  const std::string log = broker.log();
  const std::string marker = "metrics on 127.0.0.1:";
  const size_t at = log.find(marker);
  return at == std::string::npos ? 0
                                 : static_cast<uint16_t>(std::stoi(log.substr(at + marker.size())));
}

TEST_F(TlsTest, MetricsOverHttpsWithMutualTls) {
  auto broker = start_broker(
      pki_.server, {"--metrics-listen", "127.0.0.1:0", "--tls-metrics-cert-file", pki_.server.cert,
                    "--tls-metrics-key-file", pki_.server.key, "--tls-metrics-client-ca-file",
                    pki_.ca, "--tls-metrics-client-auth", "required"});
  ASSERT_NE(broker, nullptr);
  const uint16_t port = metrics_port_of(*broker);
  ASSERT_NE(port, 0) << broker->log();
  const std::string get = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  Handshake with = tls_probe(port, pki_.ca, &pki_.client, get);
  ASSERT_TRUE(with.ok) << with.error;
  EXPECT_TRUE(contains(with.response, "HTTP/1.1 200 OK")) << with.response;
  EXPECT_TRUE(contains(with.response, "spillway_heap_allocations_total")) << with.response;
  Handshake without = tls_probe(port, pki_.ca, nullptr, get);
  EXPECT_FALSE(contains(without.response, "200 OK")) << without.response;
  Handshake untrusted = tls_probe(port, pki_.ca, &pki_.client_untrusted, get);
  EXPECT_FALSE(contains(untrusted.response, "200 OK")) << untrusted.response;
  // Plain HTTP on the HTTPS port gets nothing.
  const int fd = connect_local(port);
  ASSERT_GE(fd, 0);
  (void)::send(fd, get.data(), get.size(), MSG_NOSIGNAL);
  std::string plain;
  char buf[512];
  for (ssize_t r; (r = ::recv(fd, buf, sizeof(buf), 0)) > 0;)
    plain.append(buf, static_cast<size_t>(r));
  ::close(fd);
  EXPECT_FALSE(contains(plain, "200 OK")) << plain;
}

TEST_F(TlsTest, MetricsOnANonLoopbackAddressNeedMutualTlsOrConsent) {
  const std::string data = (dir_.path() / "data").string();
  ProcessExit refused = run(broker_binary(), {"--listen", "127.0.0.1:0", "--data-dir", data,
                                              "--metrics-listen", "0.0.0.0:0"});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_TRUE(contains(refused.output, "allow_unauthenticated")) << refused.output;
  auto consented = BrokerProcess::start(
      {.args = {"--metrics-listen", "0.0.0.0:0", "--metrics-allow-unauthenticated", "true"}});
  EXPECT_TRUE(consented.ok()) << consented.status().to_string();
  auto mutual = BrokerProcess::start(
      {.args = {"--metrics-listen", "0.0.0.0:0", "--tls-metrics-cert-file", pki_.server.cert,
                "--tls-metrics-key-file", pki_.server.key, "--tls-metrics-client-ca-file", pki_.ca,
                "--tls-metrics-client-auth", "required"}});
  EXPECT_TRUE(mutual.ok()) << mutual.status().to_string();
}

}  // namespace
}  // namespace spillway::testing
