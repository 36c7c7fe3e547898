// The key layout and the strict, bounded decoding of values.
#include "cluster/cluster_keys.h"

#include <gtest/gtest.h>

namespace spillway::broker::cluster {
namespace {

TEST(ClusterKeys, LayoutAndParse) {
  ClusterKeys k("prod");
  EXPECT_EQ(k.broker(3), "/spillway/prod/brokers/3");
  EXPECT_EQ(k.controller(), "/spillway/prod/controller");
  EXPECT_EQ(k.topic("a.b"), "/spillway/prod/topics/a.b");
  EXPECT_EQ(k.partition("a.b", 7), "/spillway/prod/partitions/a.b/7");
  EXPECT_EQ(k.parse(k.broker(3)).kind, ClusterKeys::Parsed::Kind::kBroker);
  EXPECT_EQ(k.parse(k.broker(3)).broker, 3);
  auto p = k.parse(k.partition("a.b", 7));
  EXPECT_EQ(p.kind, ClusterKeys::Parsed::Kind::kPartition);
  EXPECT_EQ(p.topic, "a.b");
  EXPECT_EQ(p.partition, 7);
  for (const char* bad : {"/spillway/prod/brokers/-1", "/spillway/prod/brokers/01",
                          "/spillway/prod/brokers/99999999999", "/spillway/prod/brokers/x",
                          "/spillway/prod/partitions/t/x", "/spillway/prod/partitions/t",
                          "/spillway/prod/topics/bad name", "/spillway/other/controller",
                          "/spillway/prod/partitions/t/100000"}) {
    EXPECT_EQ(k.parse(bad).kind, ClusterKeys::Parsed::Kind::kUnknown) << bad;
  }
}

TEST(ClusterKeys, RoundTrips) {
  BrokerInfo b;
  b.native_address = "h:1";
  b.kafka_address = "h:2";
  b.rack = "r1";
  b.shutting_down = true;
  auto b2 = decode_broker(encode_broker(b), 4, 99);
  ASSERT_TRUE(b2.ok());
  EXPECT_EQ(b2->id, 4);
  EXPECT_EQ(b2->epoch, 99);
  EXPECT_EQ(b2->rack, "r1");
  EXPECT_TRUE(b2->shutting_down);

  TopicAssignment t;
  t.replicas = {{1, 2}, {2, 3}};
  t.reassigning[1] =
      Reassignment{.target = {3, 4}, .original = {1, 2}, .throttle_bytes_per_sec = 65536};
  t.reassigning[0] = Reassignment{.target = {2}};
  t.settings.unclean_leader_election = 1;
  t.settings.min_insync_replicas = 2;
  auto t2 = decode_topic(encode_topic(t), "t");
  ASSERT_TRUE(t2.ok());
  EXPECT_EQ(t2->replicas, t.replicas);
  EXPECT_EQ(t2->reassigning, t.reassigning);
  EXPECT_EQ(t2->settings.unclean_leader_election, 1);
  EXPECT_EQ(t2->settings.min_insync_replicas, 2);

  PartitionState p;
  p.leader = 2;
  p.leader_epoch = 5;
  p.isr = {2, 1};
  p.controller_epoch = 77;
  auto p2 = decode_partition(encode_partition(p));
  ASSERT_TRUE(p2.ok());
  EXPECT_EQ(p2->leader, 2);
  EXPECT_EQ(p2->leader_epoch, 5);
  EXPECT_EQ(p2->isr, p.isr);
  EXPECT_EQ(p2->controller_epoch, 77);
}

TEST(ClusterKeys, RefusesMalformedValues) {
  const std::string deep(10'000, '[');
  for (
      const std::string& v :
      {std::string("{not json"), std::string("[]"), std::string("null"), deep,
       std::string(R"({"leader":1,"leader_epoch":0,"isr":[],"controller_epoch":1})"),
       std::string(R"({"leader":1,"leader_epoch":0,"isr":[1,1],"controller_epoch":1})"),
       std::string(R"({"leader":-2,"leader_epoch":0,"isr":[1],"controller_epoch":1})"),
       std::string(R"({"leader":1,"leader_epoch":-1,"isr":[1],"controller_epoch":1})"),
       std::string(R"({"leader":1,"leader_epoch":"0","isr":[1],"controller_epoch":1})"),
       std::string(
           R"({"leader":18446744073709551615,"leader_epoch":0,"isr":[1],"controller_epoch":1})"),
       std::string(R"({"leader":1,"leader_epoch":0,"isr":[3000000000],"controller_epoch":1})"),
       std::string(
           R"({"leader":1,"leader_epoch":0,"isr":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17],"controller_epoch":1})")}) {
    EXPECT_EQ(decode_partition(v).status().code(), ErrorCode::kCorruptMessage) << v.substr(0, 80);
  }
  EXPECT_FALSE(decode_broker(R"({"native":5})", 1, 1).ok());
  EXPECT_FALSE(decode_broker(R"({"native":")" + std::string(300, 'x') + "\"}", 1, 1).ok());
  EXPECT_FALSE(decode_broker(std::string(kMaxValueBytes + 1, ' '), 1, 1).ok());
  EXPECT_FALSE(decode_controller(R"({"broker":-1})").ok());
  EXPECT_FALSE(decode_topic(R"({"replicas":[]})", "t").ok());
  EXPECT_FALSE(decode_topic(R"({"replicas":[[1]],"reassigning":{"5":[1]}})", "t").ok());
  EXPECT_FALSE(
      decode_topic(R"({"replicas":[[1]],"settings":{"unclean_leader_election":2}})", "t").ok());
  // Unknown fields are ignored (a newer broker may add some).
  EXPECT_TRUE(decode_controller(R"({"broker":1,"since":"later"})").ok());
}

// A move's details ("moves") beside its target ("reassigning", the shape
// older brokers read): strict when present, optional, and ignored for a
// partition that is not being moved.
TEST(ClusterKeys, MovesDetails) {
  auto old = decode_topic(R"({"replicas":[[1,2]],"reassigning":{"0":[2,3]}})", "t");
  ASSERT_TRUE(old.ok()) << old.status().to_string();
  EXPECT_EQ(old->reassigning.at(0), (Reassignment{.target = {2, 3}}));
  auto stale = decode_topic(
      R"({"replicas":[[1,2],[1]],"reassigning":{},"moves":{"1":{"from":[1],"throttle":5}}})", "t");
  ASSERT_TRUE(stale.ok()) << stale.status().to_string();
  EXPECT_TRUE(stale->reassigning.empty());
  for (const char* v : {
           R"({"replicas":[[1]],"reassigning":{"0":[2]},"moves":[]})",
           R"({"replicas":[[1]],"reassigning":{"0":[2]},"moves":{"1":{"throttle":1}}})",
           R"({"replicas":[[1]],"reassigning":{"0":[2]},"moves":{"0":{"throttle":-1}}})",
           R"({"replicas":[[1]],"reassigning":{"0":[2]},"moves":{"0":{"from":[1,1]}}})",
           R"({"replicas":[[1]],"reassigning":{"0":[2]},"moves":{"0":5}})",
       }) {
    EXPECT_EQ(decode_topic(v, "t").status().code(), ErrorCode::kCorruptMessage) << v;
  }
}

TEST(ClusterKeys, GroupOffsets) {
  ClusterKeys keys("prod");
  // Outside the watched prefix; any bytes of a group name, hex-encoded.
  EXPECT_EQ(keys.group_offsets(std::string("g/\x01", 3)), "/spillway-groups/prod/offsets/672f01");
  EXPECT_NE(keys.group_offsets("g").rfind(keys.prefix(), 0), 0u);
  const std::vector<GroupOffset> offsets = {{"orders", 0, 42}, {"orders", 7, 0}};
  Result<std::vector<GroupOffset>> back = decode_group_offsets(encode_group_offsets(offsets));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].topic, "orders");
  EXPECT_EQ((*back)[1].partition, 7);
  EXPECT_EQ((*back)[0].offset, 42);
  for (const char* bad :
       {R"({})", R"({"offsets":{}})", R"({"offsets":[["t",0]]})", R"({"offsets":[["t",-1,5]]})",
        R"({"offsets":[["t",0,-3]]})", R"({"offsets":[["",0,1]]})", R"({"offsets":[[1,0,1]]})",
        R"({"offsets":[["t",0,18446744073709551615]]})"}) {
    EXPECT_EQ(decode_group_offsets(bad).status().code(), ErrorCode::kCorruptMessage) << bad;
  }
}

}  // namespace
}  // namespace spillway::broker::cluster
