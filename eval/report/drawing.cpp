#include "eval/report/drawing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "eval/report/chart.hpp"
#include "eval/report/report.hpp"

namespace invar::report::drawing {

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

std::string text(double x, double y, const std::string& content, const std::string& extra) {
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

namespace {

double legend_entry_width(const std::string& name) { return 28 + 7.0 * static_cast<double>(display_width(name)); }

}  // namespace

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

}  // namespace invar::report::drawing
