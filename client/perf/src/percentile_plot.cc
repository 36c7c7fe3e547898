// SVG rendering of latency-percentile curves. Hand-written SVG keeps the
// tool free of plotting dependencies; the layout constants below are the
// whole design.
#include "spillway/perf/percentile_plot.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace spillway::perf {

namespace {

constexpr double kWidth = 900, kHeight = 540;
constexpr double kLeft = 90, kRight = 30, kTop = 56, kBottom = 72;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
constexpr int kCurvePoints = 400;
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};

template <typename... Args>
void appendf(std::string& out, const char* format, Args... args) {
  char buffer[512];
  const int n = std::snprintf(buffer, sizeof buffer, format, args...);
  if (n > 0) out.append(buffer, std::min<size_t>(static_cast<size_t>(n), sizeof buffer - 1));
}

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') out += c;
    }
  }
  return out;
}

// "500 ns", "20 µs", "1 ms", "2.5 s": tick labels, short.
std::string latency_label(double ns) {
  std::string out;
  const char* unit = "ns";
  double v = ns;
  if (ns >= 1e9) {
    v = ns / 1e9, unit = "s";
  } else if (ns >= 1e6) {
    v = ns / 1e6, unit = "ms";
  } else if (ns >= 1e3) {
    v = ns / 1e3, unit = "\xC2\xB5s";  // µs
  }
  appendf(out, "%.3g %s", v, unit);
  return out;
}

// "90%", "99.9%", "99.99%" for 1, 3, 4 nines; "0%" for none.
std::string nines_label(int nines) {
  if (nines == 0) return "0%";
  if (nines == 1) return "90%";
  std::string s = "99";
  if (nines > 2) s += "." + std::string(static_cast<size_t>(nines - 2), '9');
  return s + "%";
}

}  // namespace

std::string render_percentile_svg(std::string_view title, std::span<const PlotSeries> series) {
  // Ranges: x to the nines the biggest series resolves, y over whole decades.
  uint64_t most = 0, lo = UINT64_MAX, hi = 0;
  for (const PlotSeries& s : series) {
    if (s.histogram == nullptr || s.histogram->count() == 0) continue;
    most = std::max(most, s.histogram->count());
    lo = std::min(lo, std::max<uint64_t>(1, s.histogram->min()));
    hi = std::max(hi, std::max<uint64_t>(1, s.histogram->max()));
  }
  const int max_nines =
      std::clamp(static_cast<int>(std::floor(std::log10(std::max<double>(1, most)))), 2, 6);
  if (hi == 0) lo = 1'000, hi = 1'000'000;  // no data: an empty 1 µs .. 1 ms frame
  double y_lo = std::floor(std::log10(static_cast<double>(lo)));
  double y_hi = std::ceil(std::log10(static_cast<double>(hi)));
  if (y_hi <= y_lo) y_hi = y_lo + 1;

  auto x_of = [&](double nines) { return kLeft + kPlotW * nines / max_nines; };
  auto y_of = [&](double ns) {
    const double l = std::log10(std::max(1.0, ns));
    return kTop + kPlotH * (1.0 - (l - y_lo) / (y_hi - y_lo));
  };

  std::string out;
  appendf(out,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
          "viewBox=\"0 0 %g %g\" font-family=\"Helvetica, Arial, sans-serif\">\n",
          kWidth, kHeight, kWidth, kHeight);
  appendf(out, "<rect x=\"0\" y=\"0\" width=\"%g\" height=\"%g\" fill=\"white\"/>\n", kWidth,
          kHeight);
  out += "<text x=\"" + std::to_string(static_cast<int>(kWidth / 2)) +
         "\" y=\"32\" text-anchor=\"middle\" font-size=\"20\" font-weight=\"bold\">" +
         xml_escape(title) + "</text>\n";

  // Grid and tick labels: one vertical line per nine, horizontal lines at
  // 1, 2 and 5 times each power of ten (labelled at the powers of ten).
  out += "<g stroke=\"#dddddd\" stroke-width=\"1\">\n";
  for (int n = 0; n <= max_nines; ++n)
    appendf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x_of(n), kTop,
            x_of(n), kTop + kPlotH);
  for (double d = y_lo; d < y_hi + 0.5; ++d) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double ns = m * std::pow(10.0, d);
      if (std::log10(ns) > y_hi + 1e-9) break;
      appendf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"%s/>\n", kLeft, y_of(ns),
              kLeft + kPlotW, y_of(ns), m == 1.0 ? " stroke=\"#bbbbbb\"" : "");
    }
  }
  out += "</g>\n<g font-size=\"13\" fill=\"#333333\">\n";
  for (int n = 0; n <= max_nines; ++n)
    appendf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x_of(n),
            kTop + kPlotH + 20, nines_label(n).c_str());
  for (double d = y_lo; d < y_hi + 0.5; ++d) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double ns = m * std::pow(10.0, d);
      if (std::log10(ns) > y_hi + 1e-9) break;
      // Label 2x and 5x only when there are few decades, so labels never crowd.
      if (m != 1.0 && y_hi - y_lo > 3) continue;
      appendf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", kLeft - 8,
              y_of(ns) + 4, latency_label(ns).c_str());
    }
  }
  out += "</g>\n";
  appendf(out,
          "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#333333\"/>\n",
          kLeft, kTop, kPlotW, kPlotH);
  appendf(out,
          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"15\">Percentile "
          "(log scale of 1/(1-p))</text>\n",
          kLeft + kPlotW / 2, kHeight - 22);
  appendf(out,
          "<text x=\"22\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"15\" "
          "transform=\"rotate(-90 22 %.1f)\">Latency (log scale)</text>\n",
          kTop + kPlotH / 2, kTop + kPlotH / 2);

  // Curves: sample evenly in "nines" so the tail gets as many points as the body.
  for (size_t i = 0; i < series.size(); ++i) {
    const LatencyHistogram* h = series[i].histogram;
    if (h == nullptr || h->count() == 0) continue;
    appendf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
            kColours[i % std::size(kColours)]);
    for (int j = 0; j <= kCurvePoints; ++j) {
      const double nines = static_cast<double>(max_nines) * j / kCurvePoints;
      const double p = 100.0 * (1.0 - std::pow(10.0, -nines));
      appendf(out, "%s%.1f,%.1f", j ? " " : "", x_of(nines),
              y_of(static_cast<double>(h->value_at_percentile(p))));
    }
    out += "\"/>\n";
  }

  // Legend, top left inside the plot (latency curves rise to the right),
  // as wide as its longest line: ~7.5 px per character at 13 px.
  std::vector<std::string> legend;
  size_t longest = 0;
  for (const PlotSeries& s : series) {
    const LatencyHistogram* h = s.histogram;
    std::string text = s.label;
    if (h == nullptr || h->count() == 0) {
      text += " (no data)";
    } else {
      text += " (p99 " + latency_label(static_cast<double>(h->value_at_percentile(99.0))) + ")";
    }
    longest = std::max(longest, text.size());
    legend.push_back(xml_escape(text));
  }
  const double legend_w = std::min(kPlotW - 20, 50 + 7.5 * static_cast<double>(longest));
  const double legend_h = 10 + 20.0 * static_cast<double>(series.size());
  appendf(out,
          "<rect x=\"%g\" y=\"%g\" width=\"%.0f\" height=\"%g\" fill=\"white\" "
          "fill-opacity=\"0.9\" stroke=\"#999999\"/>\n",
          kLeft + 10, kTop + 10, legend_w, legend_h);
  for (size_t i = 0; i < series.size(); ++i) {
    const double y = kTop + 10 + 20.0 * static_cast<double>(i) + 17;
    const std::string& text = legend[i];
    appendf(
        out,
        "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
        kLeft + 20, y - 4, kLeft + 44, y - 4, kColours[i % std::size(kColours)]);
    out += "<text x=\"" + std::to_string(static_cast<int>(kLeft + 52)) + "\" y=\"" +
           std::to_string(static_cast<int>(y)) + "\" font-size=\"13\">" + text + "</text>\n";
  }
  out += "</svg>\n";
  return out;
}

std::string write_text_file(const std::string& path, std::string_view text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return path + ": " + std::strerror(errno);
  const size_t written = std::fwrite(text.data(), 1, text.size(), f);
  const bool ok = written == text.size() && std::fflush(f) == 0;
  const int saved = errno;
  if (std::fclose(f) != 0 || !ok) return path + ": " + std::strerror(ok ? errno : saved);
  return "";
}

}  // namespace spillway::perf
