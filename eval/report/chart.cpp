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
    if (chart.stacked && !series.errors.empty())
      fail("bar chart '{}': series '{}' has error bars, which a stacked chart cannot show", chart.title, series.name);
  }
  double low = 0, high = 0;
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    double stack_top = 0, stack_bottom = 0;
    for (const auto& series : chart.series) {
      const double value = series.values[c];
      if (!std::isfinite(value)) continue;
      if (chart.stacked) {
        (value >= 0 ? stack_top : stack_bottom) += value;
        high = std::max(high, stack_top);
        low = std::min(low, stack_bottom);
        continue;
      }
      const double error = series.errors.empty() ? 0.0 : std::abs(series.errors[c]);
      high = std::max(high, value + error);
      low = std::min(low, value - error);
    }
  }
  Axis axis = nice_axis(chart.y_min.value_or(low), chart.y_max.value_or(high > 0 ? high * 1.08 : 1.0));
  if (chart.y_min) axis.low = *chart.y_min;
  if (chart.y_max) axis.high = *chart.y_max;
  const double group = (chart.width - kLeftMargin - kRightMargin) / static_cast<double>(std::max<std::size_t>(1, chart.categories.size()));
  const auto labels = layout_categories(chart.categories, group);
  const double height = chart.height + std::max(0.0, labels.height - kLineHeight - 6);
  // Rotated labels reach left of their bars: the chart grows to the left by what the longest
  // reaches past its edge.
  double shift = 0;
  if (labels.rotated)
    for (std::size_t c = 0; c < chart.categories.size(); ++c)
      shift = std::max(shift, text_width(chart.categories[c]) * std::cos(kLabelAngle * M_PI / 180) + 4 -
                                  (kLeftMargin + group * (static_cast<double>(c) + 0.5)));
  shift = std::ceil(shift);
  const int width = chart.width + static_cast<int>(shift);
  std::string out = header(width, static_cast<int>(height), chart.title);
  std::vector<std::string> names;
  for (const auto& series : chart.series) names.push_back(series.name);
  int legend_rows = legend(out, names, width);
  Frame frame{kLeftMargin + shift, kTitleHeight + kLegendHeight * legend_rows + 14.0, width - kRightMargin * 1.0,
              chart.height - kBottomMargin * 1.0};
  out += y_axis(frame, axis, chart.y_label);

  const double bar = group * 0.8 / static_cast<double>(chart.stacked ? 1 : std::max<std::size_t>(1, chart.series.size()));
  const double zero = frame.y_of(axis, std::clamp(0.0, axis.low, axis.high));
  const int decimals = std::max(chart.value_decimals, 0);
  // A value printed above its bar only where it fits the bar's width; the tooltip always has it.
  auto fits = [&](double value) { return text_width(fmt::format("{:.{}f}", value, decimals), 10) <= bar + 2; };
  std::vector<double> centres;
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    const double group_left = frame.left + group * static_cast<double>(c) + group * 0.1;
    centres.push_back(frame.left + group * (static_cast<double>(c) + 0.5));
    double stack_top = 0, stack_bottom = 0;
    for (std::size_t s = 0; s < chart.series.size(); ++s) {
      const auto& series = chart.series[s];
      const double value = series.values[c];
      if (!std::isfinite(value)) continue;
      const double x = chart.stacked ? group_left : group_left + bar * static_cast<double>(s);
      double from = 0, to = value;
      if (chart.stacked) {
        double& base = value >= 0 ? stack_top : stack_bottom;
        from = base;
        to = base += value;
      }
      const double y_from = frame.y_of(axis, std::clamp(from, axis.low, axis.high));
      const double y_to = frame.y_of(axis, std::clamp(to, axis.low, axis.high));
      std::string tip = fmt::format("{} — {}: {:.{}f}", chart.categories[c], series.name, value, decimals + 2);
      if (!series.errors.empty()) tip += fmt::format(" ± {:.{}f}", series.errors[c], decimals + 2);
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{}</title></rect>\n", x,
          std::min(y_from, y_to), std::max(bar - 2, 1.0), std::abs(y_from - y_to), palette()[s % palette().size()],
          html_escape(tip));
      if (chart.stacked) continue;
      double label_y = std::min(y_to, zero) - 4;
      if (!series.errors.empty() && series.errors[c] > 0) {
        // Clipped to the axis at both ends; an end cut off by the axis has no cap.
        const double cx = x + bar / 2 - 1, error = std::abs(series.errors[c]);
        const double top_value = value + error, bottom_value = value - error;
        const double top = frame.y_of(axis, std::clamp(top_value, axis.low, axis.high));
        const double bottom = frame.y_of(axis, std::clamp(bottom_value, axis.low, axis.high));
        std::string path = fmt::format("M{:.1f} {:.1f}V{:.1f}", cx, top, bottom);
        if (top_value <= axis.high) path += fmt::format("M{:.1f} {:.1f}H{:.1f}", cx - 4, top, cx + 4);
        if (bottom_value >= axis.low) path += fmt::format("M{:.1f} {:.1f}H{:.1f}", cx - 4, bottom, cx + 4);
        out += fmt::format("<path class=\"error\" d=\"{}\" stroke=\"#333333\" fill=\"none\"/>\n", path);
        label_y = std::min(label_y, top - 4);
      }
      if (chart.value_decimals >= 0 && fits(value))
        out += text(x + bar / 2 - 1, label_y, fmt::format("{:.{}f}", value, decimals),
                    "class=\"value\" text-anchor=\"middle\" font-size=\"10\" fill=\"#333333\"");
    }
    if (chart.stacked && chart.value_decimals >= 0 && stack_top > 0 && fits(stack_top))
      out += text(group_left + bar / 2 - 1, frame.y_of(axis, std::min(stack_top, axis.high)) - 4,
                  fmt::format("{:.{}f}", stack_top, decimals), "class=\"value\" text-anchor=\"middle\" font-size=\"10\" fill=\"#333333\"");
  }
  out += draw_categories(labels, centres, frame.bottom);
  out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333333\"/>\n", frame.left,
                     zero, frame.right, zero);
  out += text((frame.left + frame.right) / 2, height - 10.0, chart.x_label, "text-anchor=\"middle\"");
  return out + "</svg>\n";
}

namespace {

// The part of y = a x + b inside the plotted rectangle, dashed.
std::string line_in(const Frame& frame, const Axis& x_axis, const Axis& y_axis, const Line& line, const std::string& stroke) {
  double from = x_axis.low, to = x_axis.high;
  if (line.slope != 0) {
    const double a = (y_axis.low - line.intercept) / line.slope, b = (y_axis.high - line.intercept) / line.slope;
    from = std::max(from, std::min(a, b));
    to = std::min(to, std::max(a, b));
  } else if (line.intercept < y_axis.low || line.intercept > y_axis.high) {
    return "";
  }
  if (!(from < to)) return "";
  return fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-dasharray=\"5 4\"/>\n",
                     frame.x_of(x_axis, from), frame.y_of(y_axis, line.slope * from + line.intercept), frame.x_of(x_axis, to),
                     frame.y_of(y_axis, line.slope * to + line.intercept), stroke);
}

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
  if (plot.x_integer) x_axis = integer_axis(x_low, x_high);
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
  out += x_axis_of(frame, x_axis, plot.x_label, plot.height - 10.0);

  std::size_t colour = plot.series.size();
  for (const auto& line : plot.lines)
    out += line_in(frame, x_axis, y_axis_range, line, line.name.empty() ? "#888888" : palette()[colour++ % palette().size()]);
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

std::string svg(const BinnedPlot& plot) {
  const auto& bins = plot.bins;
  if (bins.counts.size() != bins.nx * bins.ny)
    fail("binned plot '{}': {} counts for {} × {} bins", plot.title, bins.counts.size(), bins.nx, bins.ny);
  constexpr double kScaleGap = 16, kScaleWidth = 14, kScaleLabels = 48;
  const double width = kLeftMargin + plot.size + kScaleGap + kScaleWidth + kScaleLabels + kRightMargin;
  const double height = kTitleHeight + 14.0 + plot.size + kBottomMargin;
  std::string out = header(static_cast<int>(width), static_cast<int>(height), plot.title);
  const double side = plot.size;
  const Frame frame{kLeftMargin, kTitleHeight + 14.0, kLeftMargin + side, kTitleHeight + 14.0 + side};
  Axis x_axis = nice_axis(bins.x_low, bins.x_high), y_axis_range = nice_axis(bins.y_low, bins.y_high);
  std::tie(x_axis.low, x_axis.high) = std::pair{bins.x_low, bins.x_high};
  std::tie(y_axis_range.low, y_axis_range.high) = std::pair{bins.y_low, bins.y_high};
  out += y_axis(frame, y_axis_range, plot.y_label);
  out += x_axis_of(frame, x_axis, plot.x_label, height - 10.0);
  const std::size_t most = bins.counts.empty() ? 0 : *std::max_element(bins.counts.begin(), bins.counts.end());
  const double w = (frame.right - frame.left) / static_cast<double>(bins.nx);
  const double h = (frame.bottom - frame.top) / static_cast<double>(bins.ny);
  const double bin_x = (bins.x_high - bins.x_low) / static_cast<double>(bins.nx);
  const double bin_y = (bins.y_high - bins.y_low) / static_cast<double>(bins.ny);
  // The fewest points a drawn bin has (1) is the light end, the most the dark end.
  auto shade = [&](std::size_t count) {
    return ramp(most > 1 ? static_cast<double>(count - 1) / static_cast<double>(most - 1) : 1.0);
  };
  for (std::size_t j = 0; j < bins.ny; ++j)
    for (std::size_t i = 0; i < bins.nx; ++i) {
      const std::size_t count = bins.counts[j * bins.nx + i];
      if (count == 0) continue;
      const double x0 = bins.x_low + bin_x * static_cast<double>(i), y0 = bins.y_low + bin_y * static_cast<double>(j);
      out += fmt::format("<rect class=\"bin\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\">"
                         "<title>{}</title></rect>\n",
                         frame.left + w * static_cast<double>(i), frame.bottom - h * static_cast<double>(j + 1), w, h,
                         shade(count),
                         html_escape(fmt::format("[{:.4g}, {:.4g}) × [{:.4g}, {:.4g}): {}", x0, x0 + bin_x, y0, y0 + bin_y, count)));
    }
  for (const auto& line : plot.lines) out += line_in(frame, x_axis, y_axis_range, line, "#555555");
  const double scale_left = frame.right + kScaleGap;
  out += "<g class=\"colour-scale\">\n";
  constexpr int kSteps = 20;
  const double step = (frame.bottom - frame.top) / kSteps;
  for (int k = 0; k < kSteps; ++k)
    out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"{}\"/>\n", scale_left,
                       frame.bottom - step * (k + 1), kScaleWidth, step + 0.5, ramp((k + 0.5) / kSteps));
  out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#333333\"/>\n",
                     scale_left, frame.top, kScaleWidth, frame.bottom - frame.top);
  out += text(scale_left + kScaleWidth + 4, frame.top + 8, fmt::format("{}", most), "class=\"scale-label\" font-size=\"11\"");
  out += text(scale_left + kScaleWidth + 4, frame.bottom, most > 0 ? "1" : "0", "class=\"scale-label\" font-size=\"11\"");
  out += text(scale_left, frame.top - 6, plot.count_label, "font-size=\"11\"");
  out += "</g>\n";
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
  // The colour scale to the right of the cells: 20 steps from −1 (bottom) to +1 (top).
  constexpr double kScaleGap = 16, kScaleWidth = 14, kScaleLabels = 40;
  constexpr int kScaleSteps = 20;
  const double scale_left = left + static_cast<double>(n * map.cell) + kScaleGap;
  const double scale_height = std::max(120.0, static_cast<double>(n * map.cell));
  const int width = static_cast<int>(scale_left + kScaleWidth + kScaleLabels + kRightMargin);
  const int height = static_cast<int>(top + scale_height + 12);
  std::string out = header(width, height, map.title);
  out += "<g class=\"colour-scale\">\n";
  const double step = scale_height / kScaleSteps;
  for (int k = 0; k < kScaleSteps; ++k) {
    // Step k covers values (−1 + 2k/steps, −1 + 2(k+1)/steps), coloured at its middle.
    const double value = -1 + (2.0 * k + 1) / kScaleSteps;
    out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"{}\"/>\n", scale_left,
                       top + scale_height - step * (k + 1), kScaleWidth, step + 0.5, diverging_colour(value));
  }
  out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#333333\"/>\n",
                     scale_left, top, kScaleWidth, scale_height);
  for (double value : {1.0, 0.0, -1.0})
    out += text(scale_left + kScaleWidth + 4, top + scale_height * (1 - value) / 2 + 4, tick_label(value, 1),
                "class=\"scale-label\" font-size=\"11\"");
  out += "</g>\n";
  for (std::size_t i = 0; i < n; ++i) {
    const double y = top + static_cast<double>(i * map.cell), x = left + static_cast<double>(i * map.cell);
    out += text(left - 6, y + map.cell / 2.0 + 4, map.labels[i], "text-anchor=\"end\"");
    out += text(x + map.cell / 2.0 + 4, top - 6, map.labels[i],
                fmt::format("text-anchor=\"start\" transform=\"rotate(-90 {:.1f} {:.1f})\"", x + map.cell / 2.0 + 4,
                            top - 6));
    for (std::size_t j = 0; j < n; ++j) {
      const double v = map.values[i][j], cx = left + static_cast<double>(j * map.cell);
      out += fmt::format("<rect class=\"cell\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#ffffff\">"
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
