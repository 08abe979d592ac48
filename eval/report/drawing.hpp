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
// An axis of whole numbers (layers, counts) over exactly [low, high]: ticks at integers only.
Axis integer_axis(double low, double high);
// The multiples of the axis' step inside [low, high].
std::vector<double> ticks(const Axis& axis);
// A tick's value with the axis' decimals, never "-0".
std::string tick_label(double value, int decimals);

std::string text(double x, double y, const std::string& content, const std::string& extra = "");
std::string header(int width, int height, const std::string& title);
// The least width a chart needs for its title (bold, 14 pixels) to fit.
double title_width(const std::string& title);

// Legend rows that fit the width, entries left to right; returns how many rows it took.
int legend(std::string& out, const std::vector<std::string>& names, int width);

struct Frame {
  double left, top, right, bottom;
  double y_of(const Axis& axis, double v) const { return bottom - (v - axis.low) / (axis.high - axis.low) * (bottom - top); }
  double x_of(const Axis& axis, double v) const { return left + (v - axis.low) / (axis.high - axis.low) * (right - left); }
};

std::string y_axis(const Frame& frame, const Axis& axis, const std::string& label);
// Ticks and grid lines of x along the frame's bottom, and the axis label centred at height label_y.
std::string x_axis_of(const Frame& frame, const Axis& axis, const std::string& label, double label_y);

// A sequential colour for t in [0, 1], light (0) to dark (1).
std::string ramp(double t);

// The width of text at the charts' 12-pixel font, estimated from its display width (SVG text is
// not measured before it is drawn; 7 pixels a cell is Helvetica's widest digits and most letters).
double text_width(const std::string& content, double font_size = 12);

// Labels under the slots of an axis (categories of bars or boxes), laid out so that no two overlap:
// on one line where each fits its slot, else wrapped at spaces onto up to three lines, else rotated
// by 40 degrees. `height` is the room they take below the axis line.
struct CategoryLabels {
  std::vector<std::vector<std::string>> lines;  // per label; one entry each when rotated
  bool rotated = false;
  double height = 0;
};
inline constexpr double kLabelAngle = 40;  // degrees, counter-clockwise
inline constexpr double kLineHeight = 14;
CategoryLabels layout_categories(const std::vector<std::string>& labels, double slot_width);
// The labels centred under slot centres `x[i]`, from the axis line at `y` down.
std::string draw_categories(const CategoryLabels& layout, const std::vector<double>& x, double y);

}  // namespace invar::report::drawing
