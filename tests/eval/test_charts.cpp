// The charts' geometry, read back from their SVG with libxml2: tick values and positions, error
// bars inside the axis, category labels that do not overlap, colour scales, stacked and binned
// charts, and the HTML that keeps wide tables on the page.
#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numbers>

#include "core/error.hpp"
#include "eval/isometry/isometry.hpp"
#include "eval/metamorphic/relation.hpp"
#include "eval/report/chart.hpp"
#include "eval/report/report.hpp"
#include "eval/robustness/report.hpp"
#include "eval/stats/density.hpp"
#include "support/test_support.hpp"

using namespace invar;

namespace {

struct Element {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::vector<std::string> lines;  // a <text>'s own text, then each <tspan>'s; else its <title>
  std::vector<std::string> classes_above;  // class attributes of the enclosing elements

  std::string text() const {
    std::string out;
    for (const auto& line : lines) out += (out.empty() ? "" : " ") + line;
    return out;
  }
  double number(const std::string& attribute) const { return std::stod(attributes.at(attribute)); }
  bool has_class(const std::string& c) const {
    auto it = attributes.find("class");
    return it != attributes.end() && it->second == c;
  }
  bool inside(const std::string& c) const {
    return std::find(classes_above.begin(), classes_above.end(), c) != classes_above.end();
  }
};

std::string content(xmlNode* node) {
  xmlChar* text = xmlNodeGetContent(node);
  std::string out = text ? reinterpret_cast<const char*>(text) : "";
  xmlFree(text);
  return out;
}

void collect(xmlNode* node, std::vector<std::string>& classes, std::vector<Element>& out) {
  for (; node; node = node->next) {
    if (node->type != XML_ELEMENT_NODE) continue;
    Element e{reinterpret_cast<const char*>(node->name), {}, {}, classes};
    for (xmlAttr* a = node->properties; a; a = a->next) e.attributes[reinterpret_cast<const char*>(a->name)] = content(a->children);
    if (e.name == "text") {
      std::string own;
      for (xmlNode* c = node->children; c; c = c->next)
        if (c->type == XML_TEXT_NODE) own += content(c);
        else if (c->type == XML_ELEMENT_NODE && std::string(reinterpret_cast<const char*>(c->name)) == "tspan")
          e.lines.push_back(content(c));
      if (!own.empty()) e.lines.insert(e.lines.begin(), own);
    } else {
      for (xmlNode* c = node->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && std::string(reinterpret_cast<const char*>(c->name)) == "title")
          e.lines.push_back(content(c));
    }
    out.push_back(e);
    auto it = e.attributes.find("class");
    classes.push_back(it == e.attributes.end() ? "" : it->second);
    collect(node->children, classes, out);
    classes.pop_back();
  }
}

// Every element of an SVG document in document order; the test fails if it is not well-formed XML.
std::vector<Element> parse_svg(const std::string& svg) {
  std::unique_ptr<xmlDoc, void (*)(xmlDoc*)> doc(
      xmlReadMemory(svg.data(), static_cast<int>(svg.size()), "chart.svg", "UTF-8", XML_PARSE_NONET | XML_PARSE_NOERROR),
      xmlFreeDoc);
  EXPECT_TRUE(doc) << "not well-formed:\n" << svg;
  std::vector<Element> out;
  if (!doc) return out;
  std::vector<std::string> classes;
  collect(xmlDocGetRootElement(doc.get()), classes, out);
  return out;
}

std::vector<Element> with_class(const std::vector<Element>& elements, const std::string& c) {
  std::vector<Element> out;
  for (const auto& e : elements)
    if (e.has_class(c)) out.push_back(e);
  return out;
}

std::vector<std::string> texts(const std::vector<Element>& elements) {
  std::vector<std::string> out;
  for (const auto& e : elements) out.push_back(e.text());
  return out;
}

// The charts' own estimate of a text's width (7 pixels a cell at 12 pixels; drawing.hpp): the SVG
// says where a label starts, the font decides where it ends.
double width_of(const std::string& text, double font_size = 12) {
  return 7.0 * font_size / 12 * static_cast<double>(report::display_width(text));
}

// The y pixel of a value on the y axis, from two of its tick labels (a label is drawn 4 px below its tick).
double y_pixel(const std::vector<Element>& elements, double value) {
  const auto ticks = with_class(elements, "y-tick");
  EXPECT_GE(ticks.size(), 2u);
  const double v0 = std::stod(ticks.front().text()), v1 = std::stod(ticks.back().text());
  const double p0 = ticks.front().number("y") - 4, p1 = ticks.back().number("y") - 4;
  return p0 + (value - v0) / (v1 - v0) * (p1 - p0);
}

// The numbers of a path's d attribute.
std::vector<double> path_numbers(const std::string& d) {
  std::vector<double> out;
  std::string number;
  for (char c : d + " ") {
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-') number += c;
    else if (!number.empty()) {
      out.push_back(std::stod(number));
      number.clear();
    }
  }
  return out;
}

}  // namespace

// The layer-ablation chart's x axis: layers 0, 1, 2 as ticks (its range has half a layer of margin on
// each side, which used to put the ticks at -0.5, 0.5, … printed "-0 0 2 2").
TEST(ChartAxes, LayerAblationTicksAreTheLayers) {
  robustness::Ablation ablation{"model", "logistic regression", "mean", {"negative", "positive"}, 10, {}};
  for (std::int64_t layer = 0; layer < 4; ++layer)
    ablation.layers.push_back({layer, {8, 10}, {6, 10}, {{5, 10}}});
  const auto path = test::temp_dir() + "/ablation.html";
  robustness::write_ablation_html(path, ablation, {"negation"}, {});
  const auto html = test::read_file(path);
  const auto svg = html.substr(html.find("<svg"), html.find("</svg>") + 6 - html.find("<svg"));
  const auto elements = parse_svg(svg);
  const auto ticks = with_class(elements, "x-tick");
  EXPECT_EQ(texts(ticks), (std::vector<std::string>{"0", "1", "2", "3"}));
  // Evenly spaced, and the points of layer k drawn above tick k.
  for (std::size_t k = 1; k + 1 < ticks.size(); ++k)
    EXPECT_NEAR(ticks[k + 1].number("x") - ticks[k].number("x"), ticks[k].number("x") - ticks[k - 1].number("x"), 0.11);
  std::vector<double> points;
  for (const auto& e : elements)
    if (e.name == "circle") points.push_back(e.number("cx"));
  ASSERT_EQ(points.size(), 8u);  // task and negation, four layers each
  for (std::size_t k = 0; k < 4; ++k) EXPECT_NEAR(points[k], ticks[k].number("x"), 0.11);
}

TEST(ChartAxes, TicksAreMultiplesOfTheStepInsideTheRangeAndNeverMinusZero) {
  report::ScatterPlot plot;
  plot.series = {{"s", {-0.004, 0.02}, {0.5, 0.5}, {}}};
  plot.x_range = std::pair{-0.004, 0.02};
  const auto ticks = texts(with_class(parse_svg(report::svg(plot)), "x-tick"));
  EXPECT_EQ(ticks, (std::vector<std::string>{"0.000", "0.005", "0.010", "0.015", "0.020"}));
  // A whole-number axis over a fractional range: integers only, even where nice steps would be 0.5.
  report::ScatterPlot layers;
  layers.series = {{"s", {0, 1}, {0, 1}, {}}};
  layers.x_range = std::pair{-0.5, 1.5};
  layers.x_integer = true;
  EXPECT_EQ(texts(with_class(parse_svg(report::svg(layers)), "x-tick")), (std::vector<std::string>{"0", "1"}));
  // The y axis of values just below 0: the 0 tick reads "0.0".
  report::ScatterPlot negative;
  negative.series = {{"s", {0, 1}, {-0.3, -1e-17}, {}}};
  negative.y_range = std::pair{-0.4, 0.0};
  const auto y = texts(with_class(parse_svg(report::svg(negative)), "y-tick"));
  EXPECT_EQ(y.back(), "0.0");
  for (const auto& label : y) EXPECT_NE(label, "-0.0");
}

// Accuracies with a ± std: the axis stays [0, 1] and the bars end at it (no cap where cut off).
TEST(ChartBars, ErrorBarsAreClippedToTheAxisOnBothSides) {
  report::BarChart bars;
  bars.categories = {"low", "high", "middle"};
  bars.series = {{"population", {0.1, 0.9, 0.5}, {0.3, 0.3, 0.1}}};
  bars.y_min = 0.0;
  bars.y_max = 1.0;
  const auto elements = parse_svg(report::svg(bars));
  const auto ticks = texts(with_class(elements, "y-tick"));
  EXPECT_EQ(ticks.front(), "0.0");
  EXPECT_EQ(ticks.back(), "1.0");
  const double zero = y_pixel(elements, 0), one = y_pixel(elements, 1);
  const auto errors = with_class(elements, "error");
  ASSERT_EQ(errors.size(), 3u);
  std::vector<std::size_t> caps;
  for (const auto& e : errors) {
    const auto& d = e.attributes.at("d");
    caps.push_back(static_cast<std::size_t>(std::count(d.begin(), d.end(), 'H')));
    const auto numbers = path_numbers(d);
    // M x top V bottom: the vertical line inside [1, 0] on the page.
    EXPECT_GE(numbers[1], one - 0.06) << d;
    EXPECT_LE(numbers[2], zero + 0.06) << d;
  }
  EXPECT_EQ(caps, (std::vector<std::size_t>{1, 1, 2}));
  EXPECT_NEAR(path_numbers(errors[0].attributes.at("d"))[2], zero, 0.06);  // 0.1 − 0.3 stops at 0
  EXPECT_NEAR(path_numbers(errors[1].attributes.at("d"))[1], one, 0.06);   // 0.9 + 0.3 stops at 1
  EXPECT_NEAR(path_numbers(errors[2].attributes.at("d"))[1], y_pixel(elements, 0.6), 0.11);
}

namespace {

struct Box {
  double left, right, top, bottom;
};

bool overlap(const Box& a, const Box& b) {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

// The boxes of horizontal category labels: each line centred on x, 14 px apart, 12 px high.
std::vector<Box> label_boxes(const std::vector<Element>& labels) {
  std::vector<Box> boxes;
  for (const auto& label : labels) {
    EXPECT_EQ(label.attributes.count("transform"), 0u);
    const double x = label.number("x"), y = label.number("y");
    for (std::size_t l = 0; l < label.lines.size(); ++l) {
      const double w = width_of(label.lines[l]);
      boxes.push_back({x - w / 2, x + w / 2, y + 14.0 * static_cast<double>(l) - 10, y + 14.0 * static_cast<double>(l) + 3});
    }
  }
  return boxes;
}

void expect_no_overlap(const std::vector<Box>& boxes, double width) {
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    EXPECT_GE(boxes[i].left, 0);
    EXPECT_LE(boxes[i].right, width);
    for (std::size_t j = i + 1; j < boxes.size(); ++j)
      EXPECT_FALSE(overlap(boxes[i], boxes[j])) << "boxes " << i << " and " << j << " overlap";
  }
}

}  // namespace

// Isometry's category chart: five long labels under 760 px with four bars each.
TEST(ChartBars, CategoryLabelsWrapRatherThanOverlap) {
  report::BarChart bars;
  for (auto category : isometry::kAllIsometryCategories) bars.categories.push_back(isometry::category_label(category));
  for (const char* name : {"mrpc", "paws", "qqp", "μ"}) bars.series.push_back({name, {0.4, 0.3, 0.1, 0.1, 0.1}, {}});
  bars.width = 760;
  bars.y_max = 1.0;
  auto elements = parse_svg(report::svg(bars));
  auto labels = with_class(elements, "category");
  ASSERT_EQ(labels.size(), 5u);
  EXPECT_EQ(labels[2].lines, (std::vector<std::string>{"[0,1] type-1", "anisometry"}));
  expect_no_overlap(label_boxes(labels), 760);
  // The value labels above bars too narrow for them are left out (each bar's tooltip has its value).
  const auto values = with_class(elements, "value");
  std::vector<Box> value_boxes;
  for (const auto& v : values) {
    const double w = width_of(v.text(), 10);
    value_boxes.push_back({v.number("x") - w / 2, v.number("x") + w / 2, v.number("y") - 10, v.number("y")});
  }
  expect_no_overlap(value_boxes, 760);

  // Narrower: rotated, all by the same angle, their baselines far enough apart for the 12-px font;
  // the first label, longest, reaches left past the y axis, and the chart grows to hold it.
  bars.categories[0] = "[1,1] isometric, the translation keeps both judgements";
  bars.width = 300;
  const auto svg = report::svg(bars);
  elements = parse_svg(svg);
  labels = with_class(elements, "category");
  ASSERT_EQ(labels.size(), 5u);
  const double height = elements.front().number("height");
  for (std::size_t i = 0; i < labels.size(); ++i) {
    EXPECT_NE(labels[i].attributes.at("transform").find("rotate(-40 "), std::string::npos);
    // The label runs from its anchor down-left at 40°: its lowest and leftmost points stay on the chart.
    EXPECT_LE(labels[i].number("y") + width_of(labels[i].text()) * std::sin(40 * std::numbers::pi / 180), height);
    EXPECT_GE(labels[i].number("x") - width_of(labels[i].text()) * std::cos(40 * std::numbers::pi / 180), 0);
    if (i > 0) {
      EXPECT_GE((labels[i].number("x") - labels[i - 1].number("x")) * std::sin(40 * std::numbers::pi / 180), 12.0);
    }
  }
  // Short labels stay on one line.
  report::BarChart short_labels;
  short_labels.categories = {"task", "negation", "irony"};
  short_labels.series = {{"p", {0.5, 0.6, 0.7}, {}}};
  labels = with_class(parse_svg(report::svg(short_labels)), "category");
  for (const auto& label : labels) EXPECT_EQ(label.lines.size(), 1u);
  expect_no_overlap(label_boxes(labels), short_labels.width);
}

// The paper's Figure 5 layout: one bar per category, its series stacked in order.
TEST(ChartBars, StackedBarsAddUp) {
  report::BarChart bars;
  bars.categories = {"a", "b"};
  bars.series = {{"all", {30, 10}, {}}, {"some", {20, 0}, {}}, {"none", {10, 5}, {}}};
  bars.stacked = true;
  bars.value_decimals = 0;
  const auto elements = parse_svg(report::svg(bars));
  std::vector<Element> rects;
  for (const auto& e : elements)
    if (e.name == "rect" && e.attributes.count("x") && e.number("width") > 12)
      rects.push_back(e);
  ASSERT_EQ(rects.size(), 6u);  // zero-height segments are drawn too, with no height
  // Category a: 0–30, 30–50, 50–60, one above the other.
  EXPECT_NEAR(rects[0].number("y") + rects[0].number("height"), y_pixel(elements, 0), 0.11);
  EXPECT_NEAR(rects[0].number("y"), y_pixel(elements, 30), 0.11);
  EXPECT_NEAR(rects[1].number("y"), y_pixel(elements, 50), 0.11);
  EXPECT_NEAR(rects[2].number("y"), y_pixel(elements, 60), 0.11);
  EXPECT_EQ(rects[0].number("x"), rects[2].number("x"));
  EXPECT_EQ(texts(with_class(elements, "value")), (std::vector<std::string>{"60", "15"}));
  bars.series[0].errors = {1, 1};
  EXPECT_THROW(report::svg(bars), Error);
}

TEST(ChartHeatMap, HasAColourScaleFromMinusOneToOne) {
  const report::HeatMap map{.title = "rho", .labels = {"a", "b"}, .values = {{1, -0.5}, {-0.5, 1}}};
  const auto elements = parse_svg(report::svg(map));
  std::vector<Element> scale, labels;
  for (const auto& e : elements) {
    if (!e.inside("colour-scale")) continue;
    if (e.name == "rect" && e.attributes.at("fill") != "none") scale.push_back(e);
    if (e.name == "text") labels.push_back(e);
  }
  ASSERT_EQ(scale.size(), 20u);
  // Top: dark blue (+1); bottom: vermillion (−1); the middle two nearly white.
  std::sort(scale.begin(), scale.end(), [](const auto& a, const auto& b) { return a.number("y") < b.number("y"); });
  EXPECT_EQ(scale.front().attributes.at("fill"), "#0d79b6");
  EXPECT_EQ(scale.back().attributes.at("fill"), "#d7660d");
  EXPECT_EQ(scale[9].attributes.at("fill"), "#f2f8fb");
  EXPECT_EQ(texts(labels), (std::vector<std::string>{"1.0", "0.0", "-1.0"}));
  EXPECT_LT(labels[0].number("y"), labels[1].number("y"));
  EXPECT_LT(labels[1].number("y"), labels[2].number("y"));
}

// numpy.histogram2d's counts, by hand: edges 0, 0.5, 1 on each axis.
TEST(Histogram2d, CountsAsNumpy) {
  const double nan = std::nan("");
  const auto bins = stats::histogram_2d({0, 0.5, 1, 0.25, 0.49, -0.1, nan, 0.7}, {0, 0.5, 1, 0.75, 0.2, 0.5, 0.5, 1.2}, 2, 2,
                                        {0, 1}, {0, 1});
  ASSERT_EQ(bins.counts.size(), 4u);
  // (0, 0) and (0.49, 0.2) in [0, .5)²; (0.5, 0.5) and (1, 1) in the last bin (its upper edge
  // included); (0.25, 0.75) in x-bin 0, y-bin 1; x = −0.1, NaN and y = 1.2 outside.
  EXPECT_EQ(bins.counts, (std::vector<std::size_t>{2, 0, 1, 2}));
  // numpy's edges are linspace's: the fourth of ten over [0, 1] is 3 · 0.1 = 0.30000000000000004, so
  // 0.3 counts in bin 2 (numpy.histogram2d([0.3], [0.3], bins=10, range=[[0, 1], [0, 1]])).
  const auto tenths = stats::histogram_2d({0.3}, {0.7}, 10, 10, {0, 1}, {0, 1});
  EXPECT_EQ(tenths.counts[6 * 10 + 2], 1u);
  EXPECT_THROW(stats::histogram_2d({0}, {}, 2, 2, {0, 1}, {0, 1}), InternalError);
}

TEST(ChartBinned, OneCellPerNonEmptyBinShadedByCount) {
  report::BinnedPlot plot;
  plot.bins = stats::histogram_2d({10, 10, 10, 90, 60}, {10, 10, 12, 90, 20}, 4, 4, {0, 100}, {0, 100});
  plot.lines = {{1, 0, "y = x"}};
  const auto elements = parse_svg(report::svg(plot));
  const auto cells = with_class(elements, "bin");
  ASSERT_EQ(cells.size(), 3u);
  // Bins (0, 0): 3 points, darkest; (2, 0) and (3, 3): 1 point, lightest; the bin (i, j) at
  // x = left + i · w, and j counted up from the bottom.
  EXPECT_EQ(cells[0].attributes.at("fill"), "#440154");
  EXPECT_EQ(cells[1].attributes.at("fill"), "#bbdf27");
  EXPECT_EQ(cells[2].attributes.at("fill"), "#bbdf27");
  const double w = cells[0].number("width");
  EXPECT_NEAR(cells[1].number("x") - cells[0].number("x"), 2 * w, 0.02);
  EXPECT_NEAR(cells[0].number("y") - cells[2].number("y"), 3 * cells[0].number("height"), 0.02);
  EXPECT_NE(cells[0].text().find(": 3"), std::string::npos);
  std::vector<std::string> scale;
  for (const auto& e : elements)
    if (e.has_class("scale-label")) scale.push_back(e.text());
  EXPECT_EQ(scale, (std::vector<std::string>{"3", "1"}));
  plot.bins.counts.pop_back();
  EXPECT_THROW(report::svg(plot), Error);
}

TEST(ReportText, PValuesNeverPrintAsZero) {
  EXPECT_EQ(report::format_p(0.5), "0.5000");
  EXPECT_EQ(report::format_p(0.0001), "0.0001");
  EXPECT_EQ(report::format_p(0.00004), "4.00e-05");
  EXPECT_EQ(report::format_p(3.2e-300), "3.20e-300");
  EXPECT_EQ(report::format_p(std::nan("")), "nan");
  EXPECT_EQ(report::directed_name("WMD", false), "WMD ↓");
  EXPECT_EQ(report::directed_name("BLEU", true), "BLEU");
}

// A 22-column table scrolls sideways in its own box; the caption stays above it at the page's width.
TEST(HtmlReportTables, WideTablesScrollInTheirOwnBox) {
  report::HtmlReport page("wide");
  report::TextTable table;
  for (int c = 0; c < 22; ++c) table.header.push_back("column " + std::to_string(c));
  table.rows.push_back(table.header);
  page.table(table, "System means");
  const auto html = page.html();
  const auto caption = html.find("<figcaption>System means</figcaption>");
  const auto scroll = html.find("<div class=\"scroll\">\n<table>");
  ASSERT_NE(caption, std::string::npos);
  ASSERT_NE(scroll, std::string::npos);
  EXPECT_LT(caption, scroll);
  EXPECT_LT(html.find("</table>\n</div>"), html.find("</figure>", scroll));
  EXPECT_NE(html.find("div.scroll { overflow-x: auto; max-width: 100%; }"), std::string::npos);
  EXPECT_NE(html.find("div.scroll td:first-child { position: sticky; left: 0;"), std::string::npos);
  EXPECT_EQ(html.find("<caption>"), std::string::npos);
  // The title once, as the page's heading.
  EXPECT_EQ(html.find("<h1>wide</h1>"), html.rfind("<h1>"));
}

// Every built-in relation's diagram: no label over another, and edge labels on a white halo so that
// a dashed constraint drawn through one leaves it readable.
TEST(RelationDiagrams, LabelsDoNotOverlap) {
  for (const auto& name : metamorphic::builtin_relation_names()) {
    SCOPED_TRACE(name);
    const auto svg = metamorphic::relation_svg(metamorphic::builtin_relation(name));
    const auto elements = parse_svg(svg);
    std::vector<Box> boxes;
    for (const auto& e : elements) {
      // The spaces around a label's text (Graphviz writes two as a space and a no-break space) draw nothing.
      std::string label = e.text();
      for (bool trimmed = true; trimmed;) {
        trimmed = false;
        for (const std::string space : {" ", "\u00a0"}) {
          if (label.starts_with(space)) label.erase(0, space.size()), trimmed = true;
          if (label.ends_with(space)) label.erase(label.size() - space.size()), trimmed = true;
        }
      }
      if (e.name != "text" || label.empty()) continue;
      const double size = e.number("font-size"), w = width_of(label, size);
      const auto anchor = e.attributes.count("text-anchor") ? e.attributes.at("text-anchor") : "start";
      const double left = anchor == "middle" ? e.number("x") - w / 2 : anchor == "end" ? e.number("x") - w : e.number("x");
      boxes.push_back({left, left + w, e.number("y") - size * 0.8, e.number("y") + size * 0.2});
    }
    EXPECT_GE(boxes.size(), 4u);
    for (std::size_t i = 0; i < boxes.size(); ++i)
      for (std::size_t j = i + 1; j < boxes.size(); ++j)
        EXPECT_FALSE(overlap(boxes[i], boxes[j])) << "labels " << i << " and " << j << " overlap";
    EXPECT_NE(svg.find("paint-order: stroke"), std::string::npos);
  }
}

// A one-facet box plot with a long title (isometry's Figure 7 for one data set): wide enough for it.
TEST(ChartBoxes, TheTitleFits) {
  report::BoxPlot plot;
  plot.title = "chrF̄2 by S_L (every detector's own judgement)";
  plot.categories = {"0", "1"};
  plot.series = {"source"};
  plot.facets = {{"pairs", {{stats::box_stats({1, 2, 3}), stats::box_stats({2, 3, 4})}}}};
  const auto elements = parse_svg(report::svg(plot));
  EXPECT_GE(elements.front().number("width"), width_of(plot.title, 14) + 2 * 16);
}
