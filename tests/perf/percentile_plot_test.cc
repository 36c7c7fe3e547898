// The SVG chart: well-formed XML with an <svg> root, one curve per series
// with data, escaped labels, axis labels on the nines scale.
#include "spillway/perf/percentile_plot.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <vector>

#include "wellformed.h"

namespace spillway::perf {
namespace {

using spillway::perf::testing::xml_problem;

size_t occurrences(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(PercentilePlot, IsWellFormedSvgWithACurvePerSeries) {
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> fast(10.5, 0.4), slow(12.0, 0.9);
  auto a = std::make_unique<LatencyHistogram>();
  auto b = std::make_unique<LatencyHistogram>();
  for (int i = 0; i < 100'000; ++i) {
    a->record(static_cast<uint64_t>(fast(rng)));
    b->record(static_cast<uint64_t>(slow(rng)));
  }
  LatencyHistogram empty;
  const std::vector<PlotSeries> series = {
      {"spillway <e2e> & friends", a.get()}, {"peer", b.get()}, {"idle", &empty}};
  const std::string svg = render_percentile_svg("Latency at 20,000 msg/s", series);
  std::string root;
  EXPECT_EQ(xml_problem(svg, &root), "") << svg;
  EXPECT_EQ(root, "svg");
  EXPECT_EQ(occurrences(svg, "<polyline"), 2u);  // the empty series has no curve
  EXPECT_NE(svg.find("spillway &lt;e2e&gt; &amp; friends"), std::string::npos);
  EXPECT_NE(svg.find("idle (no data)"), std::string::npos);
  EXPECT_NE(svg.find("Latency at 20,000 msg/s"), std::string::npos);
  // 100,000 values resolve 5 nines: ticks 0% .. 99.999%.
  EXPECT_NE(svg.find(">0%<"), std::string::npos);
  EXPECT_NE(svg.find(">99.9%<"), std::string::npos);
  EXPECT_NE(svg.find(">99.999%<"), std::string::npos);
  EXPECT_EQ(svg.find(">99.9999%<"), std::string::npos);
}

TEST(PercentilePlot, NoDataStillRendersAFrame) {
  const std::string svg = render_percentile_svg("nothing", {});
  EXPECT_EQ(xml_problem(svg, nullptr), "");
  EXPECT_EQ(occurrences(svg, "<polyline"), 0u);
}

TEST(PercentilePlot, XmlCheckerRejectsMalformedDocuments) {
  EXPECT_EQ(xml_problem("<svg><g a=\"1\"/></svg>", nullptr), "");
  EXPECT_NE(xml_problem("<svg><g></svg>", nullptr), "");
  EXPECT_NE(xml_problem("<svg a=1></svg>", nullptr), "");
  EXPECT_NE(xml_problem("<svg>a & b</svg>", nullptr), "");
  EXPECT_NE(xml_problem("<svg></svg><svg></svg>", nullptr), "");
}

TEST(PercentilePlot, WriteTextFileWritesOrExplains) {
  const std::string path = ::testing::TempDir() + "/spillway_perf_plot_test.svg";
  EXPECT_EQ(write_text_file(path, "<svg/>\n"), "");
  std::ifstream in(path);
  std::stringstream back;
  back << in.rdbuf();
  EXPECT_EQ(back.str(), "<svg/>\n");
  std::remove(path.c_str());
  const std::string error = write_text_file("/nonexistent-dir/x.svg", "x");
  EXPECT_NE(error.find("/nonexistent-dir/x.svg"), std::string::npos) << error;
}

}  // namespace
}  // namespace spillway::perf
