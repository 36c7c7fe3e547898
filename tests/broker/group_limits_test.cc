// [groups] in a config file becomes the coordinator's GroupLimits; a
// minimum session timeout above the maximum is a config error.
#include "config/group_limits.h"

#include <gtest/gtest.h>

#include "config/config_file.h"

namespace spillway::broker {
namespace {

TEST(GroupLimitsConfig, TheGroupsSectionSetsEveryLimit) {
  BrokerConfig config;
  ASSERT_TRUE(apply_config_text(R"(
[groups]
min_session_timeout_ms = 100
max_session_timeout_ms = 2000
initial_rebalance_delay_ms = 0
max_group_size = 5
max_groups = 7
max_protocols = 3
max_metadata_bytes = 1000
max_assignment_bytes = 2000
)",
                                "test.toml", config)
                  .ok());
  Result<groups::GroupLimits> limits = group_limits(config);
  ASSERT_TRUE(limits.ok());
  EXPECT_EQ(limits->min_session_timeout, std::chrono::milliseconds(100));
  EXPECT_EQ(limits->max_session_timeout, std::chrono::milliseconds(2000));
  EXPECT_EQ(limits->initial_rebalance_delay, std::chrono::milliseconds(0));
  EXPECT_EQ(limits->max_group_size, 5u);
  EXPECT_EQ(limits->max_groups, 7u);
  EXPECT_EQ(limits->max_protocols, 3u);
  EXPECT_EQ(limits->max_metadata_bytes, 1000u);
  EXPECT_EQ(limits->max_assignment_bytes, 2000u);
}

TEST(GroupLimitsConfig, AMinimumAboveTheMaximumIsRefused) {
  BrokerConfig config;
  config.group_min_session_timeout_ms = 5000;
  config.group_max_session_timeout_ms = 4000;
  Result<groups::GroupLimits> limits = group_limits(config);
  EXPECT_EQ(limits.status().code(), ErrorCode::kConfig);
  EXPECT_NE(limits.status().message().find("min_session_timeout_ms"), std::string::npos);
}

TEST(GroupLimitsConfig, OutOfRangeValuesNameTheKey) {
  BrokerConfig config;
  Status st = apply_config_text("[groups]\nmax_group_size = 0\n", "test.toml", config);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("max_group_size"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace spillway::broker
