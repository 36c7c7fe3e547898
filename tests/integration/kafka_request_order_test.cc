// Kafka requests on one connection are answered in order, and a Metadata
// request describes the cluster as it is once every request before it on
// its connection has been answered, not as it was when it arrived (Kafka
// handles one request per connection at a time). Metadata that waited
// behind a long request and then named a leader that had moved on in the
// meantime sent librdkafka 2.0.2 to a dead broker for good (a leader
// SIGKILL during acks=all produce, tests/replicated/): its answers arrived
// late next to fresher ones from other brokers, and librdkafka took the
// last to arrive.
#include <gtest/gtest.h>

#include <string>

#include "broker_process.h"
#include "broker_wire_client.h"
#include "kafka_wire_client.h"
#include "spillway/common/kafka/error_codes.h"
#include "spillway/common/kafka/fetch.h"
#include "spillway/common/kafka/metadata.h"

namespace spillway::testing {
namespace {

using kafka::FetchRequest;
using kafka::FetchResponse;
using kafka::MetadataRequest;
using kafka::MetadataResponse;

TEST(KafkaRequestOrder, MetadataBehindALongPollDescribesTheClusterWhenItIsAnswered) {
  auto broker = BrokerProcess::start({});
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  WireClient native((*broker)->port());
  ASSERT_EQ(native.create_topic("polled", 1), ErrorCode::kOk);
  KafkaWireClient kafka((*broker)->kafka_port());
  ASSERT_TRUE(kafka.connected());

  // A long poll at the end of an empty partition: answered only when a
  // record arrives (max wait far beyond the test).
  FetchRequest fetch;
  fetch.max_wait_ms = 600'000;
  fetch.min_bytes = 1;
  fetch.max_bytes = 1 << 20;
  FetchRequest::Partition part;
  part.partition = 0;
  part.fetch_offset = 0;
  part.partition_max_bytes = 1 << 20;
  const std::array<FetchRequest::Partition, 1> parts{part};
  const std::array<FetchRequest::Topic, 1> topics{{{.topic = "polled", .partitions = parts}}};
  fetch.topics = topics;
  ASSERT_TRUE(kafka.send(fetch, 11, 1));
  // Metadata for every topic, pipelined behind it.
  MetadataRequest all;
  all.topics = wire::Array<MetadataRequest::Topic>::null();
  all.allow_auto_topic_creation = false;
  ASSERT_TRUE(kafka.send(all, 9, 2));

  // The cluster changes while both wait; then the poll gets its record.
  ASSERT_EQ(native.create_topic("created-meanwhile", 2), ErrorCode::kOk);
  auto produced = native.produce("polled", 0, make_batch({{"k", "v"}}));
  ASSERT_EQ(produced.size(), 1u);
  ASSERT_EQ(produced[0].code, ErrorCode::kOk) << produced[0].message;

  auto fetched = kafka.read<FetchResponse>(11);
  ASSERT_TRUE(fetched.has_value());
  EXPECT_EQ(fetched->correlation_id, 1);
  auto reply = kafka.read<MetadataResponse>(9);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(reply->correlation_id, 2);
  auto metadata =
      wire::decode<MetadataResponse>(reply->body, kafka::context<MetadataResponse>(9), "");
  ASSERT_TRUE(metadata.ok()) << metadata.status().to_string();
  bool found = false;
  std::string names;
  for (const MetadataResponse::Topic& t : metadata->topics) {
    const std::string name(t.name.value_or(""));
    found = found || name == "created-meanwhile";
    names += " " + name;
  }
  EXPECT_TRUE(found) << "the Metadata answer (topics:" << names
                     << ") was computed before the request ahead of it was answered";
}

}  // namespace
}  // namespace spillway::testing
