// The listener lists ([broker] listeners, [kafka] listeners and
// advertised_listeners) and the plan of every listener the broker opens.
#include "config/listener_list.h"

#include <gtest/gtest.h>

namespace spillway::broker {
namespace {

using security::SecurityProtocol;

TEST(ListenerList, ParsesEverySecurityProtocolWithSpacesAroundCommas) {
  Result<std::vector<ListenerSpec>> list = parse_listener_list(
      "PLAINTEXT://127.0.0.1:9092, SSL://0.0.0.0:9093 ,SASL_PLAINTEXT://[::1]:0,"
      "SASL_SSL://10.0.0.1:9094");
  ASSERT_TRUE(list.ok()) << list.status().to_string();
  ASSERT_EQ(list->size(), 4u);
  EXPECT_EQ((*list)[0].security, SecurityProtocol::kPlaintext);
  EXPECT_EQ((*list)[1].security, SecurityProtocol::kSsl);
  EXPECT_EQ((*list)[1].address.host, "0.0.0.0");
  EXPECT_EQ((*list)[1].address.port, 9093);
  EXPECT_EQ((*list)[2].security, SecurityProtocol::kSaslPlaintext);
  EXPECT_EQ((*list)[2].address.host, "::1");
  EXPECT_EQ((*list)[3].security, SecurityProtocol::kSaslSsl);
  EXPECT_TRUE(parse_listener_list("").ok());
  EXPECT_TRUE(parse_listener_list("").value().empty());
}

TEST(ListenerList, MalformedEntriesNameTheEntry) {
  for (const char* bad : {"127.0.0.1:9092", "TLS://127.0.0.1:9092", "SSL://localhost:9092",
                          "SSL://127.0.0.1", "SSL://127.0.0.1:9092,", "ssl://127.0.0.1:1"}) {
    Result<std::vector<ListenerSpec>> list = parse_listener_list(bad);
    ASSERT_FALSE(list.ok()) << bad;
    EXPECT_EQ(list.status().code(), ErrorCode::kConfig);
    EXPECT_NE(list.status().message().find("listener"), std::string_view::npos) << bad;
  }
  // Advertised addresses may be host names, but not port 0.
  EXPECT_TRUE(parse_advertised_list("SASL_SSL://kafka.example.com:9094").ok());
  EXPECT_FALSE(parse_advertised_list("SASL_SSL://kafka.example.com:0").ok());
}

TEST(ListenerPlan, NativeFirstThenKafkaThenTheListsInOrder) {
  BrokerConfig config;
  config.listen = "127.0.0.1:0";
  config.kafka_listen = "127.0.0.1:0";
  config.listeners = "SSL://127.0.0.1:0";
  config.kafka_listeners = "SASL_SSL://0.0.0.0:0, PLAINTEXT://127.0.0.1:0";
  config.kafka_advertised_listeners = "SASL_SSL://kafka.example.com:9094,PLAINTEXT://127.0.0.1:1";
  Result<std::vector<PlannedListener>> plan = plan_listeners(config);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  ASSERT_EQ(plan->size(), 5u);
  EXPECT_EQ((*plan)[0].name, "native");
  EXPECT_FALSE((*plan)[0].kafka);
  EXPECT_EQ((*plan)[1].name, "kafka");
  EXPECT_EQ((*plan)[2].name, "native SSL");
  EXPECT_EQ((*plan)[3].name, "kafka SASL_SSL");
  ASSERT_TRUE((*plan)[3].advertised.has_value());
  EXPECT_EQ((*plan)[3].advertised->host, "kafka.example.com");
  EXPECT_EQ((*plan)[4].spec.security, SecurityProtocol::kPlaintext);
  EXPECT_EQ((*plan)[4].advertised->port, 1);
}

TEST(ListenerPlan, AdvertisedListenersMustMatchTheListenersOneForOne) {
  BrokerConfig config;
  config.kafka_listeners = "SASL_SSL://0.0.0.0:0, PLAINTEXT://127.0.0.1:0";
  config.kafka_advertised_listeners = "SASL_SSL://kafka.example.com:9094";
  Result<std::vector<PlannedListener>> plan = plan_listeners(config);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("one advertised address per listener"),
            std::string_view::npos);
  config.kafka_advertised_listeners = "PLAINTEXT://a:1, SASL_SSL://b:2";
  plan = plan_listeners(config);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("is PLAINTEXT but listener 1 is SASL_SSL"),
            std::string_view::npos)
      << plan.status().message();
}

}  // namespace
}  // namespace spillway::broker
