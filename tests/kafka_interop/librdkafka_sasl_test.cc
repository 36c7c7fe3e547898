// librdkafka with security.protocol=SASL_PLAINTEXT and SASL_SSL (SASL inside
// TLS, the broker's certificate checked against a test CA) against the real
// broker: for PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, records produced with
// acks=all come back through a consumer; a wrong password and an unknown
// user make librdkafka report an authentication error carrying the broker's
// message, while a right client on the same broker keeps being served.
//
// Loops that wait are bounded by a deadline so a broken broker fails the
// test instead of hanging it; no assertion is about time.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "broker_process.h"
#include "spillway/admin.h"
#include "spillway/common/credential_file.h"
#include "spillway/common/scram.h"
#include "test_pki.h"

namespace spillway::testing {
namespace {

constexpr auto kGuard = std::chrono::seconds(60);  // against hanging only

struct Conf {
  void operator()(rd_kafka_conf_t* c) const { rd_kafka_conf_destroy(c); }
};
struct Handle {
  void operator()(rd_kafka_t* k) const {
    if (rd_kafka_type(k) == RD_KAFKA_CONSUMER) rd_kafka_consumer_close(k);
    rd_kafka_destroy(k);
  }
};
using RdKafka = std::unique_ptr<rd_kafka_t, Handle>;

// The first error librdkafka reported (error_cb), for the failure cases.
struct Errors {
  rd_kafka_resp_err_t first = RD_KAFKA_RESP_ERR_NO_ERROR;
  std::string text;
};

// The listener's security protocol: SASL_PLAINTEXT or SASL_SSL.
class LibrdkafkaSasl : public ::testing::TestWithParam<std::string> {
 protected:
  bool tls() const { return GetParam() == "SASL_SSL"; }

  void SetUp() override {
    if (tls()) {
      std::filesystem::create_directories(dir_.path() / "pki");
      auto pki = make_test_pki(dir_.path() / "pki");
      ASSERT_TRUE(pki.ok()) << pki.status().to_string();
      pki_ = *pki;
    }
    const std::filesystem::path data = dir_.path() / "data";
    std::filesystem::create_directories(data);
    std::vector<scram::UserCredential> all;
    for (scram::Mechanism m : {scram::Mechanism::kSha256, scram::Mechanism::kSha512}) {
      all.push_back(
          {"alice", scram::make_credential(m, "alice-pw", scram::random_bytes(16), 4096)});
    }
    std::ofstream(data / "credentials", std::ios::binary) << scram::encode_credentials(all);
    BrokerProcess::Options options;
    options.default_data_dir = false;
    options.args = {"--data-dir",
                    data.string(),
                    "--kafka-listen",
                    "127.0.0.1:0",
                    "--kafka-listeners",
                    GetParam() + "://127.0.0.1:0",
                    "--sasl-mechanisms",
                    "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
                    "--sasl-max-failed-authentications",
                    "1000"};
    if (tls()) {
      options.args.insert(options.args.end(), {"--tls-kafka-cert-file", pki_.server.cert,
                                               "--tls-kafka-key-file", pki_.server.key});
    }
    auto broker = BrokerProcess::start(options);
    ASSERT_TRUE(broker.ok()) << broker.status().to_string();
    broker_ = std::move(*broker);
    sasl_port_ = broker_->listener_port("kafka " + GetParam());
    ASSERT_NE(sasl_port_, 0) << broker_->log();
    auto admin = Admin::connect(broker_->address());
    ASSERT_TRUE(admin.ok());
    TopicOptions topic;
    topic.partitions = 1;
    ASSERT_TRUE(admin->create_topic("secure", topic).ok());
  }

  RdKafka make(rd_kafka_type_t type, const std::string& mechanism, const std::string& user,
               const std::string& password, Errors* errors) {
    std::unique_ptr<rd_kafka_conf_t, Conf> c(rd_kafka_conf_new());
    char error[512];
    std::vector<std::pair<std::string, std::string>> settings = {
        {"bootstrap.servers", "127.0.0.1:" + std::to_string(sasl_port_)},
        {"security.protocol", GetParam()},
        {"sasl.mechanism", mechanism},
        {"sasl.username", user},
        {"sasl.password", password},
        {"log_level", "0"},
        {"acks", "all"},
    };
    // The broker's certificate is checked against the CA and, by
    // librdkafka's default endpoint identification, against 127.0.0.1.
    if (tls()) settings.push_back({"ssl.ca.location", pki_.ca});
    for (const auto& [k, v] : settings) {
      if (type == RD_KAFKA_CONSUMER && k == "acks") continue;
      EXPECT_EQ(rd_kafka_conf_set(c.get(), k.c_str(), v.c_str(), error, sizeof error),
                RD_KAFKA_CONF_OK)
          << k << ": " << error;
    }
    if (type == RD_KAFKA_CONSUMER) {
      rd_kafka_conf_set(c.get(), "group.id", "sasl", error, sizeof error);
      rd_kafka_conf_set(c.get(), "enable.auto.commit", "false", error, sizeof error);
    }
    rd_kafka_conf_set_opaque(c.get(), errors);
    rd_kafka_conf_set_error_cb(c.get(), [](rd_kafka_t*, int err, const char* reason, void* o) {
      auto* e = static_cast<Errors*>(o);
      if (e != nullptr && e->first == RD_KAFKA_RESP_ERR_NO_ERROR) {
        e->first = static_cast<rd_kafka_resp_err_t>(err);
        e->text = reason;
      }
    });
    rd_kafka_t* k = rd_kafka_new(type, c.get(), error, sizeof error);
    EXPECT_NE(k, nullptr) << error;
    if (k) (void)c.release();
    if (k && type == RD_KAFKA_CONSUMER) rd_kafka_poll_set_consumer(k);
    return RdKafka(k);
  }

  // Produces `value`; true when librdkafka reports its delivery.
  bool produce(const std::string& mechanism, const std::string& value) {
    Errors errors;
    RdKafka p = make(RD_KAFKA_PRODUCER, mechanism, "alice", "alice-pw", &errors);
    if (!p) return false;
    if (rd_kafka_producev(p.get(), RD_KAFKA_V_TOPIC("secure"),
                          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                          RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                          RD_KAFKA_V_END) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return false;
    }
    return rd_kafka_flush(p.get(), static_cast<int>(std::chrono::milliseconds(kGuard).count())) ==
               RD_KAFKA_RESP_ERR_NO_ERROR &&
           rd_kafka_outq_len(p.get()) == 0;
  }

  TempDir dir_;
  TestPki pki_;
  std::unique_ptr<BrokerProcess> broker_;
  uint16_t sasl_port_ = 0;
};

INSTANTIATE_TEST_SUITE_P(SecurityProtocols, LibrdkafkaSasl,
                         ::testing::Values("SASL_PLAINTEXT", "SASL_SSL"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == "SASL_SSL" ? "SaslSsl" : "SaslPlaintext";
                         });

TEST_P(LibrdkafkaSasl, EveryMechanismProducesAndConsumes) {
  const std::vector<std::string> mechanisms = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
  for (const std::string& m : mechanisms) ASSERT_TRUE(produce(m, "via " + m)) << m;
  Errors errors;
  RdKafka c = make(RD_KAFKA_CONSUMER, "SCRAM-SHA-512", "alice", "alice-pw", &errors);
  ASSERT_TRUE(c);
  rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(parts, "secure", 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  ASSERT_EQ(rd_kafka_assign(c.get(), parts), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(parts);
  std::vector<std::string> got;
  const auto deadline = std::chrono::steady_clock::now() + kGuard;
  while (got.size() < mechanisms.size() && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(c.get(), 100);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      got.emplace_back(static_cast<const char*>(m->payload), m->len);
    }
    rd_kafka_message_destroy(m);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"via PLAIN", "via SCRAM-SHA-256", "via SCRAM-SHA-512"}));
}

TEST_P(LibrdkafkaSasl, WrongPasswordAndUnknownUserAreClearErrors) {
  struct Case {
    std::string mechanism, user, password;
  };
  for (const Case& bad : {Case{"SCRAM-SHA-256", "alice", "wrong"}, Case{"PLAIN", "alice", "wrong"},
                          Case{"SCRAM-SHA-512", "mallory", "alice-pw"}}) {
    Errors errors;
    RdKafka p = make(RD_KAFKA_PRODUCER, bad.mechanism, bad.user, bad.password, &errors);
    ASSERT_TRUE(p);
    const auto deadline = std::chrono::steady_clock::now() + kGuard;
    while (errors.first == RD_KAFKA_RESP_ERR_NO_ERROR &&
           std::chrono::steady_clock::now() < deadline) {
      rd_kafka_poll(p.get(), 100);
    }
    EXPECT_EQ(errors.first, RD_KAFKA_RESP_ERR__AUTHENTICATION) << bad.mechanism << " " << bad.user;
    EXPECT_NE(errors.text.find("Authentication failed: invalid credentials"), std::string::npos)
        << errors.text;
    // Meanwhile a right client is served.
    EXPECT_TRUE(produce("SCRAM-SHA-256", "still served"));
  }
}

}  // namespace
}  // namespace spillway::testing
