// The latency-percentile chart of `spillway perf --plot FILE`: an SVG file a
// browser opens, with the percentile on the x axis on the usual "nines"
// scale (0 %, 90 %, 99 %, 99.9 %, ... equally spaced) and the latency on a
// logarithmic y axis; one curve per series, with axes, labels, title and
// legend.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "spillway/perf/latency_histogram.h"

namespace spillway::perf {

struct PlotSeries {
  std::string label;                            // legend text
  const LatencyHistogram* histogram = nullptr;  // must outlive the render call
};

// The whole SVG document. Series with no values are left out of the curves
// but named in the legend as "(no data)". The x axis runs to the nines the
// largest series can resolve (at least 99 %, at most 99.9999 %).
std::string render_percentile_svg(std::string_view title, std::span<const PlotSeries> series);

// Writes `svg` to `path`. Returns "" on success, else a message naming the
// path and the system error.
std::string write_text_file(const std::string& path, std::string_view text);

}  // namespace spillway::perf
