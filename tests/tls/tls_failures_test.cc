// What a misconfigured client sees, and that the broker keeps serving
// everyone else meanwhile: an untrusted or expired broker certificate, an
// expired or untrusted client certificate on a mutual-TLS listener, a
// plaintext client on a TLS listener. The outputs are printed under
// "[failure table]" (docs/security-tls.md quotes them).
#include "tls_support.h"

namespace spillway::testing {
namespace {

void print(const std::string& what, const ProcessExit& r) {
  std::cout << "[failure table] " << what << " (exit " << r.exit_code << "):\n" << r.output << "\n";
}

TEST_F(TlsTest, UntrustedOrExpiredBrokerCertificateFailsClearly) {
  for (const auto& [what, server] : std::vector<std::pair<std::string, CertFiles>>{
           {"untrusted", pki_.server_untrusted}, {"expired", pki_.server_expired}}) {
    auto broker = start_broker(server);
    ASSERT_NE(broker, nullptr);
    // -m 2: the handshake fails at once, and kcat would only retry it until
    // its metadata timeout (10 s) passed.
    ProcessExit k = kcat(*broker, pki_.ca, {"-m", "2", "-L"});
    EXPECT_NE(k.exit_code, 0) << k.output;
    EXPECT_TRUE(contains(k.output, "certificate verify failed")) << k.output;
    print("kcat, " + what + " broker certificate", k);
    ProcessExit c = cli({"topic", "list", "--broker", ssl_native(*broker), "--tls-ca", pki_.ca});
    EXPECT_NE(c.exit_code, 0) << c.output;
    EXPECT_TRUE(contains(c.output, "TLS handshake with " + ssl_native(*broker) +
                                       " failed: certificate verify failed"))
        << c.output;
    EXPECT_TRUE(contains(c.output, what == "expired" ? "certificate has expired"
                                                     : "unable to get local issuer certificate"))
        << c.output;
    print("spillway CLI, " + what + " broker certificate", c);
    // Plaintext clients are served meanwhile.
    ProcessExit plain = cli({"topic", "list", "--broker", broker->address()});
    EXPECT_EQ(plain.exit_code, 0) << plain.output;
  }
}

TEST_F(TlsTest, ExpiredOrUntrustedClientCertificateIsRefused) {
  auto broker = start_broker(pki_.server, mtls_flags());
  ASSERT_NE(broker, nullptr);
  for (const auto& [what, client] : std::vector<std::pair<std::string, CertFiles>>{
           {"expired", pki_.client_expired}, {"untrusted", pki_.client_untrusted}}) {
    ProcessExit k = kcat(*broker, pki_.ca,
                         {"-X", "ssl.certificate.location=" + client.cert, "-X",
                          "ssl.key.location=" + client.key, "-m", "2", "-L"});
    EXPECT_NE(k.exit_code, 0) << k.output;
    print("kcat, " + what + " client certificate", k);
    ProcessExit c = cli({"topic", "list", "--broker", ssl_native(*broker), "--tls-ca", pki_.ca,
                         "--tls-cert", client.cert, "--tls-key", client.key});
    EXPECT_NE(c.exit_code, 0) << c.output;
    EXPECT_TRUE(contains(c.output, "TLS")) << c.output;
    print("spillway CLI, " + what + " client certificate", c);
    ProcessExit plain = cli({"topic", "list", "--broker", broker->address()});
    EXPECT_EQ(plain.exit_code, 0) << plain.output;
  }
  EXPECT_TRUE(contains(broker->log(), "certificate has expired")) << broker->log();
  // A good client is still served.
  ProcessExit good = cli({"topic", "list", "--broker", ssl_native(*broker), "--tls-ca", pki_.ca,
                          "--tls-cert", pki_.client.cert, "--tls-key", pki_.client.key});
  EXPECT_EQ(good.exit_code, 0) << good.output;
}

TEST_F(TlsTest, PlaintextClientOnATlsListenerFailsClearly) {
  auto broker = start_broker(pki_.server);
  ASSERT_NE(broker, nullptr);
  ProcessExit c = cli({"topic", "list", "--broker", ssl_native(*broker)});
  EXPECT_NE(c.exit_code, 0) << c.output;
  print("spillway CLI without --tls on a TLS listener", c);
  ProcessExit k =
      run(kKcat, {"-b", "127.0.0.1:" + std::to_string(broker->listener_port("kafka SSL")), "-X",
                  "socket.timeout.ms=5000", "-m", "5", "-L"});
  EXPECT_NE(k.exit_code, 0) << k.output;
  print("kcat with security.protocol=PLAINTEXT on an SSL listener", k);
  // And a TLS client on the plaintext listener.
  ProcessExit t = cli({"topic", "list", "--broker", broker->address(), "--tls-ca", pki_.ca});
  EXPECT_NE(t.exit_code, 0) << t.output;
  print("spillway CLI with --tls-ca on a plaintext listener", t);
}

}  // namespace
}  // namespace spillway::testing
