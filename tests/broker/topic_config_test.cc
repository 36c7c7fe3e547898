// Topic metadata: names and the key=value format.
#include "core/topic_config.h"

#include <gtest/gtest.h>

namespace spillway::broker {
namespace {

TEST(TopicConfig, NamesFollowTheRules) {
  EXPECT_TRUE(validate_topic_name("orders.v2_x-1").ok());
  EXPECT_TRUE(validate_topic_name(std::string(249, 'a')).ok());
  EXPECT_FALSE(validate_topic_name(std::string(250, 'a')).ok());
  EXPECT_TRUE(validate_topic_name(".deleted").ok());
  for (const char* bad : {"", ".", "..", "a/b", "a b", "ü", "a\n", ".deleted-1-x"}) {
    EXPECT_EQ(validate_topic_name(bad).code(), ErrorCode::kInvalidArgument) << bad;
  }
}

TEST(TopicConfig, RoundTripsAndRejectsGarbage) {
  TopicConfig c;
  c.partitions = 12;
  c.flush_policy = storage::FlushPolicy::kDurable;
  c.retention_bytes = 1 << 20;
  c.retention_ms = -1;
  c.segment_bytes = 1 << 24;
  Result<TopicConfig> back = parse_topic_config(serialize_topic_config(c));
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->partitions, 12);
  EXPECT_EQ(back->flush_policy, storage::FlushPolicy::kDurable);
  EXPECT_EQ(back->retention_bytes, 1 << 20);
  EXPECT_EQ(back->retention_ms, -1);
  EXPECT_EQ(back->segment_bytes, 1 << 24);
  for (const char* bad : {"", "partitions=0\n", "partitions=x\n", "partitions=1\nwho=2\n",
                          "partitions=1\nflush_policy=never\n", "partitions=1\nnoequals\n",
                          "partitions=1\nretention_ms=-5\n"}) {
    EXPECT_FALSE(parse_topic_config(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace spillway::broker
