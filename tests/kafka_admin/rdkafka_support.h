// librdkafka (C API) helpers for the Kafka admin tests: clients configured
// for a test broker, and admin calls that wait for their result event.
// Waits are bounded by generous timeouts that guard against a hang; they
// are never what a test asserts.
#pragma once

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace spillway::testing {

inline constexpr int kGuardMs = 30'000;

struct KafkaDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
  void operator()(rd_kafka_queue_t* q) const { rd_kafka_queue_destroy(q); }
  void operator()(rd_kafka_event_t* ev) const { rd_kafka_event_destroy(ev); }
  void operator()(rd_kafka_AdminOptions_t* o) const { rd_kafka_AdminOptions_destroy(o); }
};
using KafkaHandle = std::unique_ptr<rd_kafka_t, KafkaDeleter>;
using KafkaQueue = std::unique_ptr<rd_kafka_queue_t, KafkaDeleter>;
using KafkaEvent = std::unique_ptr<rd_kafka_event_t, KafkaDeleter>;

// A client of `type` for `bootstrap` with `settings` (name, value) on top.
inline KafkaHandle make_client(
    rd_kafka_type_t type, const std::string& bootstrap,
    const std::vector<std::pair<std::string, std::string>>& settings = {}) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  auto set = [&](const std::string& k, const std::string& v) {
    EXPECT_EQ(rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof(errstr)),
              RD_KAFKA_CONF_OK)
        << k << ": " << errstr;
  };
  set("bootstrap.servers", bootstrap);
  set("log_level", "3");
  for (const auto& [k, v] : settings) set(k, v);
  rd_kafka_t* rk = rd_kafka_new(type, conf, errstr, sizeof(errstr));
  EXPECT_NE(rk, nullptr) << errstr;
  return KafkaHandle(rk);
}

// Admin calls on one client, each waiting for its result event.
class KafkaAdmin {
 public:
  explicit KafkaAdmin(const std::string& bootstrap)
      : rk_(make_client(RD_KAFKA_PRODUCER, bootstrap)), queue_(rd_kafka_queue_new(rk_.get())) {}

  rd_kafka_t* handle() const { return rk_.get(); }

  // Options for `op`; validate_only where the op takes it.
  rd_kafka_AdminOptions_t* options(rd_kafka_admin_op_t op, bool validate_only = false) {
    char errstr[256];
    rd_kafka_AdminOptions_t* o = rd_kafka_AdminOptions_new(rk_.get(), op);
    rd_kafka_AdminOptions_set_request_timeout(o, kGuardMs, errstr, sizeof(errstr));
    if (validate_only) rd_kafka_AdminOptions_set_validate_only(o, 1, errstr, sizeof(errstr));
    return o;
  }

  // The next event of `type` on the admin queue (null after the guard).
  KafkaEvent wait(rd_kafka_event_type_t type) {
    for (;;) {
      KafkaEvent ev(rd_kafka_queue_poll(queue_.get(), kGuardMs));
      if (!ev) return nullptr;
      if (rd_kafka_event_type(ev.get()) == type) return ev;
    }
  }

  rd_kafka_queue_t* queue() const { return queue_.get(); }

 private:
  KafkaHandle rk_;
  KafkaQueue queue_;
};

// One topic result of an admin call.
struct TopicOutcome {
  std::string name;
  rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
  std::string message;
};

inline std::vector<TopicOutcome> topic_outcomes(const rd_kafka_topic_result_t** results,
                                                size_t count) {
  std::vector<TopicOutcome> out;
  for (size_t i = 0; i < count; ++i) {
    const char* msg = rd_kafka_topic_result_error_string(results[i]);
    out.push_back({rd_kafka_topic_result_name(results[i]), rd_kafka_topic_result_error(results[i]),
                   msg ? msg : ""});
  }
  return out;
}

// Creates one topic: `partitions`, replication `replication`, `configs`.
inline std::vector<TopicOutcome> create_topic(
    KafkaAdmin& admin, const std::string& name, int partitions, int replication = 1,
    const std::vector<std::pair<std::string, std::string>>& configs = {},
    bool validate_only = false) {
  char errstr[256];
  rd_kafka_NewTopic_t* topic =
      rd_kafka_NewTopic_new(name.c_str(), partitions, replication, errstr, sizeof(errstr));
  EXPECT_NE(topic, nullptr) << errstr;
  if (topic == nullptr) return {};
  for (const auto& [k, v] : configs) {
    EXPECT_EQ(rd_kafka_NewTopic_set_config(topic, k.c_str(), v.c_str()),
              RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  rd_kafka_AdminOptions_t* opts = admin.options(RD_KAFKA_ADMIN_OP_CREATETOPICS, validate_only);
  rd_kafka_CreateTopics(admin.handle(), &topic, 1, opts, admin.queue());
  rd_kafka_AdminOptions_destroy(opts);
  rd_kafka_NewTopic_destroy(topic);
  KafkaEvent ev = admin.wait(RD_KAFKA_EVENT_CREATETOPICS_RESULT);
  EXPECT_TRUE(ev) << "no CreateTopics result";
  if (!ev) return {};
  EXPECT_EQ(rd_kafka_event_error(ev.get()), RD_KAFKA_RESP_ERR_NO_ERROR)
      << rd_kafka_event_error_string(ev.get());
  size_t count = 0;
  const rd_kafka_topic_result_t** results =
      rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev.get()), &count);
  return topic_outcomes(results, count);
}

inline std::vector<TopicOutcome> delete_topic(KafkaAdmin& admin, const std::string& name) {
  rd_kafka_DeleteTopic_t* topic = rd_kafka_DeleteTopic_new(name.c_str());
  rd_kafka_AdminOptions_t* opts = admin.options(RD_KAFKA_ADMIN_OP_DELETETOPICS);
  rd_kafka_DeleteTopics(admin.handle(), &topic, 1, opts, admin.queue());
  rd_kafka_AdminOptions_destroy(opts);
  rd_kafka_DeleteTopic_destroy(topic);
  KafkaEvent ev = admin.wait(RD_KAFKA_EVENT_DELETETOPICS_RESULT);
  EXPECT_TRUE(ev) << "no DeleteTopics result";
  if (!ev) return {};
  size_t count = 0;
  const rd_kafka_topic_result_t** results =
      rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(ev.get()), &count);
  return topic_outcomes(results, count);
}

}  // namespace spillway::testing
