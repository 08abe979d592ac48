#pragma once
// The drawing primitives chart.cpp and facets.cpp share: margins, nicely rounded axes and their
// ticks, escaped SVG text, the SVG header with its title, the legend, and a plot frame mapping data
// to pixels. Internal to eval/report.
#include <string>
#include <vector>

namespace invar::report::drawing {

inline constexpr int kTitleHeight = 28;
inline constexpr int kLegendHeight = 22;
inline constexpr int kLeftMargin = 60;
inline constexpr int kRightMargin = 16;
inline constexpr int kBottomMargin = 52;

struct Axis {
  double low = 0;
  double high = 1;
  double step = 0.2;
  int decimals = 1;
};

// Ticks at 1, 2, 2.5 or 5 times a power of ten, about five of them, covering [low, high].
Axis nice_axis(double low, double high);
std::vector<double> ticks(const Axis& axis);

std::string text(double x, double y, const std::string& content, const std::string& extra = "");
std::string header(int width, int height, const std::string& title);

// Legend rows that fit the width, entries left to right; returns how many rows it took.
int legend(std::string& out, const std::vector<std::string>& names, int width);

struct Frame {
  double left, top, right, bottom;
  double y_of(const Axis& axis, double v) const { return bottom - (v - axis.low) / (axis.high - axis.low) * (bottom - top); }
  double x_of(const Axis& axis, double v) const { return left + (v - axis.low) / (axis.high - axis.low) * (right - left); }
};

std::string y_axis(const Frame& frame, const Axis& axis, const std::string& label);

}  // namespace invar::report::drawing
