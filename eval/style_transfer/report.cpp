#include "eval/style_transfer/report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "core/json_number.hpp"
#include "core/printable.hpp"
#include "eval/report/chart.hpp"
#include "eval/report/report.hpp"

namespace invar::style_transfer {

namespace {

using nlohmann::ordered_json;


std::string cell(double v) { return std::isnan(v) ? "nan" : fmt::format("{:.4f}", v); }

std::string group_label(const std::string& group) { return group.empty() ? "all" : group; }

std::vector<std::string> metric_names(const Scores& scores) {
  std::vector<std::string> out;
  for (const auto& m : scores.metrics) out.push_back(m.name);
  return out;
}

// The names in tables and figures, ↓ on those where lower is better (WMD, pseudo-perplexity).
std::vector<std::string> directed_names(const Scores& scores) {
  std::vector<std::string> out;
  for (const auto& m : scores.metrics) out.push_back(report::directed_name(m.name, m.higher_is_better));
  return out;
}

report::TextTable systems_table(const Evaluation& e, const std::string& group) {
  std::vector<std::string> header{"system", "segments"};
  for (const auto& name : directed_names(e.scores)) header.push_back(name);
  for (Dimension d : kDimensions) header.push_back(std::string("human ") + dimension_name(d));
  auto table = report::TextTable::numeric(header, 1);
  for (const auto& s : e.study.systems_by_group) {
    if (s.group != group) continue;
    std::vector<std::string> row{s.system, std::to_string(s.segments)};
    for (double v : s.metric_means) row.push_back(cell(v));
    for (double v : s.human_means) row.push_back(cell(v));
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string pairs_text(const metaeval::PairwiseComparison& p) {
  return fmt::format("{}/{}", p.correct, p.pairs - p.human_ties);
}

report::TextTable agreement_table(const Evaluation& e, const std::string& group) {
  auto table = report::TextTable::numeric(
      {"metric", "human", "n", "spearman", "p", "pearson", "p", "kendall", "p", "system pairs correct"}, 2);
  for (const auto& a : e.study.agreements) {
    if (a.group != group) continue;
    const auto& c = a.result.segment_pooled;
    const auto& metric = e.scores.metrics[a.metric];
    table.rows.push_back({report::directed_name(metric.name, metric.higher_is_better), dimension_name(a.dimension), std::to_string(c.n),
                          cell(c.spearman.statistic), report::format_p(c.spearman.pvalue), cell(c.pearson.statistic),
                          report::format_p(c.pearson.pvalue), cell(c.kendall.tau), report::format_p(c.kendall.pvalue),
                          pairs_text(a.result.pairwise)});
  }
  return table;
}

const CrossCorrelation& cross_of(const Evaluation& e, const std::string& group) {
  for (const auto& c : e.study.cross)
    if (c.group == group) return c;
  return e.study.cross.front();
}

report::TextTable cross_table(const Evaluation& e, const std::string& group) {
  std::vector<std::string> header{"spearman"};
  const auto names = directed_names(e.scores);
  header.insert(header.end(), names.begin(), names.end());
  auto table = report::TextTable::numeric(header, 1);
  const auto& cross = cross_of(e, group);
  for (std::size_t a = 0; a < cross.spearman.size(); ++a) {
    std::vector<std::string> row{names[a]};
    for (double v : cross.spearman[a]) row.push_back(cell(v));
    table.rows.push_back(std::move(row));
  }
  return table;
}

ordered_json pairwise_json(const metaeval::PairwiseComparison& p) {
  return {{"pairs", p.pairs},
          {"correct", p.correct},
          {"human_ties", p.human_ties},
          {"metric_ties_only", p.metric_ties_only},
          {"accuracy", json_number(p.accuracy)}};
}

ordered_json agreement_json(const Evaluation& e, const MetricAgreement& a) {
  const auto& r = a.result;
  ordered_json systems = ordered_json::array();
  for (std::size_t i = 0; i < r.systems.size(); ++i)
    systems.push_back({{"system", r.systems[i]}, {"metric", json_number(r.system_metric[i])}, {"human", json_number(r.system_human[i])}});
  return {{"group", a.group},
          {"metric", e.scores.metrics[a.metric].name},
          {"human", dimension_name(a.dimension)},
          {"segment_level", metaeval::correlation_json(r.segment_pooled)},
          {"systems", std::move(systems)},
          {"system_level", metaeval::correlation_json(r.system_level)},
          {"pairwise", pairwise_json(r.pairwise)},
          {"overall_pairwise", a.overall ? pairwise_json(a.overall->pairwise) : ordered_json(nullptr)}};
}

ordered_json human_json(const std::array<std::optional<double>, 4>& human) {
  ordered_json out = ordered_json::object();
  for (Dimension d : kDimensions)
    if (const auto& v = human[static_cast<std::size_t>(d)]) out[dimension_name(d)] = *v;
  return out;
}

ordered_json segments_json(const Evaluation& e) {
  ordered_json out = ordered_json::array();
  for (std::size_t i = 0; i < e.segments.size(); ++i) {
    const auto& s = e.segments[i];
    ordered_json scores = ordered_json::object();
    for (const auto& m : e.scores.metrics) scores[m.name] = json_number(m.values[i]);
    out.push_back({{"group", s.group}, {"system", s.system}, {"where", s.where}, {"scores", std::move(scores)},
                   {"human", human_json(s.human)}});
  }
  return out;
}

std::string latex_number(double v) { return std::isnan(v) ? "--" : fmt::format("{:.3f}", v); }

std::string latex_systems(const Evaluation& e, const std::string& group) {
  std::string out = "\\begin{tabular}{l" + std::string(e.scores.metrics.size(), 'r') + "}\n\\hline\nSystem";
  for (const auto& m : e.scores.metrics)
    out += " & " + report::latex_escape(m.name) + (m.higher_is_better ? "" : " $\\downarrow$");
  out += " \\\\\n\\hline\n";
  for (const auto& s : e.study.systems_by_group) {
    if (s.group != group) continue;
    out += report::latex_escape(s.system);
    for (double v : s.metric_means) out += " & " + latex_number(v);
    out += " \\\\\n";
  }
  return out + "\\hline\n\\end{tabular}\n";
}

std::string latex_agreement(const Evaluation& e, const std::string& group) {
  std::string out = "\\begin{tabular}{llrrrr}\n\\hline\nMetric & Human & $\\rho$ & $r$ & $\\tau$ & Pairs \\\\\n\\hline\n";
  for (const auto& a : e.study.agreements) {
    if (a.group != group) continue;
    const auto& c = a.result.segment_pooled;
    out += fmt::format("{} & {} & {} & {} & {} & {} \\\\\n", report::latex_escape(e.scores.metrics[a.metric].name),
                       dimension_name(a.dimension), latex_number(c.spearman.statistic),
                       latex_number(c.pearson.statistic), latex_number(c.kendall.tau), pairs_text(a.result.pairwise));
  }
  return out + "\\hline\n\\end{tabular}\n";
}

// ---- Table 8, Table 4, Figures 1 and 2 -----------------------------------------------------------

const char* system_scores_name(SystemScores kind) { return kind == SystemScores::Corpus ? "corpus" : "mean"; }

std::string overall_text(const MetricAgreement& a) { return a.overall ? pairs_text(a.overall->pairwise) : "-"; }

report::TextTable ranking_pairs_table(const Evaluation& e, const std::string& group) {
  auto table = report::TextTable::numeric({"metric", "human", "system score", "pairs correct", "OVERALL (combined)"}, 2);
  for (const auto& a : e.study.agreements) {
    if (a.group != group) continue;
    const auto& metric = e.scores.metrics[a.metric];
    table.rows.push_back({metric.name, dimension_name(a.dimension),
                          metric.corpus.empty() ? "mean" : system_scores_name(e.study.system_scores),
                          pairs_text(a.result.pairwise), overall_text(a)});
  }
  return table;
}

const HumanTextsCheck* human_texts_of(const Evaluation& e, const std::string& group) {
  for (const auto& h : e.human_texts)
    if (h.group == group) return &h;
  return nullptr;
}

std::string human_texts_title(const HumanTextsCheck& h) {
  return fmt::format("Formality classifier on human texts ({} informal inputs, {} formal references; Table 4)",
                     h.inputs, h.references);
}

report::TextTable classification_table(const stats::ClassificationScores& c) {
  auto table = report::TextTable::numeric({"", "precision", "recall", "f1", "support"}, 1);
  auto row = [&](const std::string& name, double p, double r, double f, std::size_t n) {
    table.rows.push_back({name, cell(p), cell(r), cell(f), std::to_string(n)});
  };
  for (const auto& k : c.per_class) row(k.label, k.precision, k.recall, k.f1, k.support);
  table.rows.push_back({"accuracy", "", "", cell(c.accuracy), std::to_string(c.n)});
  row("micro avg", c.micro.precision, c.micro.recall, c.micro.f1, c.micro.support);
  row("macro avg", c.macro.precision, c.macro.recall, c.macro.f1, c.macro.support);
  row("weighted avg", c.weighted.precision, c.weighted.recall, c.weighted.f1, c.weighted.support);
  return table;
}

report::TextTable confusion_table(const stats::ClassificationScores& c) {
  std::vector<std::string> header{"true \\ predicted"};
  header.insert(header.end(), c.labels.begin(), c.labels.end());
  auto table = report::TextTable::numeric(header, 1);
  for (std::size_t t = 0; t < c.labels.size(); ++t) {
    std::vector<std::string> row{c.labels[t]};
    for (std::size_t n : c.confusion[t]) row.push_back(std::to_string(n));
    table.rows.push_back(std::move(row));
  }
  return table;
}

report::TextTable bins_table(const Evaluation& e, const std::string& group) {
  auto table = report::TextTable::numeric({"human formality", "classed formal", "classed informal"}, 1);
  for (const auto& b : e.study.formality_bins)
    if (b.group == group) table.rows.push_back({std::to_string(b.bin), std::to_string(b.formal), std::to_string(b.informal)});
  return table;
}

// Figure 2: rows = the human dimensions then the metrics, columns = the group's systems, cell = rank.
report::TextTable ranks_table(const Evaluation& e, const std::string& group) {
  std::vector<const SystemSummary*> systems;
  for (const auto& s : e.study.systems_by_group)
    if (s.group == group) systems.push_back(&s);
  std::vector<std::string> header{"rank (1 = best)"};
  for (const auto* s : systems) header.push_back(s->system);
  auto table = report::TextTable::numeric(header, 1);
  auto add = [&](const std::string& name, const std::function<double(const SystemSummary&)>& value, bool higher) {
    std::vector<double> values;
    for (const auto* s : systems) values.push_back(value(*s));
    std::vector<std::string> row{name};
    for (std::size_t r : system_ranks(values, higher)) row.push_back(std::to_string(r));
    table.rows.push_back(std::move(row));
  };
  for (Dimension d : kDimensions)
    add(std::string("human ") + dimension_name(d),
        [d](const SystemSummary& s) { return s.human_means[static_cast<std::size_t>(d)]; }, true);
  for (std::size_t m = 0; m < e.scores.metrics.size(); ++m)
    add(e.scores.metrics[m].name, [m](const SystemSummary& s) { return s.metric_means[m]; },
        e.scores.metrics[m].higher_is_better);
  return table;
}

report::HeatMap heat_map(const Evaluation& e, const std::string& group) {
  return {.title = "Spearman correlation between metrics (segments, " + group_label(group) + ")",
          .labels = directed_names(e.scores),
          .values = cross_of(e, group).spearman};
}

}  // namespace

std::string evaluation_text(const Evaluation& e) {
  std::string out = fmt::format("{} segments, {} systems, {} group{}\n", e.segments.size(), e.study.systems.size(),
                                e.study.groups.size(), e.study.groups.size() == 1 ? "" : "s");
  for (const auto& n : e.scores.not_computed) out += fmt::format("not computed: {} ({})\n", n.metrics, n.reason);
  for (const auto& group : e.study.groups) {
    out += fmt::format("\n== {} ==\nSystem means\n{}", printable(group_label(group)), systems_table(e, group).render());
    const auto agreement = agreement_table(e, group);
    if (!agreement.rows.empty())
      out += "\nMetrics against human judgements (segment level; system pairs ordered as the human means)\n" +
             agreement.render();
    out += "\nCross-metric Spearman (segment level)\n" + cross_table(e, group).render();
    if (!agreement.rows.empty())
      out += fmt::format("\nSystem ranking (Table 8): system pairs ordered as the human means of the metric's "
                         "dimension and of combined (OVERALL); BLEU/chrF system scores: {}\n",
                         system_scores_name(e.study.system_scores)) +
             ranking_pairs_table(e, group).render();
    if (const auto* h = human_texts_of(e, group))
      out += "\n" + human_texts_title(*h) + "\n" + stats::classification_text(h->scores);
    if (const auto bins = bins_table(e, group); !bins.rows.empty())
      out += "\nFormality classifier's outputs per human formality bin (Figure 1)\n" + bins.render();
  }
  return out;
}

nlohmann::ordered_json evaluation_json(const Evaluation& e, const report::Provenance& provenance) {
  ordered_json out;
  out["provenance"] = provenance.json();
  auto& settings = out["settings"] = ordered_json::object();
  for (const auto& [name, value] : e.settings) settings[name] = value;
  auto& metrics = out["metrics"] = ordered_json::array();
  for (const auto& m : e.scores.metrics)
    metrics.push_back({{"name", m.name}, {"human", dimension_name(m.dimension)},
                       {"higher_is_better", m.higher_is_better}, {"settings", m.settings}});
  auto& missing = out["not_computed"] = ordered_json::array();
  for (const auto& n : e.scores.not_computed) missing.push_back({{"metrics", n.metrics}, {"reason", n.reason}});
  auto& systems = out["systems"] = ordered_json::array();
  for (const auto& s : e.study.systems_by_group) {
    ordered_json scores = ordered_json::object(), human = ordered_json::object();
    for (std::size_t m = 0; m < s.metric_means.size(); ++m) scores[e.scores.metrics[m].name] = json_number(s.metric_means[m]);
    for (Dimension d : kDimensions) human[dimension_name(d)] = json_number(s.human_means[static_cast<std::size_t>(d)]);
    systems.push_back({{"group", s.group}, {"system", s.system}, {"segments", s.segments}, {"scores", std::move(scores)},
                       {"human", std::move(human)}});
  }
  auto& agreements = out["meta_evaluation"] = ordered_json::array();
  for (const auto& a : e.study.agreements) agreements.push_back(agreement_json(e, a));
  auto& cross = out["cross_correlation"] = ordered_json::array();
  for (const auto& c : e.study.cross) {
    ordered_json rows = ordered_json::array();
    for (const auto& row : c.spearman) {
      ordered_json values = ordered_json::array();
      for (double v : row) values.push_back(json_number(v));
      rows.push_back(std::move(values));
    }
    cross.push_back({{"group", c.group}, {"metrics", metric_names(e.scores)}, {"spearman", std::move(rows)}});
  }
  out["system_scores"] = system_scores_name(e.study.system_scores);
  auto& classifier = out["formality_classifier"] = ordered_json::object();
  auto& human_texts = classifier["human_texts"] = ordered_json::array();
  for (const auto& h : e.human_texts)
    human_texts.push_back({{"group", h.group}, {"inputs", h.inputs}, {"references", h.references},
                           {"scores", stats::classification_json(h.scores)}});
  auto& bins = classifier["bins"] = ordered_json::array();
  for (const auto& b : e.study.formality_bins)
    bins.push_back({{"group", b.group}, {"human_formality", b.bin}, {"formal", b.formal}, {"informal", b.informal}});
  out["segments"] = segments_json(e);
  return out;
}

std::string segments_csv(const Evaluation& e, const report::Provenance& provenance) {
  // Cells appended one by one: GCC 12 warns (-Wrestrict, falsely) of "," + std::string here.
  std::string out = provenance.comment_lines("#");
  auto cell = [&out](const std::string& text) {
    out += ',';
    out += text;
  };
  out += "group,system,where";
  for (const auto& m : e.scores.metrics) cell(report::csv_field(m.name));
  for (Dimension d : kDimensions) cell(dimension_column(d));
  out += '\n';
  for (std::size_t i = 0; i < e.segments.size(); ++i) {
    const auto& s = e.segments[i];
    out += report::csv_field(s.group);
    cell(report::csv_field(s.system));
    cell(report::csv_field(s.where));
    for (const auto& m : e.scores.metrics) cell(report::csv_number(m.values[i]));
    // The input layout's None, which `invar metaeval --missing None` and st-eval itself read back.
    for (const auto& h : s.human) cell(h ? report::csv_number(*h) : "None");
    out += '\n';
  }
  return out;
}

std::string evaluation_latex(const Evaluation& e, const report::Provenance& provenance) {
  std::string out = provenance.comment_lines("%");
  for (const auto& group : e.study.groups) {
    // A group name comes from a file name: a newline in it would end the comment and start a live line.
    const std::string name = printable(group_label(group));
    out += fmt::format("% {}: system means\n{}", name, latex_systems(e, group));
    out += fmt::format("% {}: segment-level correlations with human judgements and correct system pairs\n{}", name,
                       latex_agreement(e, group));
  }
  return out;
}

void write_html_report(const std::string& path, const Evaluation& e, const report::Provenance& provenance) {
  report::HtmlReport html("Style-transfer evaluation");
  html.paragraph("Metrics of Briakou et al. (2021), \"Evaluating the Evaluation Metrics for Style Transfer\", against "
                 "the human judgements given. Similarity metrics and STS are compared with meaning judgements, the "
                 "formality regressor with formality, PLL and pseudo-perplexity with fluency. " +
                 std::string(report::kLowerIsBetterNote) + ".")
      .settings(e.settings);
  for (const auto& n : e.scores.not_computed) html.paragraph("Not computed: " + n.metrics + " (" + n.reason + ")");
  for (const auto& group : e.study.groups) {
    html.heading("Group: " + group_label(group));
    html.table(systems_table(e, group), "System means over segments");
    const auto agreement = agreement_table(e, group);
    if (!agreement.rows.empty())
      html.table(agreement, "Segment-level correlations with the matching human dimension; system pairs the "
                            "metric orders as the human means (human ties left out)");
    html.figure(report::svg(heat_map(e, group)), "Spearman correlation between metrics over segments");
    if (!agreement.rows.empty())
      html.table(ranking_pairs_table(e, group),
                 fmt::format("Table 8: system pairs each metric orders as the human means of its dimension and of "
                             "combined (OVERALL); BLEU/chrF system scores: {}",
                             system_scores_name(e.study.system_scores)));
    html.table(ranks_table(e, group), "Figure 2: relative ranking of the systems by each human dimension and metric "
                                      "(1 = best; ties share a rank)");
    if (const auto* h = human_texts_of(e, group)) {
      html.table(classification_table(h->scores), human_texts_title(*h));
      html.table(confusion_table(h->scores), "Confusion matrix on human texts (rows: true, columns: predicted)");
    }
    if (const auto bins = bins_table(e, group); !bins.rows.empty())
      html.table(bins, "Figure 1: the formality classifier's outputs per human formality bin");
  }
  html.provenance(provenance).write(path);
}

}  // namespace invar::style_transfer
