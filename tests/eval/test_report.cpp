#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "core/error.hpp"
#include "eval/report/chart.hpp"
#include "eval/report/report.hpp"
#include "support/test_support.hpp"

using namespace invar;

namespace {

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST(TextTable, PadsByDisplayWidthAndAlignsNumbers) {
  report::TextTable table;
  table.header = {"name", "score"};
  table.align = {report::TextTable::Align::Left, report::TextTable::Align::Right};
  table.rows = {{"日本", "1.5"}, {"p̂(A)", "10.25"}};
  // 日本 is 4 cells wide, p̂ is one cell (a combining mark).
  EXPECT_EQ(table.render(),
            "name  score\n"
            "-----------\n"
            "日本    1.5\n"
            "p̂(A)  10.25\n");
  EXPECT_EQ(report::display_width("p̂(A)"), 4u);
}

// Names from files reach text tables and LaTeX: control characters are shown escaped, never sent to
// the terminal or allowed to end a line (a LaTeX comment's, or a table row's).
TEST(TextTable, ControlCharactersInCellsAreShownEscaped) {
  report::TextTable table;
  table.header = {"system", "score"};
  table.rows = {{"\x1b[31mred\x1b[0m", "1"}, {"two\nlines", "2"}};
  const auto text = table.render();
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text,
            "system              score\n"
            "-------------------------\n"
            "\\x1b[31mred\\x1b[0m  1\n"
            "two\\nlines          2\n");
}

TEST(Latex, EscapeLeavesNoLineBreakOrControlCharacter) {
  const auto escaped = report::latex_escape("group\n\\input{/etc/passwd}\x1b_1");
  EXPECT_EQ(escaped, "group\\textbackslash{}n\\textbackslash{}input\\{/etc/passwd\\}\\textbackslash{}x1b\\_1");
  EXPECT_EQ(report::latex_escape("a & b_c 100%"), "a \\& b\\_c 100\\%");
}

TEST(Chart, BarChartDrawsOneBarPerSeriesAndCategory) {
  report::BarChart bars;
  bars.title = "A <b> & \"c\"";
  bars.categories = {"neg", "pos"};
  bars.series = {{"truth", {0.4, 0.6}, {}}, {"predicted", {0.5, 0.5}, {0.05, 0.0}}};
  auto svg = report::svg(bars);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count(svg, "</svg>"), 1u);
  EXPECT_EQ(count(svg, "<title>neg — "), 2u);
  EXPECT_EQ(count(svg, "<title>pos — "), 2u);
  EXPECT_EQ(count(svg, "class=\"error\""), 1u);  // one error bar: the other error is 0
  EXPECT_NE(svg.find("A &lt;b&gt; &amp; &quot;c&quot;"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  bars.series[0].values.pop_back();
  EXPECT_THROW(report::svg(bars), Error);
}

TEST(Chart, BarHeightsAreProportionalToValues) {
  report::BarChart bars;
  bars.categories = {"x", "y"};
  bars.series = {{"s", {0.25, 0.5}, {}}};
  bars.y_max = 1.0;
  auto svg = report::svg(bars);
  std::regex height("<rect x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"[0-9.]+\" height=\"([0-9.]+)\" fill");
  std::vector<double> heights;
  for (std::sregex_iterator it(svg.begin(), svg.end(), height), end; it != end; ++it) heights.push_back(std::stod((*it)[1]));
  ASSERT_EQ(heights.size(), 2u + 1u);  // the legend swatch comes first
  EXPECT_NEAR(heights[2] / heights[1], 2.0, 0.02);
}

TEST(Chart, ScatterPlotSkipsPointsOutsideTheRangeAndClipsLines) {
  report::ScatterPlot plot;
  plot.title = "scatter";
  plot.series = {{"pairs", {0.1, 0.5, 2.0}, {0.2, 0.4, 0.9}, {"first", "second", "outside"}}};
  plot.x_range = {{0.0, 1.0}};
  plot.y_range = {{0.0, 1.0}};
  plot.lines = {{1.0, 0.0, "y = x"}};
  auto svg = report::svg(plot);
  EXPECT_EQ(count(svg, "<circle"), 2u);
  EXPECT_NE(svg.find("<title>second</title>"), std::string::npos);
  EXPECT_EQ(svg.find("outside"), std::string::npos);
  EXPECT_EQ(count(svg, "stroke-dasharray"), 1u);
  plot.series[0].y.pop_back();
  EXPECT_THROW(report::svg(plot), Error);
}

TEST(Chart, ContourSegmentsByMarchingSquares) {
  // A peak of 1 at the centre of a 3 × 3 grid over [0, 2]²: the level 0.5 crosses each edge from the
  // centre halfway, one segment per cell, a diamond through (0.5, 1), (1, 0.5), (1.5, 1), (1, 1.5).
  stats::DensityGrid peak{3, 3, 0, 2, 0, 2, {0, 0, 0, 0, 1, 0, 0, 0, 0}};
  const auto segments = report::contour_segments(peak, 0.5);
  ASSERT_EQ(segments.size(), 4u);
  for (const auto& s : segments)
    for (int end : {0, 2}) {
      const double x = s[end], y = s[end + 1];
      EXPECT_NEAR(std::abs(x - 1) + std::abs(y - 1), 0.5, 1e-12) << x << ", " << y;
    }
  EXPECT_TRUE(report::contour_segments(peak, 2.0).empty());
  // A saddle (two opposite corners above the level) gives two segments.
  stats::DensityGrid saddle{2, 2, 0, 1, 0, 1, {1, 0, 0, 1}};
  EXPECT_EQ(report::contour_segments(saddle, 0.5).size(), 2u);
}

TEST(Chart, ContourFacetsDrawEveryPanelAndNoteEmptyOnes) {
  report::ContourFacets facets;
  facets.title = "density";
  facets.row_labels = {"a", "b"};
  facets.column_labels = {"x", "y", "z"};
  facets.levels = {0.25, 0.5, 0.75};
  stats::DensityGrid peak{3, 3, 0, 1, 0, 1, {0, 0, 0, 0, 1, 0, 0, 0, 0}};
  facets.panels = {{peak, peak, std::nullopt}, {peak, peak, peak}};
  const auto svg = report::svg(facets);
  // One path per level in each of the five panels with a grid.
  EXPECT_EQ(count(svg, "class=\"contour\""), 15u);
  EXPECT_EQ(count(svg, facets.empty_note), 1u);
  EXPECT_EQ(count(svg, "<svg"), 1u);
  facets.panels[1].pop_back();
  EXPECT_THROW(report::svg(facets), Error);
}

TEST(Chart, BoxPlotDrawsBoxesWhiskersAndOutliers) {
  report::BoxPlot plot;
  plot.title = "boxes";
  plot.categories = {"0", "1"};
  plot.series = {"source", "target"};
  plot.y_range = {0, 100};
  const auto with_outlier = stats::box_stats({10, 11, 12, 13, 14, 90});
  const auto plain = stats::box_stats({40, 50, 60});
  plot.facets = {{"first", {{with_outlier, plain}, {plain, std::nullopt}}}, {"second", {{plain, plain}, {plain, plain}}}};
  const auto svg = report::svg(plot);
  EXPECT_EQ(count(svg, "<g class=\"box\">"), 7u);
  EXPECT_EQ(count(svg, "<circle"), 1u);
  EXPECT_NE(svg.find("n = 6"), std::string::npos);
  plot.facets[0].boxes[0].pop_back();
  EXPECT_THROW(report::svg(plot), Error);
}

TEST(HtmlReport, SelfContainedPageWrittenAtomically) {
  report::HtmlReport report("LIP <test>");
  report::TextTable table;
  table.header = {"a", "b"};
  table.rows = {{"x & y", "1"}};
  report.heading("Scores").paragraph("p < 0.05").table(table, "caption").figure("<svg></svg>", "figure");
  auto html = report.html();
  EXPECT_NE(html.find("<title>LIP &lt;test&gt;</title>"), std::string::npos);
  EXPECT_NE(html.find("<p>p &lt; 0.05</p>"), std::string::npos);
  EXPECT_NE(html.find("<td>x &amp; y</td>"), std::string::npos);
  EXPECT_NE(html.find("<figure>\n<svg></svg><figcaption>figure</figcaption>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  auto path = test::temp_dir() + "/report.html";
  report.write(path);
  EXPECT_EQ(test::read_file(path), html);
}

// One cell per pair: full Okabe–Ito blue at +1, vermillion at −1, white at 0, grey for NaN, with the
// value printed; a matrix that is not labels × labels is an error.
TEST(Chart, HeatMapColoursCellsByValue) {
  const double nan = std::nan("");
  const report::HeatMap map{.title = "rho", .labels = {"a", "b<c"}, .values = {{1, -1}, {0, nan}}};
  const std::string svg = report::svg(map);
  EXPECT_EQ(count(svg, "<rect class=\"cell\""), 4u);
  EXPECT_NE(svg.find("fill=\"#0072b2\""), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#d55e00\""), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#ffffff\" stroke"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#d9d9d9\""), std::string::npos);
  EXPECT_NE(svg.find(">-1.00<"), std::string::npos);
  EXPECT_NE(svg.find("b&lt;c"), std::string::npos);
  EXPECT_THROW(report::svg(report::HeatMap{.title = "bad", .labels = {"a"}, .values = {{1, 2}}}), Error);
}
