// The faceted charts of chart.hpp: density contours by marching squares, and box plots.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/error.hpp"
#include "eval/report/chart.hpp"
#include "eval/report/drawing.hpp"
#include "eval/report/report.hpp"

namespace invar::report {

using namespace drawing;

namespace {

// A panel's border and grid lines; tick labels only where asked (panels share their axes).
std::string frame_ticks(const Frame& frame, const Axis* x_axis, const Axis& y_axis, bool x_labels, bool y_labels) {
  std::string out = fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
                                "stroke=\"#333333\"/>\n",
                                frame.left, frame.top, frame.right - frame.left, frame.bottom - frame.top);
  for (double v : x_axis ? ticks(*x_axis) : std::vector<double>{}) {
    const double x = frame.x_of(*x_axis, v);
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#eeeeee\"/>\n", x,
                       frame.top, frame.bottom);
    if (x_labels) out += text(x, frame.bottom + 13, tick_label(v, x_axis->decimals), "class=\"x-tick\" text-anchor=\"middle\" font-size=\"10\"");
  }
  for (double v : ticks(y_axis)) {
    const double y = frame.y_of(y_axis, v);
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#eeeeee\"/>\n", frame.left,
                       y, frame.right, y);
    if (y_labels) out += text(frame.left - 4, y + 3, tick_label(v, y_axis.decimals), "class=\"y-tick\" text-anchor=\"end\" font-size=\"10\"");
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
  for (const auto& label : facets.row_labels) row_label = std::max(row_label, 12 + 8.5 * static_cast<double>(display_width(label)));
  const double size = facets.panel_size;
  const double width = std::max(kLeftMargin + static_cast<double>(columns) * (size + kGap) + row_label, title_width(facets.title));
  const double top = kTitleHeight + kLegend + kColumnLabel;
  const double height = top + static_cast<double>(rows) * (size + kGap) + 40;
  std::string out = header(static_cast<int>(width), static_cast<int>(height), facets.title);
  if (!facets.levels.empty()) out += text(kLeftMargin, kTitleHeight + 12.0, facets.levels_label, "font-size=\"10\"");
  for (std::size_t k = 0; k < facets.levels.size(); ++k) {
    const double x = kLeftMargin + 10 + 5.5 * static_cast<double>(display_width(facets.levels_label)) + 60.0 * static_cast<double>(k);
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
  const double width = std::max(kLeftMargin + static_cast<double>(plot.facets.size()) * (plot.facet_width + 10.0) + kRightMargin,
                                title_width(plot.title));
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
    std::vector<double> centres;
    for (std::size_t c = 0; c < plot.categories.size(); ++c) centres.push_back(frame.left + group * (static_cast<double>(c) + 0.5));
    out += draw_categories(layout_categories(plot.categories, group), centres, frame.bottom - 2);
    for (std::size_t c = 0; c < plot.categories.size(); ++c) {
      const double group_left = frame.left + group * static_cast<double>(c) + group * 0.15;
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
