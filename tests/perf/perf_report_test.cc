// PerfResult rendering: rates, valid JSON carrying the measured values, and
// the table's contents. Also checks the test's own JSON checker rejects junk.
#include "spillway/perf/perf_report.h"

#include <gtest/gtest.h>

#include <memory>

#include "wellformed.h"

namespace spillway::perf {
namespace {

using spillway::perf::testing::JsonChecker;

PerfResult sample_result(const LatencyHistogram* h) {
  PerfResult r;
  r.mode = "e2e";
  r.latency_origin = "intended send time";
  r.messages = 2'000'000;
  r.bytes = 2'000'000ull * 1'024;
  r.elapsed_ns = 4'000'000'000;
  r.message_bytes = 1'024;
  r.producers = 2;
  r.consumers = 1;
  r.target_rate = 500'000;
  r.latency = h;
  return r;
}

TEST(PerfReport, RatesComeFromCountsAndElapsedTime) {
  const PerfResult r = sample_result(nullptr);
  EXPECT_DOUBLE_EQ(r.messages_per_second(), 500'000.0);
  EXPECT_DOUBLE_EQ(r.megabytes_per_second(), 512.0);
  PerfResult zero;
  EXPECT_EQ(zero.messages_per_second(), 0.0);
}

TEST(PerfReport, JsonIsValidAndCarriesTheNumbers) {
  auto h = std::make_unique<LatencyHistogram>();
  for (uint64_t v = 1; v <= 1'000; ++v) h->record(v * 1'000);  // 1 µs .. 1 ms
  const std::string json = format_json(sample_result(h.get()));
  EXPECT_TRUE(JsonChecker::valid(json)) << json;
  EXPECT_EQ(json.back(), '\n');
  EXPECT_NE(json.find("\"mode\":\"e2e\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"messages\":2000000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"messages_per_s\":500000.0"), std::string::npos) << json;
  EXPECT_NE(json.find("\"target_rate\":500000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"p99.9\":"), std::string::npos) << json;
  EXPECT_NE(json.find("\"max\":1000.000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"count\":1000"), std::string::npos) << json;
}

TEST(PerfReport, JsonWithoutLatencyAndWithAwkwardStringsIsValid) {
  PerfResult r = sample_result(nullptr);
  r.mode = "we\"ird\\mode\n\x01";
  r.elapsed_ns = 0;  // rates would be inf/NaN; JSON has neither
  const std::string json = format_json(r);
  EXPECT_TRUE(JsonChecker::valid(json)) << json;
  EXPECT_EQ(json.find("latency_us"), std::string::npos);
}

// Issue 17: a run that measured no latency (nothing acknowledged) printed
// zeros for every percentile.
TEST(PerfReport, AnEmptyHistogramIsNoLatency) {
  auto h = std::make_unique<LatencyHistogram>();
  PerfResult r = sample_result(h.get());
  r.messages = 0;
  const std::string json = format_json(r);
  EXPECT_TRUE(JsonChecker::valid(json)) << json;
  EXPECT_EQ(json.find("latency"), std::string::npos) << json;
  EXPECT_EQ(format_table(r).find("latency"), std::string::npos) << format_table(r);
}

TEST(PerfReport, JsonCheckerRejectsMalformedText) {
  EXPECT_TRUE(JsonChecker::valid("{\"a\":[1,2.5,-3e4,true,null,\"x\\n\"]}"));
  EXPECT_FALSE(JsonChecker::valid("{\"a\":1,}"));
  EXPECT_FALSE(JsonChecker::valid("{\"a\":nan}"));
  EXPECT_FALSE(JsonChecker::valid("{\"a\":1} x"));
  EXPECT_FALSE(JsonChecker::valid("{\"a\":\"\x01\"}"));
}

TEST(PerfReport, TableShowsRatesAndPercentiles) {
  auto h = std::make_unique<LatencyHistogram>();
  for (int i = 0; i < 99; ++i) h->record(50'000);  // 50 µs
  h->record(7'000'000);                            // 7 ms
  const std::string table = format_table(sample_result(h.get()));
  EXPECT_NE(table.find("e2e: 2,000,000 msgs of 1024 B in 4.00 s"), std::string::npos) << table;
  EXPECT_NE(table.find("500,000 msg/s"), std::string::npos) << table;
  EXPECT_NE(table.find("512.00 MB/s"), std::string::npos) << table;
  EXPECT_NE(table.find("p50 50.0 us"), std::string::npos) << table;
  EXPECT_NE(table.find("max 7.00 ms"), std::string::npos) << table;
}

TEST(PerfReport, NumberFormatting) {
  EXPECT_EQ(group_thousands(0), "0");
  EXPECT_EQ(group_thousands(999), "999");
  EXPECT_EQ(group_thousands(1'000), "1,000");
  EXPECT_EQ(group_thousands(12'345'678), "12,345,678");
  EXPECT_EQ(format_duration_ns(850), "850 ns");
  EXPECT_EQ(format_duration_ns(12'340), "12.3 us");
  EXPECT_EQ(format_duration_ns(4'560'000), "4.56 ms");
  EXPECT_EQ(format_duration_ns(1'230'000'000), "1.23 s");
}

}  // namespace
}  // namespace spillway::perf
