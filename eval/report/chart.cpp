#include "eval/report/chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/error.hpp"
#include "eval/report/report.hpp"

namespace invar::report {

const std::vector<std::string>& palette() {
  static const std::vector<std::string> colours{"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                                "#56B4E9", "#D55E00", "#F0E442", "#000000"};
  return colours;
}

namespace {

constexpr int kTitleHeight = 28;
constexpr int kLegendHeight = 22;
constexpr int kLeftMargin = 60;
constexpr int kRightMargin = 16;
constexpr int kBottomMargin = 52;

struct Axis {
  double low = 0;
  double high = 1;
  double step = 0.2;
  int decimals = 1;
};

// Ticks at 1, 2, 2.5 or 5 times a power of ten, about five of them, covering [low, high].
Axis nice_axis(double low, double high) {
  if (!(high > low)) high = low + 1;
  double raw = (high - low) / 5;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = factor * magnitude;
    if (step >= raw) break;
  }
  Axis axis;
  axis.step = step;
  axis.low = std::floor(low / step + 1e-9) * step;
  axis.high = std::ceil(high / step - 1e-9) * step;
  axis.decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  if (std::abs(step / magnitude - 2.5) < 1e-9) ++axis.decimals;
  return axis;
}

std::vector<double> ticks(const Axis& axis) {
  std::vector<double> values;
  for (double v = axis.low; v <= axis.high + axis.step * 1e-6; v += axis.step) values.push_back(std::abs(v) < 1e-12 ? 0.0 : v);
  return values;
}

std::string text(double x, double y, const std::string& content, const std::string& extra = "") {
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\"{}>{}</text>\n", x, y, extra.empty() ? "" : " " + extra,
                     html_escape(content));
}

std::string header(int width, int height, const std::string& title) {
  return fmt::format(
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
             "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\" role=\"img\">\n"
             "<title>{2}</title>\n<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
             width, height, html_escape(title)) +
         text(width / 2.0, 18, title, "text-anchor=\"middle\" font-size=\"14\" font-weight=\"bold\"");
}

double legend_entry_width(const std::string& name) { return 28 + 7.0 * static_cast<double>(display_width(name)); }

// Legend rows that fit the width, entries left to right; returns how many rows it took.
int legend(std::string& out, const std::vector<std::string>& names, int width) {
  const double available = width - kLeftMargin - kRightMargin;
  std::vector<std::vector<std::size_t>> rows(1);
  double used = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    double w = legend_entry_width(names[i]);
    if (used > 0 && used + w > available) {
      rows.emplace_back();
      used = 0;
    }
    rows.back().push_back(i);
    used += w;
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    double total = 0;
    for (auto i : rows[r]) total += legend_entry_width(names[i]);
    double x = kLeftMargin + std::max(0.0, (available - total) / 2);
    double y = kTitleHeight + 2 + kLegendHeight * static_cast<double>(r);
    for (auto i : rows[r]) {
      out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", x, y,
                         palette()[i % palette().size()]);
      out += text(x + 16, y + 10, names[i]);
      x += legend_entry_width(names[i]);
    }
  }
  return names.empty() ? 0 : static_cast<int>(rows.size());
}

struct Frame {
  double left, top, right, bottom;
  double y_of(const Axis& axis, double v) const { return bottom - (v - axis.low) / (axis.high - axis.low) * (bottom - top); }
  double x_of(const Axis& axis, double v) const { return left + (v - axis.low) / (axis.high - axis.low) * (right - left); }
};

std::string y_axis(const Frame& frame, const Axis& axis, const std::string& label) {
  std::string out;
  for (double v : ticks(axis)) {
    double y = frame.y_of(axis, v);
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e0e0e0\"/>\n", frame.left,
                       y, frame.right, y);
    out += text(frame.left - 6, y + 4, fmt::format("{:.{}f}", v, axis.decimals), "text-anchor=\"end\"");
  }
  out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#333333\"/>\n",
                     frame.left, frame.top, frame.bottom);
  double middle = (frame.top + frame.bottom) / 2;
  out += text(16, middle, label, fmt::format("text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1f})\"", middle));
  return out;
}

}  // namespace

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

}  // namespace invar::report

namespace invar::report {

namespace {

// A sequential ramp from light blue-green to dark blue for t in [0, 1] (the ends of viridis
// reversed, so that the highest density is the darkest line on white).
std::string ramp(double t) {
  static const std::array<std::array<int, 3>, 4> stops{{{187, 223, 39}, {33, 145, 140}, {59, 82, 139}, {68, 1, 84}}};
  t = std::clamp(t, 0.0, 1.0) * static_cast<double>(stops.size() - 1);
  const auto k = std::min(static_cast<std::size_t>(t), stops.size() - 2);
  const double f = t - static_cast<double>(k);
  auto mix = [&](int c) { return static_cast<int>(std::lround(stops[k][c] + f * (stops[k + 1][c] - stops[k][c]))); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(0), mix(1), mix(2));
}

// A panel's border and grid lines; tick labels only where asked (panels share their axes).
std::string frame_ticks(const Frame& frame, const Axis* x_axis, const Axis& y_axis, bool x_labels, bool y_labels) {
  std::string out = fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
                                "stroke=\"#333333\"/>\n",
                                frame.left, frame.top, frame.right - frame.left, frame.bottom - frame.top);
  for (double v : x_axis ? ticks(*x_axis) : std::vector<double>{}) {
    const double x = frame.x_of(*x_axis, v);
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#eeeeee\"/>\n", x,
                       frame.top, frame.bottom);
    if (x_labels) out += text(x, frame.bottom + 13, fmt::format("{:.{}f}", v, x_axis->decimals), "text-anchor=\"middle\" font-size=\"10\"");
  }
  for (double v : ticks(y_axis)) {
    const double y = frame.y_of(y_axis, v);
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#eeeeee\"/>\n", frame.left,
                       y, frame.right, y);
    if (y_labels) out += text(frame.left - 4, y + 3, fmt::format("{:.{}f}", v, y_axis.decimals), "text-anchor=\"end\" font-size=\"10\"");
  }
  return out;
}

Axis fixed_axis(std::pair<double, double> range) {
  Axis axis = nice_axis(range.first, range.second);
  std::tie(axis.low, axis.high) = range;
  return axis;
}

// Where the level crosses the edge from corner value a at p to corner value b at q.
double crossing(double a, double b, double level, double p, double q) { return p + (level - a) / (b - a) * (q - p); }

}  // namespace

std::vector<std::array<double, 4>> contour_segments(const stats::DensityGrid& grid, double level) {
  std::vector<std::array<double, 4>> segments;
  if (grid.nx < 2 || grid.ny < 2) return segments;
  auto x_of = [&](std::size_t i) { return grid.x_low + (grid.x_high - grid.x_low) * static_cast<double>(i) / static_cast<double>(grid.nx - 1); };
  auto y_of = [&](std::size_t j) { return grid.y_low + (grid.y_high - grid.y_low) * static_cast<double>(j) / static_cast<double>(grid.ny - 1); };
  auto at = [&](std::size_t i, std::size_t j) { return grid.density[j * grid.nx + i]; };
  for (std::size_t j = 0; j + 1 < grid.ny; ++j)
    for (std::size_t i = 0; i + 1 < grid.nx; ++i) {
      // Corners counter-clockwise from (i, j); edges k joins corner k and corner k + 1.
      const std::array<double, 4> z{at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)};
      const std::array<double, 4> cx{x_of(i), x_of(i + 1), x_of(i + 1), x_of(i)};
      const std::array<double, 4> cy{y_of(j), y_of(j), y_of(j + 1), y_of(j + 1)};
      std::vector<std::array<double, 2>> points;
      for (std::size_t k = 0; k < 4; ++k) {
        const std::size_t l = (k + 1) % 4;
        if ((z[k] >= level) != (z[l] >= level))
          points.push_back({crossing(z[k], z[l], level, cx[k], cx[l]), crossing(z[k], z[l], level, cy[k], cy[l])});
      }
      if (points.size() == 2) segments.push_back({points[0][0], points[0][1], points[1][0], points[1][1]});
      if (points.size() != 4) continue;
      // A saddle: corners 0 and 2 above, 1 and 3 below (or the reverse). When the centre is on the
      // side of corner 0, the crossings join across corner 1 and 3; else around corner 0 and 2.
      const bool centre_like_0 = ((z[0] + z[1] + z[2] + z[3]) / 4 >= level) == (z[0] >= level);
      if (centre_like_0) {
        segments.push_back({points[0][0], points[0][1], points[1][0], points[1][1]});
        segments.push_back({points[2][0], points[2][1], points[3][0], points[3][1]});
      } else {
        segments.push_back({points[0][0], points[0][1], points[3][0], points[3][1]});
        segments.push_back({points[1][0], points[1][1], points[2][0], points[2][1]});
      }
    }
  return segments;
}

std::string svg(const ContourFacets& facets) {
  const std::size_t rows = facets.panels.size(), columns = rows ? facets.panels.front().size() : 0;
  for (const auto& row : facets.panels)
    if (row.size() != columns) fail("contour facets '{}': rows with {} and {} panels", facets.title, columns, row.size());
  constexpr double kGap = 18, kColumnLabel = 18, kLegend = 22;
  double row_label = 20;
  for (const auto& label : facets.row_labels) row_label = std::max(row_label, 12 + 7.5 * static_cast<double>(display_width(label)));
  const double size = facets.panel_size;
  const double width = kLeftMargin + static_cast<double>(columns) * (size + kGap) + row_label;
  const double top = kTitleHeight + kLegend + kColumnLabel;
  const double height = top + static_cast<double>(rows) * (size + kGap) + 40;
  std::string out = header(static_cast<int>(width), static_cast<int>(height), facets.title);
  for (std::size_t k = 0; k < facets.levels.size(); ++k) {
    const double x = kLeftMargin + 60.0 * static_cast<double>(k);
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"2\"/>\n", x,
                       kTitleHeight + 8.0, x + 14, kTitleHeight + 8.0, ramp(facets.levels.size() > 1 ? static_cast<double>(k) / static_cast<double>(facets.levels.size() - 1) : 1.0));
    out += text(x + 18, kTitleHeight + 12.0, fmt::format("{:g}", facets.levels[k]), "font-size=\"10\"");
  }
  const Axis x_axis = fixed_axis(facets.x_range), y_axis = fixed_axis(facets.y_range);
  for (std::size_t c = 0; c < columns && c < facets.column_labels.size(); ++c)
    out += text(kLeftMargin + static_cast<double>(c) * (size + kGap) + size / 2, top - 6, facets.column_labels[c],
                "text-anchor=\"middle\" font-weight=\"bold\"");
  for (std::size_t r = 0; r < rows; ++r) {
    const double panel_top = top + static_cast<double>(r) * (size + kGap);
    if (r < facets.row_labels.size())
      out += text(kLeftMargin + static_cast<double>(columns) * (size + kGap), panel_top + size / 2, facets.row_labels[r],
                  "font-weight=\"bold\"");
    for (std::size_t c = 0; c < columns; ++c) {
      const double left = kLeftMargin + static_cast<double>(c) * (size + kGap);
      const Frame frame{left, panel_top, left + size, panel_top + size};
      out += frame_ticks(frame, &x_axis, y_axis, r + 1 == rows, c == 0);
      const auto& panel = facets.panels[r][c];
      if (!panel) {
        out += text(left + size / 2, panel_top + size / 2, facets.empty_note, "text-anchor=\"middle\" font-size=\"10\" fill=\"#666666\"");
        continue;
      }
      for (const auto& line : facets.lines)
        out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#999999\" stroke-dasharray=\"4 3\"/>\n",
                           frame.x_of(x_axis, x_axis.low), frame.y_of(y_axis, std::clamp(line.slope * x_axis.low + line.intercept, y_axis.low, y_axis.high)),
                           frame.x_of(x_axis, x_axis.high), frame.y_of(y_axis, std::clamp(line.slope * x_axis.high + line.intercept, y_axis.low, y_axis.high)));
      for (std::size_t k = 0; k < facets.levels.size(); ++k) {
        std::string path;
        for (const auto& s : contour_segments(*panel, facets.levels[k]))
          path += fmt::format("M{:.1f} {:.1f}L{:.1f} {:.1f}", frame.x_of(x_axis, s[0]), frame.y_of(y_axis, s[1]),
                              frame.x_of(x_axis, s[2]), frame.y_of(y_axis, s[3]));
        if (!path.empty())
          out += fmt::format("<path class=\"contour\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\"/>\n", path,
                             ramp(facets.levels.size() > 1 ? static_cast<double>(k) / static_cast<double>(facets.levels.size() - 1) : 1.0));
      }
    }
  }
  const double plot_bottom = top + static_cast<double>(rows) * (size + kGap);
  const double middle_x = kLeftMargin + static_cast<double>(columns) * (size + kGap) / 2;
  out += text(middle_x, plot_bottom + 26, facets.x_label, "text-anchor=\"middle\"");
  const double middle_y = (top + plot_bottom) / 2;
  out += text(14, middle_y, facets.y_label, fmt::format("text-anchor=\"middle\" transform=\"rotate(-90 14 {:.1f})\"", middle_y));
  return out + "</svg>\n";
}

std::string svg(const BoxPlot& plot) {
  for (const auto& facet : plot.facets) {
    if (facet.boxes.size() != plot.series.size())
      fail("box plot '{}': facet '{}' has {} series for {}", plot.title, facet.title, facet.boxes.size(), plot.series.size());
    for (const auto& series : facet.boxes)
      if (series.size() != plot.categories.size())
        fail("box plot '{}': facet '{}' has {} boxes for {} categories", plot.title, facet.title, series.size(),
             plot.categories.size());
  }
  const double width = kLeftMargin + static_cast<double>(plot.facets.size()) * (plot.facet_width + 10.0) + kRightMargin;
  std::string out = header(static_cast<int>(width), plot.height, plot.title);
  const int legend_rows = legend(out, plot.series, static_cast<int>(width));
  const double top = kTitleHeight + kLegendHeight * legend_rows + 30.0;
  const Axis y_axis = fixed_axis(plot.y_range);
  for (std::size_t f = 0; f < plot.facets.size(); ++f) {
    const auto& facet = plot.facets[f];
    const double left = kLeftMargin + static_cast<double>(f) * (plot.facet_width + 10.0);
    const Frame frame{left, top, left + plot.facet_width, plot.height - kBottomMargin * 1.0};
    out += frame_ticks(frame, nullptr, y_axis, false, f == 0);
    out += text((frame.left + frame.right) / 2, top - 6, facet.title, "text-anchor=\"middle\" font-weight=\"bold\" font-size=\"11\"");
    const double group = (frame.right - frame.left) / static_cast<double>(std::max<std::size_t>(1, plot.categories.size()));
    const double box_width = group * 0.7 / static_cast<double>(std::max<std::size_t>(1, plot.series.size()));
    for (std::size_t c = 0; c < plot.categories.size(); ++c) {
      const double group_left = frame.left + group * static_cast<double>(c) + group * 0.15;
      out += text(frame.left + group * (static_cast<double>(c) + 0.5), frame.bottom + 14, plot.categories[c], "text-anchor=\"middle\"");
      for (std::size_t s = 0; s < plot.series.size(); ++s) {
        const auto& box = facet.boxes[s][c];
        if (!box) continue;
        const double x = group_left + box_width * static_cast<double>(s), mid = x + box_width / 2;
        auto y = [&](double v) { return frame.y_of(y_axis, std::clamp(v, y_axis.low, y_axis.high)); };
        const auto& colour = palette()[s % palette().size()];
        out += fmt::format("<g class=\"box\"><title>{}</title>\n", html_escape(fmt::format(
            "{} — {}, {}: n = {}, median {:.4g}, quartiles {:.4g}–{:.4g}, whiskers {:.4g}–{:.4g}, {} outliers",
            facet.title, plot.series[s], plot.categories[c], box->n, box->median, box->lower_quartile,
            box->upper_quartile, box->lower_whisker, box->upper_whisker, box->outliers.size())));
        out += fmt::format("<path d=\"M{0:.1f} {1:.1f}V{2:.1f}M{0:.1f} {3:.1f}V{4:.1f}M{5:.1f} {1:.1f}H{6:.1f}M{5:.1f} {4:.1f}H{6:.1f}\" stroke=\"#333333\"/>\n",
                           mid, y(box->upper_whisker), y(box->upper_quartile), y(box->lower_quartile),
                           y(box->lower_whisker), mid - box_width / 4, mid + box_width / 4);
        out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" fill-opacity=\"0.6\" stroke=\"#333333\"/>\n",
                           x, y(box->upper_quartile), box_width, std::max(0.5, y(box->lower_quartile) - y(box->upper_quartile)), colour);
        out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#000000\" stroke-width=\"2\"/>\n",
                           x, y(box->median), x + box_width, y(box->median));
        // Outliers at one pixel apart are drawn once: thousands of them would only repeat circles.
        double last = -1;
        for (double v : box->outliers) {
          const double py = y(v);
          if (std::abs(py - last) < 1) continue;
          last = py;
          out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2\" fill=\"none\" stroke=\"#333333\"/>\n", mid, py);
        }
        out += "</g>\n";
      }
    }
  }
  out += text(kLeftMargin + static_cast<double>(plot.facets.size()) * (plot.facet_width + 10.0) / 2, plot.height - 12.0,
              plot.x_label, "text-anchor=\"middle\"");
  const double middle = (top + plot.height - kBottomMargin) / 2;
  out += text(16, middle, plot.y_label, fmt::format("text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1f})\"", middle));
  return out + "</svg>\n";
}

}  // namespace invar::report
