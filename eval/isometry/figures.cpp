#include "eval/isometry/figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

#include "eval/report/chart.hpp"
#include "eval/stats/density.hpp"

namespace invar::isometry {

std::string data_set_label(const std::vector<IsometryDataSet>& data, const IsometryResult& result, std::size_t s) {
  return result.translators.size() > 1 ? data[s].translator + ": " + data[s].name : data[s].name;
}

namespace {

std::string pair_tooltip(const IsometryDataSet& set, std::size_t i, IsometryCategory category) {
  return fmt::format("{}:{} {}", set.name, set.source.line_numbers[i], category_label(category));
}

}  // namespace

std::string category_chart(const std::vector<IsometryDataSet>& data, const IsometryResult& result) {
  report::BarChart bars;
  bars.title = "Categories of translated pairs";
  bars.x_label = "category of the mode [S_X, S_Y]";
  bars.y_label = "relative frequency";
  for (auto category : kAllIsometryCategories) bars.categories.push_back(category_label(category));
  for (const auto& translator : result.translators) {
    for (auto s : translator.data_sets) {
      report::BarSeries series{data_set_label(data, result, s), {}, {}};
      for (auto category : kAllIsometryCategories)
        series.values.push_back(category_share(result.data_sets[s].categories, category));
      bars.series.push_back(std::move(series));
    }
    if (translator.data_sets.size() > 1)
      bars.series.push_back({result.translators.size() > 1 ? translator.name + ": μ" : "μ",
                             {translator.macro_average.begin(), translator.macro_average.end()}, {}});
  }
  bars.y_max = 1.0;
  bars.width = 760;
  return report::svg(bars);
}

std::string agreement_chart(const std::vector<IsometryDataSet>& data, const IsometryResult& result, std::size_t s) {
  report::BarChart bars;
  bars.title = "Pairs per category by detector agreement: " + data_set_label(data, result, s);
  bars.x_label = "category of the mode [S_X, S_Y]";
  bars.y_label = "pairs";
  bars.stacked = true;
  bars.value_decimals = 0;
  for (auto category : kAllIsometryCategories) bars.categories.push_back(category_label(category));
  for (const auto& pattern : result.patterns) {
    report::BarSeries series{pattern.name, std::vector<double>(kAllIsometryCategories.size(), 0.0), {}};
    bars.series.push_back(std::move(series));
  }
  for (const auto& pair : result.data_sets[s].pairs)
    bars.series[pair.pattern].values[static_cast<std::size_t>(pair.category)] += 1;
  bars.width = 760;
  return report::svg(bars);
}

std::string chrf_bins(const std::vector<IsometryDataSet>& data, const IsometryResult& result, std::size_t s) {
  std::vector<double> x, y;
  for (const auto& pair : result.data_sets[s].pairs) {
    x.push_back(pair.chrf_source.mean);
    y.push_back(pair.chrf_target.mean);
  }
  report::BinnedPlot plot;
  plot.title = "chrF̄2, target pair vs source pair: " + data_set_label(data, result, s);
  plot.x_label = "chrF̄2(s1, s2)";
  plot.y_label = "chrF̄2(f(s1), f(s2))";
  plot.bins = stats::histogram_2d(x, y, kChrfBins, kChrfBins, {0, 100}, {0, 100});
  plot.lines = {{1, 0, "y = x"}};
  return report::svg(plot);
}

// A plot of a score of the target pair against the same score of the source pair, both in [0, max].
namespace {

report::ScatterPlot target_vs_source(const std::string& score, const std::string& of_source,
                                    const std::string& of_target, double max) {
  report::ScatterPlot plot;
  plot.title = score + ": target pair vs source pair";
  plot.x_label = of_source;
  plot.y_label = of_target;
  plot.x_range = plot.y_range = std::pair{0.0, max};
  plot.lines = {{1, 0, "y = x"}};
  return plot;
}

}  // namespace

std::string probability_scatter(const std::vector<IsometryDataSet>& data, const IsometryResult& result) {
  auto plot = target_vs_source("P(paraphrase)", "P(paraphrase) of (s1, s2)", "P(paraphrase) of (f(s1), f(s2))", 1.0);
  for (std::size_t d = 0; d < result.detectors.size(); ++d) {
    report::ScatterSeries series{result.detectors[d], {}, {}, {}};
    for (std::size_t s = 0; s < data.size(); ++s)
      for (std::size_t i = 0; i < data[s].source.size(); ++i) {
        series.x.push_back(data[s].scores.source[d][i]);
        series.y.push_back(data[s].scores.target[d][i]);
        series.tooltips.push_back(pair_tooltip(data[s], i, isometry_category(result.data_sets[s].pairs[i].judgements[d])));
      }
    plot.series.push_back(std::move(series));
  }
  plot.lines.push_back({0, result.epsilon, fmt::format("ε = {}", result.epsilon)});
  return report::svg(plot);
}

std::string chrf_scatter(const std::vector<IsometryDataSet>& data, const IsometryResult& result) {
  auto plot = target_vs_source("chrF̄2", "chrF̄2(s1, s2)", "chrF̄2(f(s1), f(s2))", 100.0);
  for (auto category : kAllIsometryCategories) {
    report::ScatterSeries series{category_label(category), {}, {}, {}};
    for (std::size_t s = 0; s < data.size(); ++s)
      for (std::size_t i = 0; i < data[s].source.size(); ++i) {
        const auto& pair = result.data_sets[s].pairs[i];
        if (pair.category != category) continue;
        series.x.push_back(pair.chrf_source.mean);
        series.y.push_back(pair.chrf_target.mean);
        series.tooltips.push_back(pair_tooltip(data[s], i, category));
      }
    plot.series.push_back(std::move(series));
  }
  return report::svg(plot);
}

namespace {

// Contour levels of the density scaled to a maximum of 1 (ggplot2's contour_var = "ndensity", which
// the paper's Figure 4 uses).
const std::vector<double> kDensityLevels{0.02, 0.1, 0.3, 0.5, 0.7, 0.9};
constexpr std::size_t kDensityGrid = 41;

std::optional<stats::DensityGrid> scaled_density(const std::vector<double>& x, const std::vector<double>& y) {
  auto grid = stats::gaussian_kde_2d(x, y, kDensityGrid, kDensityGrid, {0, 1}, {0, 1});
  if (!grid) return grid;
  const double peak = *std::max_element(grid->density.begin(), grid->density.end());
  if (!(peak > 0)) return std::nullopt;
  for (double& v : grid->density) v /= peak;
  return grid;
}

}  // namespace

// The paper's Figure 4: P(paraphrase) of the target pair against the source pair, one panel per
// translator and data set (rows) and detector (columns).
std::string density_contours(const std::vector<IsometryDataSet>& data, const IsometryResult& result) {
  report::ContourFacets facets;
  facets.title = "Density of P(paraphrase): target pair vs source pair";
  facets.x_label = "P(paraphrase) of (s1, s2)";
  facets.y_label = "P(paraphrase) of (f(s1), f(s2))";
  facets.column_labels = result.detectors;
  facets.levels = kDensityLevels;
  facets.levels_label = "density (maximum 1):";
  facets.lines = {{1, 0, "y = x"}};
  for (const auto& translator : result.translators)
    for (auto s : translator.data_sets) {
      facets.row_labels.push_back(data_set_label(data, result, s));
      std::vector<std::optional<stats::DensityGrid>> row;
      for (std::size_t d = 0; d < result.detectors.size(); ++d)
        row.push_back(scaled_density(data[s].scores.source[d], data[s].scores.target[d]));
      facets.panels.push_back(std::move(row));
    }
  return report::svg(facets);
}

// The paper's Figure 7: chrF̄2 by S_L on each side, over every detector's own judgement (the data of
// the pooled correlation), one facet per translator and data set.
std::string chrf_boxplots(const std::vector<IsometryDataSet>& data, const IsometryResult& result) {
  report::BoxPlot plot;
  plot.title = "chrF̄2 by S_L (every detector's own judgement)";
  plot.x_label = "S_L";
  plot.y_label = "chrF̄2";
  plot.categories = {"0", "1"};
  plot.series = {"source (X)", "target (Y)"};
  plot.y_range = {0, 100};
  for (const auto& translator : result.translators)
    for (auto s : translator.data_sets) {
      report::BoxFacet facet{data_set_label(data, result, s), {}};
      for (bool target : {false, true}) {
        std::array<std::vector<double>, 2> by_judgement;
        for (const auto& p : target ? data[s].scores.target : data[s].scores.source)
          for (std::size_t i = 0; i < p.size(); ++i) {
            const auto& pair = result.data_sets[s].pairs[i];
            by_judgement[static_cast<std::size_t>(pooled_judgement(p[i], result.epsilon))].push_back(
                target ? pair.chrf_target.mean : pair.chrf_source.mean);
          }
        facet.boxes.push_back({stats::box_stats(by_judgement[0]), stats::box_stats(by_judgement[1])});
      }
      plot.facets.push_back(std::move(facet));
    }
  return report::svg(plot);
}


}  // namespace invar::isometry
