// ACLs through Kafka's APIs and enforced on the Kafka listener, driven by
// librdkafka (its admin API is the "existing admin tool"). Until SASL
// lands, the one principal on a PLAINTEXT listener is User:ANONYMOUS: the
// rules are made by a broker where ANONYMOUS is a super-user, then the
// broker restarts on the same data directory without super-users, so the
// rules must have survived and ANONYMOUS is held to them.
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "broker_process.h"
#include "rdkafka_support.h"
#include "spillway/admin.h"
#include "spillway/common/credential_file.h"
#include "spillway/common/scram.h"

namespace spillway::testing {
namespace {

struct Rule {
  rd_kafka_ResourceType_t type;
  std::string name;
  rd_kafka_ResourcePatternType_t pattern;
  rd_kafka_AclOperation_t operation;
  rd_kafka_AclPermissionType_t permission = RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW;
  std::string principal = "User:ANONYMOUS";
};

constexpr auto kTopic = RD_KAFKA_RESOURCE_TOPIC;
constexpr auto kGroup = RD_KAFKA_RESOURCE_GROUP;
constexpr auto kCluster = RD_KAFKA_RESOURCE_BROKER;  // librdkafka's name for it
constexpr auto kLiteral = RD_KAFKA_RESOURCE_PATTERN_LITERAL;
constexpr auto kPrefixed = RD_KAFKA_RESOURCE_PATTERN_PREFIXED;

// CreateAcls; the error of each rule (empty when it was added).
std::vector<std::string> create_acls(KafkaAdmin& admin, const std::vector<Rule>& rules) {
  char errstr[256];
  std::vector<rd_kafka_AclBinding_t*> bindings;
  for (const Rule& r : rules) {
    bindings.push_back(rd_kafka_AclBinding_new(r.type, r.name.c_str(), r.pattern,
                                               r.principal.c_str(), "*", r.operation, r.permission,
                                               errstr, sizeof(errstr)));
    EXPECT_NE(bindings.back(), nullptr) << errstr;
  }
  rd_kafka_AdminOptions_t* opts = admin.options(RD_KAFKA_ADMIN_OP_CREATEACLS);
  rd_kafka_CreateAcls(admin.handle(), bindings.data(), bindings.size(), opts, admin.queue());
  rd_kafka_AdminOptions_destroy(opts);
  rd_kafka_AclBinding_destroy_array(bindings.data(), bindings.size());
  KafkaEvent ev = admin.wait(RD_KAFKA_EVENT_CREATEACLS_RESULT);
  std::vector<std::string> out;
  if (!ev) {
    ADD_FAILURE() << "no CreateAcls result";
    return out;
  }
  size_t n = 0;
  const rd_kafka_acl_result_t** results =
      rd_kafka_CreateAcls_result_acls(rd_kafka_event_CreateAcls_result(ev.get()), &n);
  for (size_t i = 0; i < n; ++i) {
    const rd_kafka_error_t* e = rd_kafka_acl_result_error(results[i]);
    out.push_back(e == nullptr ? "" : rd_kafka_error_string(e));
  }
  if (rd_kafka_event_error(ev.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    out.assign(rules.size(), rd_kafka_event_error_string(ev.get()));
  }
  return out;
}

// DescribeAcls of everything: "Topic:name" per rule, or the error.
std::vector<std::string> describe_acls(KafkaAdmin& admin, std::string* error = nullptr) {
  char errstr[256];
  rd_kafka_AclBindingFilter_t* filter = rd_kafka_AclBindingFilter_new(
      RD_KAFKA_RESOURCE_ANY, nullptr, RD_KAFKA_RESOURCE_PATTERN_ANY, nullptr, nullptr,
      RD_KAFKA_ACL_OPERATION_ANY, RD_KAFKA_ACL_PERMISSION_TYPE_ANY, errstr, sizeof(errstr));
  EXPECT_NE(filter, nullptr) << errstr;
  rd_kafka_AdminOptions_t* opts = admin.options(RD_KAFKA_ADMIN_OP_DESCRIBEACLS);
  rd_kafka_DescribeAcls(admin.handle(), filter, opts, admin.queue());
  rd_kafka_AdminOptions_destroy(opts);
  rd_kafka_AclBinding_destroy(filter);
  KafkaEvent ev = admin.wait(RD_KAFKA_EVENT_DESCRIBEACLS_RESULT);
  std::vector<std::string> out;
  if (!ev) {
    ADD_FAILURE() << "no DescribeAcls result";
    return out;
  }
  if (rd_kafka_event_error(ev.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    if (error != nullptr) {
      *error = std::string(rd_kafka_err2str(rd_kafka_event_error(ev.get()))) + ": " +
               rd_kafka_event_error_string(ev.get());
    }
    return out;
  }
  size_t n = 0;
  const rd_kafka_AclBinding_t** acls =
      rd_kafka_DescribeAcls_result_acls(rd_kafka_event_DescribeAcls_result(ev.get()), &n);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(std::string(rd_kafka_ResourceType_name(rd_kafka_AclBinding_restype(acls[i]))) +
                  ":" + rd_kafka_AclBinding_name(acls[i]) + ":" +
                  rd_kafka_AclOperation_name(rd_kafka_AclBinding_operation(acls[i])));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// DeleteAcls of the topic rules named `name`; how many went.
size_t delete_topic_acls(KafkaAdmin& admin, const std::string& name) {
  char errstr[256];
  rd_kafka_AclBindingFilter_t* filter = rd_kafka_AclBindingFilter_new(
      kTopic, name.c_str(), RD_KAFKA_RESOURCE_PATTERN_ANY, nullptr, nullptr,
      RD_KAFKA_ACL_OPERATION_ANY, RD_KAFKA_ACL_PERMISSION_TYPE_ANY, errstr, sizeof(errstr));
  rd_kafka_AdminOptions_t* opts = admin.options(RD_KAFKA_ADMIN_OP_DELETEACLS);
  rd_kafka_DeleteAcls(admin.handle(), &filter, 1, opts, admin.queue());
  rd_kafka_AdminOptions_destroy(opts);
  rd_kafka_AclBinding_destroy(filter);
  KafkaEvent ev = admin.wait(RD_KAFKA_EVENT_DELETEACLS_RESULT);
  if (!ev) return 0;
  size_t n = 0;
  const rd_kafka_DeleteAcls_result_response_t** responses =
      rd_kafka_DeleteAcls_result_responses(rd_kafka_event_DeleteAcls_result(ev.get()), &n);
  if (n != 1) return 0;
  EXPECT_EQ(rd_kafka_DeleteAcls_result_response_error(responses[0]), nullptr);
  size_t matching = 0;
  rd_kafka_DeleteAcls_result_response_matching_acls(responses[0], &matching);
  return matching;
}

// Produces one message to partition 0 of `topic`; the delivery error.
rd_kafka_resp_err_t produce_one(
    const std::string& bootstrap, const std::string& topic,
    const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  struct Delivery {
    bool done = false;
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  } delivery;
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), errstr, sizeof(errstr));
  rd_kafka_conf_set(conf, "message.timeout.ms", "15000", errstr, sizeof(errstr));
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof(errstr));
  for (const auto& [k, v] : extra)
    rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof(errstr));
  rd_kafka_conf_set_dr_msg_cb(conf, [](rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto* d = static_cast<Delivery*>(opaque);
    d->done = true;
    d->err = m->err;
  });
  rd_kafka_conf_set_opaque(conf, &delivery);
  KafkaHandle p(rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr)));
  if (!p) {
    ADD_FAILURE() << errstr;
    return RD_KAFKA_RESP_ERR__FAIL;
  }
  rd_kafka_resp_err_t sent =
      rd_kafka_producev(p.get(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                        RD_KAFKA_V_VALUE(const_cast<char*>("v"), 1), RD_KAFKA_V_END);
  if (sent != RD_KAFKA_RESP_ERR_NO_ERROR) return sent;
  for (int i = 0; i < kGuardMs / 100 && !delivery.done; ++i) rd_kafka_poll(p.get(), 100);
  return delivery.done ? delivery.err : RD_KAFKA_RESP_ERR__TIMED_OUT;
}

// Reads partition 0 of `topic` from the start: the first error the
// consumer reports, or NO_ERROR once a message arrives.
rd_kafka_resp_err_t read_one(const std::string& bootstrap, const std::string& topic,
                             std::vector<std::pair<std::string, std::string>> settings = {}) {
  settings.insert(settings.end(), {{"group.id", "readers"}, {"enable.auto.commit", "false"}});
  KafkaHandle c = make_client(RD_KAFKA_CONSUMER, bootstrap, settings);
  // Errors (a topic the metadata refuses) come as messages on the
  // consumer's queue.
  rd_kafka_poll_set_consumer(c.get());
  rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(parts, topic.c_str(), 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(c.get(), parts);
  rd_kafka_topic_partition_list_destroy(parts);
  rd_kafka_resp_err_t result = RD_KAFKA_RESP_ERR__TIMED_OUT;
  for (int i = 0; i < kGuardMs / 200; ++i) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(c.get(), 200);
    if (m == nullptr) continue;
    const rd_kafka_resp_err_t err = m->err;
    rd_kafka_message_destroy(m);
    // Local conditions (end of partition, a connection retried) are not
    // the answer; the broker's error or a record is.
    if (err < 0) continue;
    result = err;
    break;
  }
  rd_kafka_consumer_close(c.get());
  return result;
}

// Joins group `group` subscribed to `topic`: the first error reported, or
// NO_ERROR once partitions are assigned.
rd_kafka_resp_err_t join(const std::string& bootstrap, const std::string& group,
                         const std::string& topic,
                         std::vector<std::pair<std::string, std::string>> settings = {}) {
  settings.insert(settings.end(), {{"group.id", group}, {"session.timeout.ms", "6000"}});
  KafkaHandle c = make_client(RD_KAFKA_CONSUMER, bootstrap, settings);
  rd_kafka_poll_set_consumer(c.get());
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, topic.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(c.get(), topics);
  rd_kafka_topic_partition_list_destroy(topics);
  rd_kafka_resp_err_t result = RD_KAFKA_RESP_ERR__TIMED_OUT;
  for (int i = 0; i < kGuardMs / 200; ++i) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(c.get(), 200);
    if (m != nullptr) {
      const rd_kafka_resp_err_t err = m->err;
      rd_kafka_message_destroy(m);
      if (err != RD_KAFKA_RESP_ERR__PARTITION_EOF && err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        result = err;
        break;
      }
    }
    rd_kafka_topic_partition_list_t* assigned = nullptr;
    if (rd_kafka_assignment(c.get(), &assigned) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      const int count = assigned->cnt;
      rd_kafka_topic_partition_list_destroy(assigned);
      if (count > 0) {
        result = RD_KAFKA_RESP_ERR_NO_ERROR;
        break;
      }
    }
  }
  rd_kafka_consumer_close(c.get());
  return result;
}

// The topic names a full Metadata request lists.
std::set<std::string> listed_topics(KafkaAdmin& admin) {
  const rd_kafka_metadata_t* md = nullptr;
  std::set<std::string> out;
  if (rd_kafka_metadata(admin.handle(), 1, nullptr, &md, kGuardMs) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    ADD_FAILURE() << "Metadata failed";
    return out;
  }
  for (int i = 0; i < md->topic_cnt; ++i) out.insert(md->topics[i].topic);
  rd_kafka_metadata_destroy(md);
  return out;
}

std::unique_ptr<BrokerProcess> start(const TempDir& dir, bool anonymous_is_super_user) {
  BrokerProcess::Options options;
  options.default_data_dir = false;
  options.args = {"--data-dir",
                  dir.path().string(),
                  "--authorization-enabled",
                  "true",
                  "--authorization-super-users",
                  anonymous_is_super_user ? "User:ANONYMOUS" : "User:admin"};
  auto started = BrokerProcess::start(options);
  EXPECT_TRUE(started.ok()) << started.status().to_string();
  return started.ok() ? std::move(*started) : nullptr;
}

TEST(KafkaAcls, SecurityDisabledWithoutAuthorization) {
  auto started = BrokerProcess::start();
  ASSERT_TRUE(started.ok()) << started.status().to_string();
  KafkaAdmin admin((*started)->kafka_address());
  // librdkafka 2.0.2 drops DescribeAcls' top-level error: nothing listed.
  EXPECT_TRUE(describe_acls(admin).empty());
  const std::vector<std::string> created =
      create_acls(admin, {{kTopic, "a", kLiteral, RD_KAFKA_ACL_OPERATION_READ}});
  ASSERT_EQ(created.size(), 1u);
  EXPECT_NE(created[0].find("authorization is off"), std::string::npos) << created[0];
}

TEST(KafkaAcls, RulesAreEnforcedAndSurviveARestart) {
  TempDir dir;
  {
    // ANONYMOUS is a super-user: everything is allowed, rules or not.
    auto broker = start(dir, true);
    ASSERT_NE(broker, nullptr);
    KafkaAdmin admin(broker->kafka_address());
    for (const char* t : {"a", "b", "p-open", "p-secret"}) {
      auto out = create_topic(admin, t, 1);
      ASSERT_EQ(out.size(), 1u);
      EXPECT_EQ(out[0].error, RD_KAFKA_RESP_ERR_NO_ERROR) << t << ": " << out[0].message;
    }
    for (const char* t : {"a", "p-open", "p-secret"}) {
      EXPECT_EQ(produce_one(broker->kafka_address(), t), RD_KAFKA_RESP_ERR_NO_ERROR) << t;
    }
    const std::vector<std::string> created =
        create_acls(admin, {
                               {kCluster, "kafka-cluster", kLiteral, RD_KAFKA_ACL_OPERATION_ALTER},
                               {kTopic, "a", kLiteral, RD_KAFKA_ACL_OPERATION_WRITE},
                               {kTopic, "p-", kPrefixed, RD_KAFKA_ACL_OPERATION_READ},
                               {kTopic, "p-secret", kLiteral, RD_KAFKA_ACL_OPERATION_READ,
                                RD_KAFKA_ACL_PERMISSION_TYPE_DENY},
                               {kGroup, "readers", kLiteral, RD_KAFKA_ACL_OPERATION_READ},
                               // Someone else's rule: gives ANONYMOUS nothing.
                               {kTopic, "b", kLiteral, RD_KAFKA_ACL_OPERATION_ALL,
                                RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW, "User:bob"},
                           });
    EXPECT_EQ(created, std::vector<std::string>(6, ""));
    EXPECT_EQ(describe_acls(admin).size(), 6u);
    ASSERT_TRUE(broker->stop(SIGTERM).ok());
  }
  auto broker = start(dir, false);
  ASSERT_NE(broker, nullptr);
  const std::string bootstrap = broker->kafka_address();
  KafkaAdmin admin(bootstrap);

  // Cluster Alter lets ANONYMOUS manage ACLs, but describing them needs
  // Describe (which Alter implies).
  EXPECT_EQ(
      describe_acls(admin),
      (std::vector<std::string>{"BROKER:kafka-cluster:ALTER", "GROUP:readers:READ", "TOPIC:a:WRITE",
                                "TOPIC:b:ALL", "TOPIC:p-:READ", "TOPIC:p-secret:READ"}));

  // Write on a: may write a, not read it, not write b.
  EXPECT_EQ(produce_one(bootstrap, "a"), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(read_one(bootstrap, "a"), RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
  EXPECT_EQ(produce_one(bootstrap, "b"), RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);

  // Metadata lists only what ANONYMOUS may describe (Write on a, Read on
  // the p- prefix imply Describe; b is someone else's).
  EXPECT_EQ(listed_topics(admin), (std::set<std::string>{"a", "p-open", "p-secret"}));

  // No Create or Delete anywhere.
  auto created = create_topic(admin, "c", 1);
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(created[0].error, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED) << created[0].message;
  auto deleted = delete_topic(admin, "a");
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(deleted[0].error, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);

  // Prefixed allow, literal deny: the deny wins.
  EXPECT_EQ(produce_one(bootstrap, "p-open"), RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
  EXPECT_EQ(read_one(bootstrap, "p-open"), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(read_one(bootstrap, "p-secret"), RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);

  // No Read on group g: cannot join it; with Read it can.
  EXPECT_EQ(join(bootstrap, "g", "p-open"), RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED);
  EXPECT_EQ(create_acls(admin, {{kGroup, "g", kLiteral, RD_KAFKA_ACL_OPERATION_READ}}),
            std::vector<std::string>{""});
  EXPECT_EQ(join(bootstrap, "g", "p-open"), RD_KAFKA_RESP_ERR_NO_ERROR);

  // The native listener applies the same rules.
  {
    Result<Admin> native = Admin::connect(broker->address());
    ASSERT_TRUE(native.ok()) << native.status().to_string();
    Result<std::vector<TopicDescription>> listed = native->list_topics();
    ASSERT_TRUE(listed.ok()) << listed.status().to_string();
    std::set<std::string> names;
    for (const TopicDescription& t : *listed) names.insert(t.name);
    EXPECT_EQ(names, (std::set<std::string>{"a", "p-open", "p-secret"}));
    Result<TopicDescription> b = native->describe_topic("b");
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.status().code(), ErrorCode::kTopicAuthorizationFailed);
    EXPECT_EQ(native->create_topic("c").code(), ErrorCode::kTopicAuthorizationFailed);
    EXPECT_EQ(native->delete_topic("a").code(), ErrorCode::kTopicAuthorizationFailed);
    EXPECT_EQ(native->delete_group("g").code(), ErrorCode::kGroupAuthorizationFailed);
  }

  // A new rule applies at once; a deleted one stops applying.
  EXPECT_EQ(create_acls(admin, {{kTopic, "a", kLiteral, RD_KAFKA_ACL_OPERATION_READ}}),
            std::vector<std::string>{""});
  EXPECT_EQ(read_one(bootstrap, "a"), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(delete_topic_acls(admin, "a"), 2u);
  EXPECT_EQ(produce_one(bootstrap, "a"), RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
}

// Two SASL users: each may use its own topic, not the other's.
TEST(KafkaAcls, SaslUsersAreHeldToTheirOwnRules) {
  TempDir dir;
  std::vector<scram::UserCredential> users;
  for (const char* user : {"alice", "bob"}) {
    users.push_back(
        {user, scram::make_credential(scram::Mechanism::kSha256, std::string(user) + "-pw",
                                      scram::random_bytes(16), 4096)});
  }
  std::ofstream(dir.path() / "credentials", std::ios::binary) << scram::encode_credentials(users);
  BrokerProcess::Options options;
  options.default_data_dir = false;
  // PLAINTEXT on 127.0.0.1 is the administrator's (User:ANONYMOUS a
  // super-user); alice and bob come in over SASL.
  options.args = {"--data-dir",
                  dir.path().string(),
                  "--kafka-listeners",
                  "SASL_PLAINTEXT://127.0.0.1:0",
                  "--authorization-enabled",
                  "true",
                  "--authorization-super-users",
                  "User:ANONYMOUS"};
  auto started = BrokerProcess::start(options);
  ASSERT_TRUE(started.ok()) << started.status().to_string();
  BrokerProcess& broker = **started;
  const uint16_t sasl_port = broker.listener_port("kafka SASL_PLAINTEXT");
  ASSERT_NE(sasl_port, 0) << broker.log();
  KafkaAdmin admin(broker.kafka_address());
  for (const char* t : {"alice-t", "bob-t"}) {
    auto out = create_topic(admin, t, 1);
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].error, RD_KAFKA_RESP_ERR_NO_ERROR) << out[0].message;
  }
  EXPECT_EQ(create_acls(admin,
                        {
                            {kTopic, "alice-t", kLiteral, RD_KAFKA_ACL_OPERATION_ALL,
                             RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW, "User:alice"},
                            {kTopic, "bob-t", kLiteral, RD_KAFKA_ACL_OPERATION_ALL,
                             RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW, "User:bob"},
                            {kGroup, "readers", kLiteral, RD_KAFKA_ACL_OPERATION_READ,
                             RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW, "User:*"},
                        }),
            std::vector<std::string>(3, ""));
  const std::string sasl = "127.0.0.1:" + std::to_string(sasl_port);
  auto as = [](const std::string& user) {
    return std::vector<std::pair<std::string, std::string>>{{"security.protocol", "SASL_PLAINTEXT"},
                                                            {"sasl.mechanism", "SCRAM-SHA-256"},
                                                            {"sasl.username", user},
                                                            {"sasl.password", user + "-pw"}};
  };
  EXPECT_EQ(produce_one(sasl, "alice-t", as("alice")), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(produce_one(sasl, "bob-t", as("bob")), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(read_one(sasl, "alice-t", as("alice")), RD_KAFKA_RESP_ERR_NO_ERROR);
  // librdkafka reports a refused topic for subscriptions (an assigned one
  // it just waits for): alice subscribing to bob's topic.
  EXPECT_EQ(join(sasl, "readers", "bob-t", as("alice")),
            RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
  EXPECT_EQ(produce_one(sasl, "alice-t", as("bob")), RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
  EXPECT_EQ(read_one(sasl, "bob-t", as("bob")), RD_KAFKA_RESP_ERR_NO_ERROR);
}

}  // namespace
}  // namespace spillway::testing
