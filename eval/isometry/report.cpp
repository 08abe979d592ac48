#include "eval/isometry/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/io.hpp"
#include "eval/isometry/figures.hpp"
#include "eval/report/report.hpp"

namespace invar::isometry {

namespace {

std::size_t index(IsometryCategory category) { return static_cast<std::size_t>(category); }

std::string format_share(double share) { return fmt::format("{:.3f}", share); }

std::string format_number(double value, int decimals) {
  return std::isfinite(value) ? fmt::format("{:.{}f}", value, decimals) : fmt::format("{}", value);
}

using report::format_p;

std::vector<std::string> category_header(std::vector<std::string> first) {
  for (auto category : kAllIsometryCategories) first.push_back(category_label(category));
  return first;
}
// The layout of the paper's Tables 2 and 3: one row per statistic, one column per data set of each
// translator followed by the translator's μ column.
struct SideBySideRow {
  std::string label;
  std::function<std::string(std::size_t data_set)> value;
  std::function<std::string(const TranslatorSummary&)> mean;
};

report::TextTable side_by_side(const std::vector<IsometryDataSet>& data, const IsometryResult& result,
                               const std::string& corner, const std::vector<SideBySideRow>& rows) {
  std::vector<std::string> header{corner};
  for (const auto& translator : result.translators) {
    for (auto s : translator.data_sets) header.push_back(data_set_label(data, result, s));
    header.push_back(result.translators.size() > 1 ? translator.name + ": μ" : "μ");
  }
  auto table = report::TextTable::numeric(std::move(header), 1);
  for (const auto& row : rows) {
    std::vector<std::string> cells{row.label};
    for (const auto& translator : result.translators) {
      for (auto s : translator.data_sets) cells.push_back(row.value(s));
      cells.push_back(row.mean(translator));
    }
    table.rows.push_back(std::move(cells));
  }
  return table;
}

report::TextTable category_table(const std::vector<IsometryDataSet>& data, const IsometryResult& result) {
  std::vector<SideBySideRow> rows{{"pairs", [&](std::size_t s) { return std::to_string(data[s].source.size()); },
                                   [](const TranslatorSummary&) { return std::string(); }}};
  for (auto category : kAllIsometryCategories)
    rows.push_back({category_label(category),
                    [&result, category](std::size_t s) {
                      return format_share(category_share(result.data_sets[s].categories, category));
                    },
                    [category](const TranslatorSummary& t) { return format_share(t.macro_average[index(category)]); }});
  return side_by_side(data, result, "M(S_XY)", rows);
}

using CorrelationOf = std::optional<IsometryCorrelation> IsometryDataSetResult::*;

// r, the one-tailed p and the strength of one correlation, as rows of the side-by-side table.
void correlation_rows(std::vector<SideBySideRow>& rows, const IsometryResult& result, const std::string& name,
                      CorrelationOf correlation, double TranslatorSummary::*mean) {
  auto cell = [&result, correlation](std::size_t s, auto&& format) {
    const auto& c = result.data_sets[s].*correlation;
    return c ? format(*c) : std::string("-");
  };
  auto none = [](const TranslatorSummary&) { return std::string("—"); };
  rows.push_back({name + " r", [cell](std::size_t s) { return cell(s, [](const auto& c) { return format_number(c.r, 3); }); },
                  [mean](const TranslatorSummary& t) { return format_number(t.*mean, 3); }});
  rows.push_back({name + " p (H1: r > 0)",
                  [cell](std::size_t s) { return cell(s, [](const auto& c) { return format_p(c.test.pvalue); }); }, none});
  rows.push_back({name + " strength",
                  [cell](std::size_t s) { return cell(s, [](const auto& c) { return c.strength.value_or("-"); }); }, none});
}

bool shows(const IsometryResult& result, CorrelationProcedure procedure) {
  return std::find(result.procedures.begin(), result.procedures.end(), procedure) != result.procedures.end();
}

report::TextTable correlation_summary(const std::vector<IsometryDataSet>& data, const IsometryResult& result) {
  std::vector<SideBySideRow> rows;
  if (shows(result, CorrelationProcedure::Pooled))
    correlation_rows(rows, result, "pooled", &IsometryDataSetResult::pooled, &TranslatorSummary::mean_pooled_r);
  if (shows(result, CorrelationProcedure::Mode)) {
    correlation_rows(rows, result, "mode, source", &IsometryDataSetResult::source, &TranslatorSummary::mean_source_r);
    correlation_rows(rows, result, "mode, target", &IsometryDataSetResult::target, &TranslatorSummary::mean_target_r);
  }
  return side_by_side(data, result, "chrF̄2 vs S_L", rows);
}

report::TextTable detector_table(const std::vector<IsometryDataSet>& data, const IsometryResult& result) {
  auto table = report::TextTable::numeric(category_header({"data set", "detector"}), 2);
  for (std::size_t s = 0; s < data.size(); ++s)
    for (std::size_t d = 0; d < result.detectors.size(); ++d) {
      std::vector<std::string> row{data_set_label(data, result, s), result.detectors[d]};
      for (auto category : kAllIsometryCategories)
        row.push_back(format_share(category_share(result.data_sets[s].detector_categories[d], category)));
      table.rows.push_back(std::move(row));
    }
  return table;
}

report::TextTable agreement_table(const std::vector<IsometryDataSet>& data, const IsometryResult& result) {
  std::vector<std::string> header{"data set"};
  for (const auto& pattern : result.patterns) header.push_back(pattern.name);
  auto table = report::TextTable::numeric(std::move(header), 1);
  for (std::size_t s = 0; s < data.size(); ++s) {
    std::vector<std::string> row{data_set_label(data, result, s)};
    const auto total = static_cast<double>(data[s].source.size());
    for (auto count : result.data_sets[s].patterns)
      row.push_back(fmt::format("{} ({})", format_share(static_cast<double>(count) / total), count));
    table.rows.push_back(std::move(row));
  }
  return table;
}

report::TextTable correlation_table(const std::vector<IsometryDataSet>& data, const IsometryResult& result) {
  auto table = report::TextTable::numeric({"data set", "procedure", "n", "r", "t", "df", "p (r > 0)", "strength"}, 2);
  std::vector<std::pair<const char*, CorrelationOf>> shown;
  if (shows(result, CorrelationProcedure::Pooled)) shown.emplace_back("pooled", &IsometryDataSetResult::pooled);
  if (shows(result, CorrelationProcedure::Mode)) {
    shown.emplace_back("mode, source (X)", &IsometryDataSetResult::source);
    shown.emplace_back("mode, target (Y)", &IsometryDataSetResult::target);
  }
  for (std::size_t s = 0; s < data.size(); ++s)
    for (const auto& [procedure, correlation] : shown) {
      const auto& c = result.data_sets[s].*correlation;
      std::vector<std::string> row{data_set_label(data, result, s), procedure};
      if (!c) row.insert(row.end(), {"0", "-", "-", "-", "-", "-"});
      else
        row.insert(row.end(), {std::to_string(c->n), format_number(c->r, 4), format_number(c->test.t, 3),
                               format_number(c->test.df, 0), format_p(c->test.pvalue), c->strength.value_or("-")});
      table.rows.push_back(std::move(row));
    }
  return table;
}

std::vector<std::pair<std::string, std::string>> settings(const std::vector<IsometryDataSet>& data,
                                                          const IsometryResult& result) {
  std::vector<std::pair<std::string, std::string>> items;
  for (std::size_t s = 0; s < data.size(); ++s)
    items.emplace_back("data set " + data_set_label(data, result, s),
                       fmt::format("{} ({} pairs); translations {}; detector scores {}", data[s].source.path,
                                   data[s].source.size(), data[s].target.path, data[s].scores.path));
  items.emplace_back("paraphrase detectors", fmt::format("{}", fmt::join(result.detectors, ", ")));
  items.emplace_back("threshold", fmt::format("S_L = 1 iff P(paraphrase) ≥ ε = {}", result.epsilon));
  items.emplace_back("surface similarity", "commutative " + result.chrf_name + " (mean of both argument orders)");
  return items;
}

const char* kCategoryCaption =
    "Categories of the detectors' mode M(S_XY) (relative frequencies; μ: macro-average over the translator's data "
    "sets), the paper's Table 2";
const char* kAgreementCaption = "Detector agreement: which detectors hold the mode (share and count of pairs)";
const char* kDetectorCaption = "Categories of each detector's own judgement (relative frequencies)";
const char* kSummaryCaption =
    "Pearson r between chrF̄2 and S_L, the paper's Table 3 (μ: mean r over the translator's data sets). Pooled: "
    "every detector's own S_L on both sides, Ø kept (the paper's table and R code); mode: S_L of the mode per side, "
    "Ø removed (the paper's text)";
const char* kCorrelationCaption =
    "Pearson r between chrF̄2 and S_L in detail: one-tailed t-test (H1: r > 0), strength after Schober et al.";

nlohmann::json counts_json(const CategoryCounts& counts) {
  nlohmann::json out;
  for (auto category : kAllIsometryCategories) out["counts"][category_key(category)] = counts[index(category)];
  for (auto category : kAllIsometryCategories) out["frequencies"][category_key(category)] = category_share(counts, category);
  return out;
}

nlohmann::json finite_or_null(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr); }

nlohmann::json correlation_json(const std::optional<IsometryCorrelation>& c) {
  if (!c) return nullptr;
  return {{"n", c->n}, {"r", c->r}, {"t", c->test.t}, {"df", c->test.df}, {"p", c->test.pvalue},
          {"strength", c->strength ? nlohmann::json(*c->strength) : nlohmann::json(nullptr)}};
}

report::TextTable example_pairs(const std::vector<IsometryDataSet>& data, const IsometryResult& result) {
  auto table = report::TextTable::numeric({"translator", "M(S_XY)", "data set:line", "s1", "s2", "f(s1)", "f(s2)",
                                           "chrF̄2 (s1, s2)", "chrF̄2 (f(s1), f(s2))"},
                                          7);
  for (const auto& translator : result.translators)
    for (auto category : kAllIsometryCategories)
      for (auto s : translator.data_sets) {
        const auto& pairs = result.data_sets[s].pairs;
        const auto found = std::find_if(pairs.begin(), pairs.end(), [category](const auto& p) { return p.category == category; });
        if (found == pairs.end()) continue;
        const auto i = static_cast<std::size_t>(found - pairs.begin());
        table.rows.push_back({translator.name, category_label(category),
                              fmt::format("{}:{}", data[s].name, data[s].source.line_numbers[i]), data[s].source.first[i],
                              data[s].source.second[i], data[s].target.first[i], data[s].target.second[i],
                              format_number(found->chrf_source.mean, 1), format_number(found->chrf_target.mean, 1)});
        break;
      }
  return table;
}

}  // namespace

std::string isometry_text_report(const std::vector<IsometryDataSet>& data, const IsometryResult& result) {
  report::TextTable header;
  for (const auto& [name, value] : settings(data, result)) header.rows.push_back({name, value});
  std::string out = "Isometry of translation on binary semantic-equivalence spaces\n" + header.render() + "\n";
  out += std::string(kCategoryCaption) + "\n" + category_table(data, result).render() + "\n";
  out += std::string(kAgreementCaption) + "\n" + agreement_table(data, result).render() + "\n";
  out += std::string(kDetectorCaption) + "\n" + detector_table(data, result).render() + "\n";
  out += std::string(kSummaryCaption) + "\n" + correlation_summary(data, result).render() + "\n";
  out += std::string(kCorrelationCaption) + "\n" + correlation_table(data, result).render();
  return out;
}

nlohmann::json isometry_json(const std::vector<IsometryDataSet>& data, const IsometryResult& result,
                             const report::Provenance& provenance) {
  nlohmann::json out;
  out["provenance"] = provenance.json();
  out["epsilon"] = result.epsilon;
  out["chrf"] = result.chrf_name;
  out["detectors"] = result.detectors;
  for (const auto& pattern : result.patterns) out["agreement_patterns"].push_back(pattern.name);
  out["data_sets"] = nlohmann::json::array();
  for (std::size_t s = 0; s < data.size(); ++s) {
    const auto& r = result.data_sets[s];
    auto set = counts_json(r.categories);
    set["name"] = data[s].name;
    set["pairs_file"] = data[s].source.path;
    set["translations"] = data[s].target.path;
    set["detector_scores"] = data[s].scores.path;
    set["pairs"] = data[s].source.size();
    for (std::size_t p = 0; p < result.patterns.size(); ++p) set["agreement"][result.patterns[p].name] = r.patterns[p];
    for (std::size_t d = 0; d < result.detectors.size(); ++d)
      set["per_detector"][result.detectors[d]] = counts_json(r.detector_categories[d]);
    set["translator"] = data[s].translator;
    set["correlation"] = {{"pooled", correlation_json(r.pooled)},
                          {"mode", {{"source", correlation_json(r.source)}, {"target", correlation_json(r.target)}}}};
    out["data_sets"].push_back(std::move(set));
  }
  out["translators"] = nlohmann::json::array();
  for (const auto& translator : result.translators) {
    nlohmann::json t{{"name", translator.name}};
    for (auto s : translator.data_sets) t["data_sets"].push_back(data[s].name);
    for (auto category : kAllIsometryCategories)
      t["macro_average"][category_key(category)] = translator.macro_average[index(category)];
    t["mean_r"] = {{"pooled", finite_or_null(translator.mean_pooled_r)},
                   {"mode", {{"source", finite_or_null(translator.mean_source_r)},
                             {"target", finite_or_null(translator.mean_target_r)}}}};
    out["translators"].push_back(std::move(t));
  }
  return out;
}

void write_isometry_pairs(const std::string& path, const std::vector<IsometryDataSet>& data,
                          const IsometryResult& result) {
  AtomicOutput out(path);
  for (std::size_t s = 0; s < data.size(); ++s) {
    const auto& set = data[s];
    for (std::size_t i = 0; i < set.source.size(); ++i) {
      const auto& pair = result.data_sets[s].pairs[i];
      nlohmann::json line;
      line["translator"] = set.translator;
      line["data_set"] = set.name;
      line["line"] = set.source.line_numbers[i];
      line["source"] = {set.source.first[i], set.source.second[i]};
      line["target"] = {set.target.first[i], set.target.second[i]};
      for (std::size_t d = 0; d < result.detectors.size(); ++d) {
        line["p_source"][result.detectors[d]] = set.scores.source[d][i];
        line["p_target"][result.detectors[d]] = set.scores.target[d][i];
        line["judgements"][result.detectors[d]] = {pair.judgements[d].first, pair.judgements[d].second};
      }
      line["mode"] = pair.mode.mode ? nlohmann::json{pair.mode.mode->first, pair.mode.mode->second} : nlohmann::json(nullptr);
      line["category"] = category_key(pair.category);
      line["agreement"] = result.patterns[pair.pattern].name;
      line["chrf_source"] = pair.chrf_source.mean;
      line["chrf_target"] = pair.chrf_target.mean;
      out.write_line(line.dump());
    }
  }
  out.commit();
}

void write_isometry_html(const std::string& path, const std::vector<IsometryDataSet>& data,
                         const IsometryResult& result, const report::Provenance& provenance) {
  report::HtmlReport report("Isometry of translation");
  report.settings(settings(data, result));
  report.figure(category_chart(data, result));
  report.table(category_table(data, result), kCategoryCaption);
  report.table(agreement_table(data, result), kAgreementCaption);
  report.table(detector_table(data, result), kDetectorCaption);
  report.table(correlation_summary(data, result), kSummaryCaption);
  report.table(correlation_table(data, result), kCorrelationCaption);
  report.figure(density_contours(data, result),
                "Gaussian kernel density estimate (Scott's bandwidth, as scipy.stats.gaussian_kde) of the detector's "
                "P(paraphrase) on the target pair against the source pair, scaled to a maximum of 1; contour lines at "
                "the levels shown (the paper's Figure 4).");
  for (const auto& translator : result.translators)
    for (auto s : translator.data_sets)
      report.figure(agreement_chart(data, result, s),
                    "Pairs per category of the detectors' mode, each bar split by which detectors hold the mode (the "
                    "paper's Figure 5).");
  for (const auto& translator : result.translators)
    for (auto s : translator.data_sets)
      report.figure(chrf_bins(data, result, s),
                    fmt::format("chrF̄2 of the translated pair against the source pair, every pair counted in bins of "
                                "{0} × {0} chrF points (the paper's Figure 6); the dashed line is y = x.",
                                100 / kChrfBins));
  report.figure(chrf_boxplots(data, result),
                "chrF̄2 of the pair by each detector's own S_L, source and target sides (the paper's Figure 7): "
                "quartiles, whiskers to 1.5 × IQR, outliers as circles.");
  report.table(example_pairs(data, result), "One pair per category of the mode (the paper's Table 4)");
  std::size_t pairs = 0;
  for (const auto& set : data) pairs += set.source.size();
  if (pairs <= kScatterLimit) {
    report.figure(probability_scatter(data, result),
                  "One point per pair and detector; the horizontal line is the threshold ε on the target side.");
    report.figure(chrf_scatter(data, result), "One point per pair, coloured by the category of the detectors' mode.");
  }
  report.provenance(provenance).write(path);
}

}  // namespace invar::isometry
