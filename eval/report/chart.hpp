#pragma once
// Self-contained SVG charts for reports (no script, no external fonts or styles): grouped or stacked
// bar charts, with optional ± error bars, scatter plots (or line charts) with an
// optional reference line, binned scatter plots (counts per bin), heat maps of correlation matrices, facets of density contours, and facets
// of box plots. Each function returns one <svg> element, ready to embed in HTML (eval/report/report.hpp) or to
// write as a .svg file. Non-finite values and points outside a given range are not drawn.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eval/stats/density.hpp"

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
  std::optional<double> y_min;          // default: 0, or a round number below the lowest bar (− error)
  std::optional<double> y_max;          // default: a round number above the largest bar (+ error)
  // Error bars are clipped to [y_min, y_max] (an accuracy's ± std never below 0 or above 1).
  bool stacked = false;                 // series stacked in one bar per category (no error bars)
  int value_decimals = 2;               // printed above each bar where it fits; negative = no labels
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
  bool x_integer = false;   // x is a whole number (a layer): ticks at integers only
  int width = 480;
  int height = 400;
};

std::string svg(const ScatterPlot& plot);

// Counts of points in a grid of bins (stats::histogram_2d) as shaded cells, for thousands of points
// where a scatter plot is a solid block of colour: empty bins white, the others from light (1 point)
// to dark (the most), with that colour scale and its counts beside the plot.
struct BinnedPlot {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::string count_label = "pairs per bin";  // above the colour scale
  stats::BinCounts bins;
  std::vector<Line> lines;  // reference lines, e.g. y = x
  int size = 320;           // the plot's side in pixels
};

std::string svg(const BinnedPlot& plot);

// A square matrix of values in [-1, 1] (correlations) as coloured cells with the value printed in
// each: blue for positive, orange for negative, white at 0, the colour scale from −1 to 1 beside it;
// NaN cells are grey and print "–".
struct HeatMap {
  std::string title;
  std::vector<std::string> labels;          // rows and columns, in this order
  std::vector<std::vector<double>> values;  // labels.size() × labels.size()
  int cell = 44;                            // cell side in pixels
};

std::string svg(const HeatMap& map);

// A grid of panels (rows × columns, e.g. translator × data set by detector), each with the contour
// lines of its grid's values (stats::DensityGrid: density[j * nx + i] at (x_i, y_j)) at the given
// levels, traced by marching squares; lines are coloured from light (lowest level) to dark
// (highest). A panel without a grid (nullopt) shows `empty_note` instead.
struct ContourFacets {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> row_labels, column_labels;
  std::vector<std::vector<std::optional<stats::DensityGrid>>> panels;  // [row][column]
  std::vector<double> levels;
  std::string levels_label = "levels:";  // before the legend of the levels' colours
  std::string empty_note = "too few distinct points";
  std::pair<double, double> x_range{0, 1}, y_range{0, 1};
  std::vector<Line> lines;  // reference lines drawn in every panel
  int panel_size = 150;     // pixels, square
};

std::string svg(const ContourFacets& facets);

// The line segments (x1, y1, x2, y2) where the grid's values cross `level`, by marching squares
// (the saddle cells resolved by the cell's mean value).
std::vector<std::array<double, 4>> contour_segments(const stats::DensityGrid& grid, double level);

// Box plots as ggplot2 draws them: a box from the lower to the upper quartile with the median,
// whiskers, outliers as points; one box per series within each category, one panel per facet.
struct BoxFacet {
  std::string title;
  std::vector<std::vector<std::optional<stats::BoxStats>>> boxes;  // [series][category]; nullopt: no values
};

struct BoxPlot {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> categories;  // along the x axis of each facet
  std::vector<std::string> series;      // legend entries
  std::vector<BoxFacet> facets;
  std::pair<double, double> y_range{0, 1};
  int facet_width = 220;
  int height = 360;
};

std::string svg(const BoxPlot& plot);

}  // namespace invar::report
