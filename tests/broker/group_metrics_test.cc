// Label escaping of the group metrics (broker/metrics/group_metrics.h):
// group names are any bytes, and the Prometheus text format needs
// backslash, double quote and newline escaped in a label value.
#include "metrics/group_metrics.h"

#include <gtest/gtest.h>

namespace spillway::broker {
namespace {

TEST(GroupMetrics, LabelValuesAreEscaped) {
  EXPECT_EQ(escape_label_value("billing"), "billing");
  EXPECT_EQ(escape_label_value(""), "");
  EXPECT_EQ(escape_label_value("a\"b"), "a\\\"b");
  EXPECT_EQ(escape_label_value("a\\b"), "a\\\\b");
  EXPECT_EQ(escape_label_value("a\nb"), "a\\nb");
  EXPECT_EQ(escape_label_value("\\\"\n"), "\\\\\\\"\\n");
  // Other bytes pass as they are (the format is UTF-8; a name that is not
  // stays the bytes it is).
  EXPECT_EQ(escape_label_value("caf\xc3\xa9\t}"), "caf\xc3\xa9\t}");
}

}  // namespace
}  // namespace spillway::broker
