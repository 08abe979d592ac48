#pragma once
// The figures of isometry's HTML report, SVG from eval/report/chart.hpp: the category chart, the
// density contours of P(paraphrase) (the paper's Figure 4), the counts per category by detector
// agreement (Figure 5), binned chrF̄2 of target vs source pairs (Figure 6), the chrF̄2-by-S_L box
// plots (Figure 7), and the target-vs-source scatter plots for small studies.
#include <cstddef>
#include <string>
#include <vector>

#include "eval/isometry/isometry.hpp"

namespace invar::isometry {

// A data set's name in tables and figures: prefixed by its translator's when several translators
// are compared.
std::string data_set_label(const std::vector<IsometryDataSet>& data, const IsometryResult& result, std::size_t s);

// Scatter plots beyond this many pairs are a solid block of colour; the density contours and box
// plots show those.
inline constexpr std::size_t kScatterLimit = 400;

std::string category_chart(const std::vector<IsometryDataSet>& data, const IsometryResult& result);
// The paper's Figure 5 for data set s: pairs per category of the mode (absolute counts), each bar
// split by which detectors hold the mode.
std::string agreement_chart(const std::vector<IsometryDataSet>& data, const IsometryResult& result, std::size_t s);
// The paper's Figure 6 for data set s at any size: chrF̄2 of the target pair against the source
// pair as counts in kChrfBins × kChrfBins bins of 100 / kChrfBins points.
inline constexpr std::size_t kChrfBins = 25;
std::string chrf_bins(const std::vector<IsometryDataSet>& data, const IsometryResult& result, std::size_t s);
// One panel per translator × data set (rows) and detector (columns).
std::string density_contours(const std::vector<IsometryDataSet>& data, const IsometryResult& result);
// One facet per translator × data set; source and target side by side.
std::string chrf_boxplots(const std::vector<IsometryDataSet>& data, const IsometryResult& result);
// P(paraphrase) of the target pair against the source pair, per detector, with y = x and ε.
std::string probability_scatter(const std::vector<IsometryDataSet>& data, const IsometryResult& result);
// chrF̄2 of the target pair against the source pair, coloured by category.
std::string chrf_scatter(const std::vector<IsometryDataSet>& data, const IsometryResult& result);

}  // namespace invar::isometry
