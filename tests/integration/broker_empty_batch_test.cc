// Empty record batches (record count 0) against the real broker: refused per
// partition with invalid_argument, as Kafka refuses them from clients
// (docs/protocol.md, Produce); nothing is appended and no offset is used.
#include <gtest/gtest.h>

#include "broker_process.h"
#include "broker_wire_client.h"

namespace spillway::testing {
namespace {

TEST(BrokerEmptyBatch, IsRefusedAndUsesNoOffset) {
  auto broker = BrokerProcess::start({.args = {"--threads", "2"}});
  ASSERT_TRUE(broker.ok()) << broker.status().to_string();
  WireClient client((*broker)->port());
  ASSERT_EQ(client.create_topic("t", 2), ErrorCode::kOk);

  for (auto compression : {batch::Compression::kNone, batch::Compression::kZstd}) {
    const auto empty = make_batch({}, compression);
    ASSERT_FALSE(empty.empty());
    ASSERT_TRUE(batch::validate(empty, 1 << 20).ok()) << "well-formed, only empty";
    // An explicit partition and routing by key (-1) alike.
    for (int32_t partition : {0, -1}) {
      auto r = client.produce("t", partition, empty);
      ASSERT_EQ(r.size(), 1u) << "partition " << partition;
      EXPECT_EQ(r[0].code, ErrorCode::kInvalidArgument) << r[0].message;
      EXPECT_NE(r[0].message.find("no records"), std::string::npos) << r[0].message;
      EXPECT_EQ(r[0].base_offset, -1);
    }
  }
  for (int32_t p : {0, 1}) EXPECT_EQ(client.fetch("t", p, 0).high_watermark, 0) << p;

  // The next real batch gets offset 0.
  auto r = client.produce("t", 0, make_batch({{"k", "v"}}));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].code, ErrorCode::kOk) << r[0].message;
  EXPECT_EQ(r[0].base_offset, 0);
  EXPECT_EQ(client.fetch("t", 0, 0).high_watermark, 1);
}

}  // namespace
}  // namespace spillway::testing
