#include "eval/report/chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "eval/report/drawing.hpp"
#include "eval/report/report.hpp"

namespace invar::report {

using namespace drawing;

const std::vector<std::string>& palette() {
  static const std::vector<std::string> colours{"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                                "#56B4E9", "#D55E00", "#F0E442", "#000000"};
  return colours;
}

std::string svg(const BarChart& chart) {
  for (const auto& series : chart.series) {
    if (series.values.size() != chart.categories.size())
      fail("bar chart '{}': series '{}' has {} values for {} categories", chart.title, series.name,
           series.values.size(), chart.categories.size());
    if (!series.errors.empty() && series.errors.size() != series.values.size())
      fail("bar chart '{}': series '{}' has {} error bars for {} values", chart.title, series.name,
           series.errors.size(), series.values.size());
  }
  double low = 0, high = 0;
  for (const auto& series : chart.series)
    for (std::size_t i = 0; i < series.values.size(); ++i) {
      double error = series.errors.empty() ? 0.0 : std::abs(series.errors[i]);
      if (std::isfinite(series.values[i])) {
        high = std::max(high, series.values[i] + error);
        low = std::min(low, series.values[i] - error);
      }
    }
  Axis axis = nice_axis(low, chart.y_max.value_or(high > 0 ? high * 1.08 : 1.0));
  if (chart.y_max) axis.high = *chart.y_max;
  std::string out = header(chart.width, chart.height, chart.title);
  std::vector<std::string> names;
  for (const auto& series : chart.series) names.push_back(series.name);
  int legend_rows = legend(out, names, chart.width);
  Frame frame{kLeftMargin, kTitleHeight + kLegendHeight * legend_rows + 14.0, chart.width - kRightMargin * 1.0,
              chart.height - kBottomMargin * 1.0};
  out += y_axis(frame, axis, chart.y_label);

  const double group = (frame.right - frame.left) / static_cast<double>(std::max<std::size_t>(1, chart.categories.size()));
  const double bar = group * 0.8 / static_cast<double>(std::max<std::size_t>(1, chart.series.size()));
  const double zero = frame.y_of(axis, std::clamp(0.0, axis.low, axis.high));
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    double group_left = frame.left + group * static_cast<double>(c) + group * 0.1;
    for (std::size_t s = 0; s < chart.series.size(); ++s) {
      const auto& series = chart.series[s];
      double value = series.values[c];
      if (!std::isfinite(value)) continue;
      double x = group_left + bar * static_cast<double>(s);
      double y = frame.y_of(axis, std::clamp(value, axis.low, axis.high));
      std::string tip = fmt::format("{} — {}: {:.{}f}", chart.categories[c], series.name, value,
                                    std::max(chart.value_decimals, 0) + 2);
      if (!series.errors.empty()) tip += fmt::format(" ± {:.{}f}", series.errors[c], std::max(chart.value_decimals, 0) + 2);
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{}</title></rect>\n", x,
          std::min(y, zero), std::max(bar - 2, 1.0), std::abs(zero - y), palette()[s % palette().size()],
          html_escape(tip));
      double label_y = std::min(y, zero) - 4;
      if (!series.errors.empty() && series.errors[c] > 0) {
        double cx = x + bar / 2 - 1;
        double top = frame.y_of(axis, std::min(value + series.errors[c], axis.high));
        double bottom = frame.y_of(axis, std::max(value - series.errors[c], axis.low));
        out += fmt::format(
            "<path d=\"M{0:.1f} {1:.1f}V{2:.1f}M{3:.1f} {1:.1f}H{4:.1f}M{3:.1f} {2:.1f}H{4:.1f}\" stroke=\"#333333\" "
            "fill=\"none\"/>\n",
            cx, top, bottom, cx - 4, cx + 4);
        label_y = std::min(label_y, top - 4);
      }
      if (chart.value_decimals >= 0)
        out += text(x + bar / 2 - 1, label_y, fmt::format("{:.{}f}", value, chart.value_decimals),
                    "text-anchor=\"middle\" font-size=\"10\" fill=\"#333333\"");
    }
    out += text(frame.left + group * (static_cast<double>(c) + 0.5), frame.bottom + 16, chart.categories[c],
                "text-anchor=\"middle\"");
  }
  out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333333\"/>\n", frame.left,
                     zero, frame.right, zero);
  out += text((frame.left + frame.right) / 2, chart.height - 10.0, chart.x_label, "text-anchor=\"middle\"");
  return out + "</svg>\n";
}

namespace {

std::pair<double, double> data_range(const std::vector<ScatterSeries>& series, bool use_x) {
  double low = INFINITY, high = -INFINITY;
  for (const auto& s : series)
    for (double v : use_x ? s.x : s.y)
      if (std::isfinite(v)) {
        low = std::min(low, v);
        high = std::max(high, v);
      }
  if (!std::isfinite(low)) return {0, 1};
  double margin = high > low ? (high - low) * 0.05 : 0.5;
  return {low - margin, high + margin};
}

}  // namespace

std::string svg(const ScatterPlot& plot) {
  for (const auto& series : plot.series) {
    if (series.x.size() != series.y.size())
      fail("scatter plot '{}': series '{}' has {} x and {} y values", plot.title, series.name, series.x.size(),
           series.y.size());
    if (!series.tooltips.empty() && series.tooltips.size() != series.x.size())
      fail("scatter plot '{}': series '{}' has {} tooltips for {} points", plot.title, series.name,
           series.tooltips.size(), series.x.size());
  }
  auto [x_low, x_high] = plot.x_range.value_or(data_range(plot.series, true));
  auto [y_low, y_high] = plot.y_range.value_or(data_range(plot.series, false));
  Axis x_axis = nice_axis(x_low, x_high), y_axis_range = nice_axis(y_low, y_high);
  if (plot.x_range) std::tie(x_axis.low, x_axis.high) = *plot.x_range;
  if (plot.y_range) std::tie(y_axis_range.low, y_axis_range.high) = *plot.y_range;
  std::string out = header(plot.width, plot.height, plot.title);
  std::vector<std::string> names;
  for (const auto& series : plot.series) names.push_back(series.name);
  for (const auto& line : plot.lines)
    if (!line.name.empty()) names.push_back(line.name);
  int legend_rows = legend(out, names, plot.width);
  Frame frame{kLeftMargin, kTitleHeight + kLegendHeight * legend_rows + 14.0, plot.width - kRightMargin * 1.0,
              plot.height - kBottomMargin * 1.0};
  out += y_axis(frame, y_axis_range, plot.y_label);
  for (double v : ticks(x_axis)) {
    if (v < x_axis.low - 1e-12 || v > x_axis.high + 1e-12) continue;
    double x = frame.x_of(x_axis, v);
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e0e0e0\"/>\n", x,
                       frame.top, frame.bottom);
    out += text(x, frame.bottom + 16, fmt::format("{:.{}f}", v, x_axis.decimals), "text-anchor=\"middle\"");
  }
  out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#333333\"/>\n",
                     frame.left, frame.right, frame.bottom);
  out += text((frame.left + frame.right) / 2, plot.height - 10.0, plot.x_label, "text-anchor=\"middle\"");

  std::size_t colour = plot.series.size();
  for (const auto& line : plot.lines) {
    // The part of y = a x + b inside the plotted rectangle.
    double from = x_axis.low, to = x_axis.high;
    if (line.slope != 0) {
      double a = (y_axis_range.low - line.intercept) / line.slope, b = (y_axis_range.high - line.intercept) / line.slope;
      from = std::max(from, std::min(a, b));
      to = std::min(to, std::max(a, b));
    } else if (line.intercept < y_axis_range.low || line.intercept > y_axis_range.high) {
      to = from - 1;
    }
    std::string stroke = line.name.empty() ? "#888888" : palette()[colour++ % palette().size()];
    if (from < to)
      out += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-dasharray=\"5 4\"/>\n",
          frame.x_of(x_axis, from), frame.y_of(y_axis_range, line.slope * from + line.intercept),
          frame.x_of(x_axis, to), frame.y_of(y_axis_range, line.slope * to + line.intercept), stroke);
  }
  for (std::size_t s = 0; s < plot.series.size(); ++s) {
    const auto& series = plot.series[s];
    if (series.connected) {
      std::string points;
      for (std::size_t i = 0; i < series.x.size(); ++i)
        if (std::isfinite(series.x[i]) && std::isfinite(series.y[i]))
          points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", frame.x_of(x_axis, series.x[i]),
                                frame.y_of(y_axis_range, series.y[i]));
      out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", points,
                         palette()[s % palette().size()]);
    }
    for (std::size_t i = 0; i < series.x.size(); ++i) {
      double x = series.x[i], y = series.y[i];
      if (!std::isfinite(x) || !std::isfinite(y) || x < x_axis.low || x > x_axis.high || y < y_axis_range.low ||
          y > y_axis_range.high)
        continue;
      std::string tip = series.tooltips.empty() ? fmt::format("({:.4g}, {:.4g})", x, y) : series.tooltips[i];
      out += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\" fill-opacity=\"0.7\"><title>{}</title></circle>\n",
          frame.x_of(x_axis, x), frame.y_of(y_axis_range, y), palette()[s % palette().size()], html_escape(tip));
    }
  }
  return out + "</svg>\n";
}

namespace {

// White at 0, towards Okabe–Ito blue (#0072B2) at +1 and vermillion (#D55E00) at −1.
std::string diverging_colour(double v) {
  if (std::isnan(v)) return "#d9d9d9";
  const double t = std::min(1.0, std::fabs(v));
  const int target[3] = {v >= 0 ? 0x00 : 0xD5, v >= 0 ? 0x72 : 0x5E, v >= 0 ? 0xB2 : 0x00};
  int rgb[3];
  for (int c = 0; c < 3; ++c) rgb[c] = static_cast<int>(std::lround(255 + (target[c] - 255) * t));
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

}  // namespace

std::string svg(const HeatMap& map) {
  const std::size_t n = map.labels.size();
  if (map.values.size() != n)
    fail("heat map '{}': {} labels but {} rows of values", map.title, n, map.values.size());
  for (const auto& row : map.values)
    if (row.size() != n) fail("heat map '{}': a row has {} values for {} labels", map.title, row.size(), n);
  double label_width = 0;
  for (const auto& label : map.labels) label_width = std::max(label_width, 7.0 * static_cast<double>(display_width(label)));
  const double left = label_width + 16, top = kTitleHeight + label_width + 12;
  const int width = static_cast<int>(left + static_cast<double>(n * map.cell) + kRightMargin);
  const int height = static_cast<int>(top + static_cast<double>(n * map.cell) + 12);
  std::string out = header(width, height, map.title);
  for (std::size_t i = 0; i < n; ++i) {
    const double y = top + static_cast<double>(i * map.cell), x = left + static_cast<double>(i * map.cell);
    out += text(left - 6, y + map.cell / 2.0 + 4, map.labels[i], "text-anchor=\"end\"");
    out += text(x + map.cell / 2.0 + 4, top - 6, map.labels[i],
                fmt::format("text-anchor=\"start\" transform=\"rotate(-90 {:.1f} {:.1f})\"", x + map.cell / 2.0 + 4,
                            top - 6));
    for (std::size_t j = 0; j < n; ++j) {
      const double v = map.values[i][j], cx = left + static_cast<double>(j * map.cell);
      out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#ffffff\">"
                         "<title>{} / {}: {}</title></rect>\n",
                         cx, y, map.cell, map.cell, diverging_colour(v), html_escape(map.labels[i]),
                         html_escape(map.labels[j]), std::isnan(v) ? "undefined" : fmt::format("{:.4f}", v));
      out += text(cx + map.cell / 2.0, y + map.cell / 2.0 + 4, std::isnan(v) ? "–" : fmt::format("{:.2f}", v),
                  fmt::format("text-anchor=\"middle\" font-size=\"11\" fill=\"{}\"",
                              std::fabs(v) > 0.6 ? "#ffffff" : "#000000"));
    }
  }
  return out + "</svg>\n";
}

}  // namespace invar::report
