#include "eval/report/drawing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
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

Axis integer_axis(double low, double high) {
  Axis axis = nice_axis(low, high);
  if (axis.step < 1) axis.step = 1;
  axis.decimals = 0;
  axis.low = low;
  axis.high = high;
  return axis;
}

std::vector<double> ticks(const Axis& axis) {
  // Multiples of the step inside [low, high]: a range given by the caller (a half-integer margin
  // around layers 0 … n − 1) does not move the ticks off the round numbers.
  std::vector<double> values;
  const double first = std::ceil(axis.low / axis.step - 1e-9);
  for (double k = first; k * axis.step <= axis.high + axis.step * 1e-9; ++k) {
    const double v = k * axis.step;
    values.push_back(std::abs(v) < axis.step * 1e-9 ? 0.0 : v);
  }
  return values;
}

std::string tick_label(double value, int decimals) {
  std::string label = fmt::format("{:.{}f}", value, decimals);
  // -0.00 is 0: a value that rounds to zero is printed without its sign.
  if (label.front() == '-' && label.find_first_not_of("-0.") == std::string::npos) label.erase(0, 1);
  return label;
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

double text_width(const std::string& content, double font_size) {
  return 7.0 * font_size / 12 * static_cast<double>(display_width(content));
}

double title_width(const std::string& title) { return text_width(title, 14) * 1.1 + 2 * kRightMargin; }

namespace {

// Words joined greedily onto lines no wider than `width`; a word wider than that stays whole.
std::vector<std::string> wrap(const std::string& label, double width) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= label.size()) {
    std::size_t end = label.find(' ', start);
    if (end == std::string::npos) end = label.size();
    std::string word = label.substr(start, end - start);
    if (!word.empty()) {
      if (!lines.empty() && text_width(lines.back() + " " + word) <= width) lines.back() += " " + word;
      else lines.push_back(word);
    }
    start = end + 1;
  }
  if (lines.empty()) lines.emplace_back();
  return lines;
}

}  // namespace

CategoryLabels layout_categories(const std::vector<std::string>& labels, double slot_width) {
  // Four pixels between neighbours.
  const double room = slot_width - 4;
  CategoryLabels layout;
  bool wrapped_fits = true;
  for (const auto& label : labels) {
    layout.lines.push_back(wrap(label, room));
    wrapped_fits = wrapped_fits && layout.lines.back().size() <= 3;
    for (const auto& line : layout.lines.back()) wrapped_fits = wrapped_fits && text_width(line) <= room;
  }
  if (wrapped_fits) {
    std::size_t most = 1;
    for (const auto& lines : layout.lines) most = std::max(most, lines.size());
    layout.height = kLineHeight * static_cast<double>(most) + 6;
    return layout;
  }
  // Rotated, neighbours' baselines are slot_width · sin(angle) apart; below that they would touch.
  layout.rotated = true;
  layout.lines.clear();
  double longest = 0;
  for (const auto& label : labels) {
    layout.lines.push_back({label});
    longest = std::max(longest, text_width(label));
  }
  layout.height = longest * std::sin(kLabelAngle * M_PI / 180) + kLineHeight + 6;
  return layout;
}

std::string draw_categories(const CategoryLabels& layout, const std::vector<double>& x, double y) {
  std::string out;
  for (std::size_t i = 0; i < layout.lines.size() && i < x.size(); ++i) {
    if (layout.rotated) {
      out += text(x[i], y + 14, layout.lines[i].front(),
                  fmt::format("class=\"category\" text-anchor=\"end\" transform=\"rotate(-{} {:.1f} {:.1f})\"", kLabelAngle,
                              x[i], y + 14));
      continue;
    }
    out += fmt::format("<text class=\"category\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">", x[i], y + 16);
    for (std::size_t l = 0; l < layout.lines[i].size(); ++l)
      out += fmt::format("<tspan x=\"{:.1f}\" dy=\"{}\">{}</tspan>", x[i], l == 0 ? 0.0 : kLineHeight,
                         html_escape(layout.lines[i][l]));
    out += "</text>\n";
  }
  return out;
}

namespace {

double legend_entry_width(const std::string& name) { return 28 + text_width(name); }

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

std::string x_axis_of(const Frame& frame, const Axis& axis, const std::string& label, double label_y) {
  std::string out;
  for (double v : ticks(axis)) {
    const double x = frame.x_of(axis, v);
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#e0e0e0\"/>\n", x,
                       frame.top, frame.bottom);
    out += text(x, frame.bottom + 16, tick_label(v, axis.decimals), "class=\"x-tick\" text-anchor=\"middle\"");
  }
  out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#333333\"/>\n",
                     frame.left, frame.right, frame.bottom);
  out += text((frame.left + frame.right) / 2, label_y, label, "text-anchor=\"middle\"");
  return out;
}

std::string y_axis(const Frame& frame, const Axis& axis, const std::string& label) {
  std::string out;
  for (double v : ticks(axis)) {
    double y = frame.y_of(axis, v);
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e0e0e0\"/>\n", frame.left,
                       y, frame.right, y);
    out += text(frame.left - 6, y + 4, tick_label(v, axis.decimals), "class=\"y-tick\" text-anchor=\"end\"");
  }
  out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#333333\"/>\n",
                     frame.left, frame.top, frame.bottom);
  double middle = (frame.top + frame.bottom) / 2;
  out += text(16, middle, label, fmt::format("text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1f})\"", middle));
  return out;
}

}  // namespace invar::report::drawing
