#include "eval/metamorphic/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/io.hpp"
#include "core/utf8.hpp"
#include "eval/report/chart.hpp"
#include "eval/report/report.hpp"

namespace invar::metamorphic {

namespace {

std::string rate_text(double rate) { return std::isfinite(rate) ? fmt::format("{:.4f}", rate) : "n/a"; }

// JSON has no NaN: a rate without tests, or a score that is not finite, is null.
nlohmann::json finite_json(double value) { return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr); }

template <typename C>
std::vector<std::string> count_cells(std::vector<std::string> row, const C& counts) {
  row.push_back(std::to_string(counts.tests));
  row.push_back(std::to_string(counts.violations));
  row.push_back(rate_text(counts.rate()));
  return row;
}

template <typename C>
nlohmann::json count_json(const C& counts) {
  return {{"tests", counts.tests}, {"violations", counts.violations}, {"rate", finite_json(counts.rate())}};
}

std::string settings_text(const ReportSettings& settings) {
  std::string out;
  for (const auto& [name, value] : settings) out += fmt::format("{}: {}\n", name, value);
  return out;
}

nlohmann::json settings_json(const ReportSettings& settings) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : settings) out[name] = value;
  return out;
}

std::string rate_chart(const std::string& title, const std::string& x_label, const std::vector<std::string>& categories,
                       const std::vector<double>& rates) {
  report::BarChart bars;
  bars.title = title;
  bars.x_label = x_label;
  bars.y_label = report::directed_name("violation rate", false);
  bars.y_min = 0.0;
  bars.categories = categories;
  bars.series = {{"violation rate", rates, {}}};
  bars.value_decimals = 3;
  bars.width = std::max(480, 90 * static_cast<int>(categories.size()) + 120);
  return report::svg(bars);
}

// The relation drawn in the paper's notation, with the legend as its caption.
void add_diagram(report::HtmlReport& report, const Relation& relation) {
  report.heading("Relation");
  report.figure(relation_svg(relation),
                "Circles are texts, squares numeric outputs; shaded nodes are source inputs; arrows apply the model f (or "
                "its parts f₁ and f₂, or a probe g) or a transformation t, and unlabelled arrows build a text from others; "
                "dashed lines join the outputs the property constrains.");
}

std::string source_label(const Suite& suite, std::size_t i) {
  if (suite.source.classes.size() != suite.line_numbers.size() || suite.class_names.empty()) return "";
  return suite.class_names.at(static_cast<std::size_t>(suite.source.classes[i]));
}

// Sources by their violation rate pooled over the transformations, worst first (Table 2).
std::vector<std::size_t> worst_sources(const SuiteResult& result, std::size_t n, std::size_t count) {
  std::vector<std::size_t> order(n);
  std::vector<double> pooled(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    order[i] = i;
    std::uint64_t tests = 0, violations = 0;
    for (const auto& t : result.transformations) {
      tests += t.source_tests[i];
      violations += t.source_violations[i];
    }
    pooled[i] = tests == 0 ? 0 : static_cast<double>(violations) / static_cast<double>(tests);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return pooled[a] > pooled[b]; });
  order.resize(std::min(count, n));
  return order;
}

// At most `length` characters of a text for a table cell, cut with "…".
std::string shortened(const std::string& text, std::size_t length) {
  if (!is_valid_utf8(text)) return text;
  const auto code_points = decode_utf8(text);
  return code_points.size() <= length ? text : encode_utf8(code_points.substr(0, length - 1)) + "…";
}

// With the transformations' descriptions (their sentences) beside the counts, where known.
report::TextTable suite_table(const Suite& suite, const SuiteResult& result) {
  const bool described = std::any_of(suite.descriptions.begin(), suite.descriptions.end(), [](const auto& d) { return !d.empty(); });
  std::vector<std::string> header{"transformation"};
  if (described) header.push_back("follow-up");
  for (const auto* column : {"tests", "violations", "rate"}) header.push_back(column);
  auto table = report::TextTable::numeric(header, described ? 2 : 1);
  for (std::size_t k = 0; k < result.transformations.size(); ++k) {
    std::vector<std::string> row{result.transformations[k].name};
    if (described) row.push_back(k < suite.descriptions.size() ? suite.descriptions[k] : "");
    table.rows.push_back(count_cells(std::move(row), result.transformations[k]));
  }
  std::vector<std::string> all{"all"};
  if (described) all.push_back("");
  table.rows.push_back(count_cells(std::move(all), result));
  return table;
}

// The paper's Table 2: each source's text beside its violation rates, where the texts are known.
report::TextTable worst_table(const Suite& suite, const SuiteResult& result, std::size_t count) {
  const bool texts = !suite.texts.empty();
  std::vector<std::string> header{"line", "label"};
  if (texts) header.push_back("text");
  for (const auto& t : result.transformations) header.push_back(t.name);
  auto table = report::TextTable::numeric(header, texts ? 3 : 2);
  for (auto i : worst_sources(result, suite.line_numbers.size(), count)) {
    std::vector<std::string> row{std::to_string(suite.line_numbers[i]), source_label(suite, i)};
    if (texts) row.push_back(shortened(suite.texts[i], 60));
    for (const auto& t : result.transformations) row.push_back(rate_text(t.source_rate(i)));
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace

std::string suite_title(const RelationSettings& settings) {
  return fmt::format("{} {}", settings.arity == Arity::Single ? "single-input" : "pairwise", property_name(settings.property));
}

Relation suite_relation(const RelationSettings& settings) {
  return settings.arity == Arity::Single ? single_relation(settings.property) : pairwise_relation(settings.property);
}

std::string suite_text(const Suite& suite, const SuiteResult& result, const ReportSettings& settings) {
  std::string out = fmt::format("Metamorphic testing: {} ({} sources)\n", suite_title(result.settings), suite.line_numbers.size());
  out += settings_text(settings) + "\n" + suite_table(suite, result).render();
  out += "\nSources with the highest violation rates (per transformation):\n" + worst_table(suite, result, 10).render();
  return out;
}

nlohmann::json suite_json(const Suite& suite, const SuiteResult& result, const ReportSettings& settings,
                          const report::Provenance& provenance) {
  nlohmann::json out{{"relation", suite_title(result.settings)}, {"provenance", provenance.json()}, {"settings", settings_json(settings)},
                     {"sources", suite.line_numbers.size()}, {"overall", count_json(result)}};
  out["transformations"] = nlohmann::json::array();
  for (const auto& t : result.transformations) {
    auto entry = count_json(t);
    entry["name"] = t.name;
    if (const auto k = out["transformations"].size(); k < suite.descriptions.size() && !suite.descriptions[k].empty())
      entry["description"] = suite.descriptions[k];
    if (result.settings.arity == Arity::Single) {
      entry["violating_lines"] = nlohmann::json::array();
      for (std::size_t i = 0; i < t.source_violations.size(); ++i)
        if (t.source_violations[i] > 0) entry["violating_lines"].push_back(suite.line_numbers[i]);
    }
    out["transformations"].push_back(entry);
  }
  return out;
}

void write_suite_csv(const std::string& path, const SuiteResult& result, const report::Provenance& provenance) {
  AtomicOutput out(path);
  out.stream() << provenance.comment_lines("#");
  out.write_line("transformation,tests,violations,rate");
  for (const auto& t : result.transformations)
    out.write_line(fmt::format("{},{},{},{}", report::csv_field(t.name), t.tests, t.violations, report::csv_number(t.rate())));
  out.commit();
}

void write_suite_per_source(const std::string& path, const Suite& suite, const SuiteResult& result) {
  AtomicOutput out(path);
  for (std::size_t i = 0; i < suite.line_numbers.size(); ++i) {
    nlohmann::json line{{"line", suite.line_numbers[i]}};
    if (!suite.texts.empty()) line["text"] = suite.texts[i];
    if (auto label = source_label(suite, i); !label.empty()) line["label"] = label;
    if (!suite.source.scores.empty()) line["score"] = suite.source.scores[i];
    for (std::size_t k = 0; k < result.transformations.size(); ++k) {
      const auto& t = result.transformations[k];
      nlohmann::json entry{{"tests", t.source_tests[i]}, {"violations", t.source_violations[i]},
                           {"rate", finite_json(t.source_rate(i))}};
      const auto& follow_up = suite.follow_ups[k];
      if (!follow_up.scores.empty()) entry["score"] = follow_up.scores[i];
      if (!follow_up.classes.empty() && !suite.class_names.empty())
        entry["label"] = suite.class_names.at(static_cast<std::size_t>(follow_up.classes[i]));
      line["transformations"][t.name] = entry;
    }
    out.write_line(line.dump());
  }
  out.commit();
}

void write_suite_html(const std::string& path, const Suite& suite, const SuiteResult& result, const ReportSettings& settings,
                      const report::Provenance& provenance) {
  report::HtmlReport report("Metamorphic testing: " + suite_title(result.settings));
  report.settings(settings);
  add_diagram(report, suite_relation(result.settings));
  report.heading("Violations per transformation");
  std::vector<std::string> names;
  std::vector<double> rates;
  for (const auto& t : result.transformations) {
    names.push_back(t.name);
    rates.push_back(t.rate());
  }
  report.figure(rate_chart("Violation rate per transformation", "transformation", names, rates));
  report.table(suite_table(suite, result), "Test cases are source inputs (single-input) or pairs of sources satisfying the premise (pairwise).");
  report.heading("Sources with the highest violation rates");
  report.table(worst_table(suite, result, 25), "The share of each source's test cases that are violated, per transformation.");
  report.provenance(provenance).write(path);
}

// ---- compositionality ----

namespace {

report::TextTable context_table(const std::vector<Context>& contexts, const CompositionalityResult& result) {
  auto table = report::TextTable::numeric({"context", "monotonicity", "tests", "violations", "rate"}, 2);
  for (std::size_t k = 0; k < contexts.size(); ++k)
    table.rows.push_back(count_cells({contexts[k].text, monotonicity_name(contexts[k].monotonicity)}, result.contexts[k]));
  return table;
}

report::TextTable insertion_table(const std::vector<Insertion>& insertions, const CompositionalityResult& result) {
  auto table = report::TextTable::numeric({"x", "y", "relation", "tests", "violations", "rate"}, 3);
  for (std::size_t m = 0; m < insertions.size(); ++m)
    table.rows.push_back(count_cells({insertions[m].x, insertions[m].y, lexical_relation_name(insertions[m].relation)},
                                     result.insertions[m]));
  return table;
}

report::TextTable summary_table(const CompositionalityResult& result) {
  auto table = report::TextTable::numeric({"contexts", "tests", "violations", "rate"}, 1);
  table.rows.push_back(count_cells({"upward"}, result.upward));
  table.rows.push_back(count_cells({"downward"}, result.downward));
  table.rows.push_back(count_cells({"all"}, result.overall));
  return table;
}

// The inputs by violation rate, worst first (an input without tests last), with their texts.
report::TextTable worst_inputs_table(const std::vector<Context>& contexts, const std::vector<Insertion>& insertions,
                                     const CompositionalityResult& result, std::size_t count) {
  std::vector<std::size_t> order(result.inputs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto rate = [&](std::size_t i) {
    const double r = result.inputs[i].counts.rate();
    return std::isfinite(r) ? r : -1.0;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rate(a) > rate(b); });
  order.resize(std::min(count, order.size()));
  auto table = report::TextTable::numeric({"premise", "hypothesis", "monotonicity", "probe", "entailment", "tests", "violations", "rate"}, 3);
  for (auto i : order) {
    const auto& context = contexts[i / insertions.size()];
    const auto& insertion = insertions[i % insertions.size()];
    const auto& input = result.inputs[i];
    table.rows.push_back(count_cells({context.fill(insertion.x), context.fill(insertion.y), monotonicity_name(context.monotonicity),
                                      rate_text(input.probe), rate_text(input.entailment)},
                                     input.counts));
  }
  return table;
}

std::string probe_text(const ProbeSummary& probe) {
  return fmt::format("probe: L2 logistic regression on layer {} (second-to-last), {} training inputs, held-out accuracy {} ({} inputs)",
                     probe.layer, probe.train, rate_text(probe.accuracy), probe.held_out);
}

}  // namespace

std::string compositionality_text(const std::vector<Context>& contexts, const std::vector<Insertion>& insertions,
                                  const CompositionalityResult& result, const ReportSettings& settings) {
  std::string out = fmt::format("Metamorphic testing: pairwise compositionality ({} contexts × {} insertions)\n",
                                contexts.size(), insertions.size());
  out += settings_text(settings) + probe_text(result.probe) + "\n\n" + summary_table(result).render();
  out += "\nPer context:\n" + context_table(contexts, result).render();
  out += "\nPer insertion pair:\n" + insertion_table(insertions, result).render();
  out += "\nInputs with the highest violation rates:\n" + worst_inputs_table(contexts, insertions, result, 10).render();
  return out;
}

nlohmann::json compositionality_json(const std::vector<Context>& contexts, const std::vector<Insertion>& insertions,
                                     const CompositionalityResult& result, const ReportSettings& settings,
                                     const report::Provenance& provenance) {
  nlohmann::json out{{"relation", "pairwise compositionality"}, {"provenance", provenance.json()}, {"settings", settings_json(settings)},
                     {"overall", count_json(result.overall)}, {"upward", count_json(result.upward)},
                     {"downward", count_json(result.downward)}};
  out["probe"] = {{"layer", result.probe.layer}, {"train", result.probe.train}, {"held_out", result.probe.held_out},
                  {"accuracy", finite_json(result.probe.accuracy)}};
  out["contexts"] = nlohmann::json::array();
  for (std::size_t k = 0; k < contexts.size(); ++k) {
    auto entry = count_json(result.contexts[k]);
    entry["context"] = contexts[k].text;
    entry["monotonicity"] = monotonicity_name(contexts[k].monotonicity);
    out["contexts"].push_back(entry);
  }
  out["insertions"] = nlohmann::json::array();
  for (std::size_t m = 0; m < insertions.size(); ++m) {
    auto entry = count_json(result.insertions[m]);
    entry["x"] = insertions[m].x;
    entry["y"] = insertions[m].y;
    entry["relation"] = lexical_relation_name(insertions[m].relation);
    out["insertions"].push_back(entry);
  }
  return out;
}

void write_compositionality_per_source(const std::string& path, const std::vector<Context>& contexts,
                                       const std::vector<Insertion>& insertions, const CompositionalityResult& result) {
  AtomicOutput out(path);
  for (std::size_t i = 0; i < result.inputs.size(); ++i) {
    const auto& context = contexts[i / insertions.size()];
    const auto& insertion = insertions[i % insertions.size()];
    const auto& input = result.inputs[i];
    nlohmann::json line{{"input", i + 1},
                        {"context", context.text},
                        {"context_where", context.where},
                        {"monotonicity", monotonicity_name(context.monotonicity)},
                        {"x", insertion.x},
                        {"y", insertion.y},
                        {"relation", lexical_relation_name(insertion.relation)},
                        {"insertion_where", insertion.where},
                        {"premise", context.fill(insertion.x)},
                        {"hypothesis", context.fill(insertion.y)},
                        {"probe", finite_json(input.probe)},
                        {"entailment", finite_json(input.entailment)},
                        {"held_out", input.held_out}};
    line.update(count_json(input.counts));
    out.write_line(line.dump());
  }
  out.commit();
}

void write_compositionality_html(const std::string& path, const std::vector<Context>& contexts,
                                 const std::vector<Insertion>& insertions, const CompositionalityResult& result,
                                 const ReportSettings& settings, const report::Provenance& provenance) {
  report::HtmlReport report("Metamorphic testing: pairwise compositionality");
  report.settings(settings);
  report.paragraph(probe_text(result.probe));
  add_diagram(report, compositionality_relation());
  report.heading("Violations");
  report.figure(rate_chart("Violation rate by monotonicity", "contexts", {"upward", "downward", "all"},
                           {result.upward.rate(), result.downward.rate(), result.overall.rate()}));
  report.table(summary_table(result));
  report.table(context_table(contexts, result), "Per context (the paper's Table 3).");
  report.table(insertion_table(insertions, result), "Per insertion pair, over every context (the paper's Table 4).");
  report.heading("Inputs with the highest violation rates");
  report.table(worst_inputs_table(contexts, insertions, result, 25),
               "Each NLI input (premise, hypothesis) with the probe's P(hypernym), the entailment score and the share of the "
               "pairs of its context it takes part in that are violated.");
  report.provenance(provenance).write(path);
}

// ---- transitivity ----

namespace {

report::TextTable transitivity_table(const std::vector<RelationTransitivity>& results) {
  auto table = report::TextTable::numeric({"relation", "group", "triplets", "tests", "violations", "rate"}, 2);
  for (const auto& r : results) {
    for (const auto& [group, counts] : r.groups)
      if (!group.empty() || r.groups.size() > 1)
        table.rows.push_back(count_cells({r.relation, group.empty() ? "(none)" : group, std::to_string(counts.candidates)}, counts));
    table.rows.push_back(count_cells({r.relation, "all", std::to_string(r.overall.candidates)}, r.overall));
  }
  return table;
}

report::TextTable violating_table(const std::vector<Triplet>& triplets, const RelationTransitivity& r, std::size_t count) {
  report::TextTable table{{"a", "b", "c", "group", "where"}, {}, {}};
  for (std::size_t v = 0; v < r.violating.size() && v < count; ++v) {
    const auto& t = triplets[r.violating[v]];
    table.rows.push_back({t.a, t.b, t.c, t.group, t.where});
  }
  return table;
}

}  // namespace

std::string transitivity_text(const std::vector<Triplet>& triplets, const std::vector<RelationTransitivity>& results,
                              const ReportSettings& settings) {
  std::string out = "Metamorphic testing: three-way transitivity\n" + settings_text(settings) + "\n" + transitivity_table(results).render();
  for (const auto& r : results)
    if (!r.violating.empty())
      out += fmt::format("\nViolating triplets of {} ({} of {}):\n", r.relation, std::min<std::size_t>(10, r.violating.size()),
                         r.violating.size()) +
             violating_table(triplets, r, 10).render();
  return out;
}

void write_transitivity_per_source(const std::string& path, const std::vector<Triplet>& triplets,
                                   const std::vector<RelationTransitivity>& results) {
  AtomicOutput out(path);
  for (std::size_t k = 0; k < triplets.size(); ++k) {
    const auto& t = triplets[k];
    nlohmann::json line{{"triplet", k + 1}, {"where", t.where}, {"a", t.a}, {"b", t.b}, {"c", t.c}};
    if (!t.group.empty()) line["group"] = t.group;
    line["relations"] = nlohmann::json::object();
    for (const auto& r : results) {
      const auto& [ab, bc, ac] = r.judgements[k];
      line["relations"][r.relation] = {{"ab", ab}, {"bc", bc}, {"ac", ac}, {"test", ab && bc}, {"violated", ab && bc && !ac}};
    }
    out.write_line(line.dump());
  }
  out.commit();
}

nlohmann::json transitivity_json(const std::vector<Triplet>& triplets, const std::vector<RelationTransitivity>& results,
                                 const ReportSettings& settings, const report::Provenance& provenance) {
  nlohmann::json out{{"relation", "three-way transitivity"}, {"provenance", provenance.json()}, {"settings", settings_json(settings)}, {"triplets", triplets.size()}};
  out["relations"] = nlohmann::json::array();
  for (const auto& r : results) {
    auto entry = count_json(r.overall);
    entry["relation"] = r.relation;
    entry["candidates"] = r.overall.candidates;
    entry["groups"] = nlohmann::json::object();
    for (const auto& [group, counts] : r.groups) {
      entry["groups"][group] = count_json(counts);
      entry["groups"][group]["candidates"] = counts.candidates;
    }
    entry["violating"] = nlohmann::json::array();
    for (auto k : r.violating)
      entry["violating"].push_back({{"a", triplets[k].a}, {"b", triplets[k].b}, {"c", triplets[k].c}, {"where", triplets[k].where}});
    out["relations"].push_back(entry);
  }
  return out;
}

void write_transitivity_html(const std::string& path, const std::vector<Triplet>& triplets,
                             const std::vector<RelationTransitivity>& results, const ReportSettings& settings,
                             const report::Provenance& provenance) {
  report::HtmlReport report("Metamorphic testing: three-way transitivity");
  report.settings(settings);
  add_diagram(report, transitivity_relation());
  report.heading("Violations");
  std::vector<std::string> names;
  std::vector<double> rates;
  for (const auto& r : results) {
    names.push_back(r.relation);
    rates.push_back(r.overall.rate());
  }
  report.figure(rate_chart("Violation rate per relation", "relation", names, rates));
  report.table(transitivity_table(results), "Tests are triplets whose premise R(a, b) ∧ R(b, c) holds (the paper's Table 5).");
  for (const auto& r : results)
    if (!r.violating.empty())
      report.table(violating_table(triplets, r, 50), fmt::format("Violating triplets of {} (first 50 of {}).", r.relation, r.violating.size()));
  report.provenance(provenance).write(path);
}

}  // namespace invar::metamorphic
