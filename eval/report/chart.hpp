#pragma once
// Self-contained SVG charts for reports (no script, no external fonts or styles): grouped bar
// charts of distributions, with optional ± error bars, scatter plots (or line charts) with an
// optional reference line, and heat maps of correlation matrices. Each function returns one <svg> element, ready to embed in HTML (eval/report/report.hpp) or to
// write as a .svg file. Non-finite values and points outside a given range are not drawn.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace invar::report {

// Colours given to series in order (colour-blind-safe, Okabe–Ito).
const std::vector<std::string>& palette();

struct BarSeries {
  std::string name;            // legend entry
  std::vector<double> values;  // one per category
  std::vector<double> errors;  // optional ± half-widths, one per category (e.g. std over runs)
};

struct BarChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> categories;  // groups along the x axis
  std::vector<BarSeries> series;        // one bar per series within each group
  std::optional<double> y_max;          // default: a round number above the largest bar (+ error)
  int value_decimals = 2;               // printed above each bar; negative = no labels
  int width = 640;
  int height = 360;
};

std::string svg(const BarChart& chart);

struct ScatterSeries {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;
  std::vector<std::string> tooltips;  // optional, one per point (shown on hover)
  bool connected = false;             // joined by a line in the given order: a line chart
};

struct Line {  // y = slope * x + intercept, drawn across the plot
  double slope = 1;
  double intercept = 0;
  std::string name;
};

struct ScatterPlot {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<ScatterSeries> series;
  std::optional<std::pair<double, double>> x_range;  // default: the data range with a margin
  std::optional<std::pair<double, double>> y_range;
  std::vector<Line> lines;  // e.g. the diagonal {1, 0, "y = x"} or a fitted regression line
  int width = 480;
  int height = 400;
};

std::string svg(const ScatterPlot& plot);

// A square matrix of values in [-1, 1] (correlations) as coloured cells with the value printed in
// each: blue for positive, orange for negative, white at 0; NaN cells are grey and print "–".
struct HeatMap {
  std::string title;
  std::vector<std::string> labels;          // rows and columns, in this order
  std::vector<std::vector<double>> values;  // labels.size() × labels.size()
  int cell = 44;                            // cell side in pixels
};

std::string svg(const HeatMap& map);

}  // namespace invar::report
