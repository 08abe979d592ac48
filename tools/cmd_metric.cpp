// `invar metric bleu|chrf|ter` (every metric of eval/metrics/corpus/registry.hpp): sacrebleu 2.4.3's scores, signatures and output formats, plus the
// style-transfer wording (self-BLEU against the source, ref-BLEU against references), the
// commutative variant of isometry studies, bootstrap confidence intervals and paired bootstrap
// tests. Every score comes from the metric's per-segment statistics (eval/metrics/corpus/common.hpp), so
// sentence, corpus, commutative and resampled scores share one code path.
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <nlohmann/json.hpp>

#include "core/console.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/metrics/corpus/registry.hpp"
#include "eval/stats/resampling.hpp"
#include "core/version.hpp"
#include "run/record.hpp"
#include "tools/command.hpp"
#include "tools/metric_inputs.hpp"

namespace invar::cli {
namespace {

using metrics::CorpusMetric;
using metrics::ScoreReport;

// The hypotheses as the references of the other direction (commutative scores).
std::vector<std::vector<std::string>> as_references(std::span<const std::string> hyps) {
  std::vector<std::vector<std::string>> out;
  out.reserve(hyps.size());
  for (const auto& h : hyps) out.push_back({h});
  return out;
}

std::vector<std::string> first_references(std::span<const std::vector<std::string>> refs) {
  std::vector<std::string> out;
  out.reserve(refs.size());
  for (const auto& r : refs) out.push_back(r.front());
  return out;
}

// "self-BLEU" against the source, "ref-BLEU" against references when both are scored.
std::string comparison_label(const Comparison& c, const ScoreReport& report, std::size_t comparisons) {
  if (c.kind == "source") return "self-" + report.name;
  return comparisons > 1 ? "ref-" + report.name : "";
}

struct Result {
  std::string system;  // hypothesis file when several are scored
  std::string label;   // self-/ref- wording, or empty
  std::string compared_with;
  ScoreReport report;
  std::string signature;
  std::optional<metrics::CommutativeScore> commutative;
  std::optional<double> pvalue;  // paired bootstrap against the first system
};

// The score becomes the mean of both directions; the forward score is the one computed so far.
void make_commutative(Result& r, double backward) {
  r.commutative = metrics::CommutativeScore{r.report.score, backward, (r.report.score + backward) / 2};
  r.report.score = r.commutative->mean;
  r.report.verbose.clear();
}

std::string signature_text(const CorpusMetric& metric, const std::vector<std::vector<std::string>>& refs,
                           const MetricArguments& args, int bootstrap_samples) {
  auto signature = metric.signature(metrics::reference_count(refs));
  if (args.paired_ar)
    signature.set_randomization(args.paired_ar_n, args.seed);
  else if (bootstrap_samples > 0)
    signature.set_bootstrap(bootstrap_samples, args.seed);
  return signature.format(args.short_signature && !args.json);
}

std::string text_line(const Result& r, const MetricArguments& args, bool name_systems) {
  std::string prefix;
  if (name_systems) prefix += r.system + ": ";
  if (!r.label.empty()) prefix += r.label + ": ";
  std::string line = args.score_only ? metrics::format_score_only(r.report, args.width)
                                     : metrics::format_score_line(r.report, r.signature, args.width);
  if (r.commutative)
    line += fmt::format(" (commutative: hyp→ref {:.{}f}, ref→hyp {:.{}f})", r.commutative->forward, args.width,
                        r.commutative->backward, args.width);
  if (r.pvalue) line += fmt::format(" (p = {:.4f}){}", *r.pvalue, *r.pvalue < 0.05 ? "*" : "");
  return prefix + line;
}

nlohmann::ordered_json result_json(const Result& r, const MetricArguments& args) {
  auto out = nlohmann::ordered_json::parse(metrics::format_score_json(r.report, r.signature, args.width));
  if (!r.system.empty()) out["system"] = r.system;
  if (!r.label.empty()) out["label"] = r.label;
  out["provenance"] = provenance().json();
  out["compared_with"] = r.compared_with;
  if (r.commutative) {
    out["commutative"] = true;
    out["forward"] = r.commutative->forward;
    out["backward"] = r.commutative->backward;
  }
  if (r.pvalue) out["p_value"] = *r.pvalue;
  return out;
}

using Rows = std::vector<std::vector<double>>;

// The per-segment statistics every output of a metric is computed from, for each comparison and
// system: [comparison][system] -> one row per segment.
struct SegmentStats {
  std::vector<std::vector<Rows>> forward;
  std::vector<std::vector<Rows>> backward;  // --commutative: the reference scored against the hypothesis
};

// Statistics of segments [begin, end) as records, one per segment: every row of every comparison,
// system and direction, each number exactly (run/record.hpp).
std::vector<std::string> stat_records(const CorpusMetric& metric, const MetricArguments& args,
                                      const std::vector<std::vector<std::string>>& systems,
                                      const std::vector<Comparison>& comparisons, std::size_t begin, std::size_t end) {
  std::vector<run::RecordWriter> records(end - begin);
  const auto add = [&](const Rows& rows) {
    for (std::size_t i = 0; i < rows.size(); ++i)
      for (double v : rows[i]) records[i].put(v);
  };
  for (const auto& c : comparisons) {
    const std::span refs(c.refs.begin() + begin, c.refs.begin() + end);
    for (const auto& system : systems) {
      const std::span hyps(system.begin() + begin, system.begin() + end);
      add(metrics::segment_rows(metric, hyps, refs, args.threads));
      if (args.commutative)
        add(metrics::segment_rows(metric, first_references(refs), as_references(hyps), args.threads));
    }
  }
  std::vector<std::string> out;
  for (const auto& record : records) out.push_back(record.str());
  return out;
}

// The records of stat_records read back, in the order it wrote them.
SegmentStats read_stat_records(const std::vector<std::string>& records, std::size_t width, std::size_t systems,
                               std::size_t comparisons, bool commutative) {
  SegmentStats stats;
  stats.forward.assign(comparisons, std::vector<Rows>(systems));
  stats.backward.assign(comparisons, std::vector<Rows>(systems));
  for (const auto& text : records) {
    run::RecordReader record(text, "statistics");
    const auto take = [&](Rows& rows) {
      auto& row = rows.emplace_back(width);
      for (auto& value : row) value = record.get_double();
    };
    for (std::size_t c = 0; c < comparisons; ++c)
      for (std::size_t s = 0; s < systems; ++s) {
        take(stats.forward[c][s]);
        if (commutative) take(stats.backward[c][s]);
      }
    record.finish();
  }
  return stats;
}

// --confidence, --paired-bs and --paired-ar (sacrebleu's CLI: no interval with --paired-ar). The
// baseline of --paired-bs gets its interval from the same resamples as the paired test.
void resample(Result& r, const CorpusMetric& metric, const MetricArguments& args, const Rows& baseline,
              const Rows& rows, bool is_baseline) {
  const auto score = [&](const std::vector<double>& summed) { return metric.score_row(summed); };
  const int samples = args.paired_bs ? args.paired_bs_n : args.confidence_n;
  // Resamples scored as sacrebleu scores them (numpy's float32 arithmetic), so the digits are its.
  const stats::BootstrapOptions bootstrap{
      .samples = samples,
      .seed = args.seed,
      .resampled_score = [&](const std::vector<double>& summed) { return metric.resampled_score(summed); },
      .float32_scores = metric.float32_resampled()};
  std::optional<stats::BootstrapInterval> interval;
  if (args.paired_ar && !is_baseline) {
    r.pvalue = stats::paired_randomization(baseline, rows, score, {.trials = args.paired_ar_n, .seed = args.seed}).pvalue;
  } else if (args.paired_bs && !is_baseline) {
    const auto test = stats::paired_bootstrap(baseline, rows, score, bootstrap);
    interval = test.system;
    r.pvalue = test.pvalue;
  } else if (args.paired_bs || args.confidence) {
    interval = stats::bootstrap_ci(rows, score, bootstrap);
  }
  if (interval) {
    r.report.ci_mean = interval->mean;
    r.report.ci_half_width = interval->half_width;
  }
}

// Corpus scores: one Result per system and comparison.
void run_corpus(const CorpusMetric& metric, const MetricArguments& args, std::size_t systems,
                const std::vector<Comparison>& comparisons, const SegmentStats& stats, AtomicOutput& out) {
  const auto score = [&](const std::vector<double>& summed) { return metric.score_row(summed); };
  const int samples = args.paired_bs ? args.paired_bs_n : args.confidence ? args.confidence_n : 0;
  std::vector<Result> results;
  for (std::size_t ci = 0; ci < comparisons.size(); ++ci) {
    const auto& c = comparisons[ci];
    const auto signature = signature_text(metric, c.refs, args, samples);
    Rows baseline;
    for (std::size_t s = 0; s < systems; ++s) {
      Result r;
      if (systems > 1) r.system = args.hyps[s];
      r.compared_with = c.kind;
      r.signature = signature;
      const auto& rows = stats.forward[ci][s];
      r.report = metric.report_row(metrics::sum_rows(rows));
      r.label = comparison_label(c, r.report, comparisons.size());
      if (args.commutative) make_commutative(r, score(metrics::sum_rows(stats.backward[ci][s])));
      if (s == 0 && (args.paired_bs || args.paired_ar)) baseline = rows;
      resample(r, metric, args, baseline, rows, s == 0);
      results.push_back(std::move(r));
    }
  }
  if (args.json) {
    if (results.size() == 1) {
      out.write_line(result_json(results.front(), args).dump(1));
    } else {
      auto list = nlohmann::ordered_json::array();
      for (const auto& r : results) list.push_back(result_json(r, args));
      out.write_line(list.dump(1));
    }
    return;
  }
  for (const auto& r : results) out.write_line(text_line(r, args, systems > 1));
}

// One score per line, aligned with the hypotheses.
void run_sentences(const CorpusMetric& metric, const MetricArguments& args, const Comparison& c,
                   const SegmentStats& stats, AtomicOutput& out) {
  const auto& rows = stats.forward[0][0];
  const auto& backward = stats.backward[0][0];
  const auto signature = signature_text(metric, c.refs, args, 0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Result r{.compared_with = c.kind, .report = metric.report_row(rows[i]), .signature = signature};
    if (args.commutative) make_commutative(r, metric.score_row(backward[i]));
    if (args.json) {
      nlohmann::ordered_json line{{"line", i + 1}, {"score", r.report.score}};
      if (r.commutative) {
        line["forward"] = r.commutative->forward;
        line["backward"] = r.commutative->backward;
      }
      out.write_line(line.dump());
    } else {
      out.write_line(text_line(r, args, false));
    }
  }
}

// A statistic as downstream tools want it: counts as integers, TER's average lengths as reals.
nlohmann::ordered_json stat_json(double value) {
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) return static_cast<std::int64_t>(value);
  return value;
}

std::string stat_text(double value) { return stat_json(value).dump(); }

// --stats: the sufficient statistics instead of scores, one row per segment (--sentence) or one
// summed row per system and comparison; TSV with a header, or JSON (Lines for --sentence).
void run_raw_stats(const CorpusMetric& metric, const MetricArguments& args, const std::vector<Comparison>& comparisons,
                   const SegmentStats& stats, AtomicOutput& out) {
  const auto names = metric.row_names();
  const auto row_json = [&](const std::vector<double>& row, nlohmann::ordered_json json) {
    for (std::size_t k = 0; k < names.size(); ++k) json[names[k]] = stat_json(row[k]);
    return json;
  };
  const auto row_text = [&](const std::vector<double>& row, std::string prefix) {
    for (double v : row) {
      prefix += '\t';
      prefix += stat_text(v);
    }
    return prefix;
  };
  if (args.sentence) {
    if (!args.json) out.write_line(fmt::format("line\t{}", fmt::join(names, "\t")));
    const auto& rows = stats.forward[0][0];
    for (std::size_t i = 0; i < rows.size(); ++i)
      out.write_line(args.json ? row_json(rows[i], {{"line", i + 1}}).dump() : row_text(rows[i], std::to_string(i + 1)));
    return;
  }
  if (!args.json) out.write_line(fmt::format("system\tcompared_with\t{}", fmt::join(names, "\t")));
  auto list = nlohmann::ordered_json::array();
  for (std::size_t ci = 0; ci < comparisons.size(); ++ci)
    for (std::size_t s = 0; s < args.hyps.size(); ++s) {
      const auto& c = comparisons[ci];
      const auto summed = metrics::sum_rows(stats.forward[ci][s]);
      if (!args.json) {
        out.write_line(row_text(summed, args.hyps[s] + "\t" + c.kind));
        continue;
      }
      list.push_back(row_json(summed, {{"system", args.hyps[s]},
                                       {"compared_with", c.kind},
                                       {"signature", signature_text(metric, c.refs, args, 0)}}));
    }
  if (args.json) out.write_line(list.size() == 1 ? list.front().dump(1) : list.dump(1));
}

void check_arguments(const MetricArguments& args) {
  if (args.width < 0 || args.width > 17) fail("--width must be between 0 and 17, got {}", args.width);
  if (args.threads < 0) fail("--threads must be >= 0 (0 = all cores), got {}", args.threads);
  if (args.num_refs < 1) fail("--num-refs must be >= 1, got {}", args.num_refs);
  if (!args.language_pair.empty() && !target_language(args.language_pair))
    fail("--language-pair must be SRC-TRG (e.g. de-ja), got '{}'", args.language_pair);
  if (args.paired_bs && args.paired_ar) fail("--paired-bs and --paired-ar are two tests: choose one");
  if (args.paired_bs && args.hyps.size() < 2)
    fail("--paired-bs compares systems: give a baseline and at least one more --hyp FILE");
  if (args.paired_ar && args.hyps.size() < 2)
    fail("--paired-ar compares systems: give a baseline and at least one more --hyp FILE");
  if (args.paired_bs && args.confidence) fail("--paired-bs already reports confidence intervals; leave out --confidence");
  if (args.paired_ar && args.confidence) fail("--paired-ar reports no confidence intervals (as sacrebleu); leave out --confidence");
  if (args.paired_ar && args.paired_ar_n < 1) fail("--paired-ar-n must be >= 1, got {}", args.paired_ar_n);
  if ((args.paired_bs || args.paired_ar || args.confidence) && (args.sentence || args.commutative))
    fail("resampling tests apply to corpus scores; leave out --sentence and --commutative");
  if (args.raw_stats && (args.paired_bs || args.paired_ar || args.confidence || args.commutative || args.score_only))
    fail("--stats prints statistics, not scores: leave out --commutative, --score-only and the resampling options");
}

void run(const MetricArguments& args, const CorpusMetric& metric) {
  check_arguments(args);
  std::vector<std::vector<std::string>> systems;
  for (const auto& file : args.hyps) {
    systems.push_back(read_segments(file));
    check_aligned(file, systems.back().size(), args.hyps.front(), systems.front().size());
    if (args.empty == "error") metrics::check_no_empty_hypothesis(systems.back(), file);
  }
  const auto comparisons = read_comparisons(args, systems.front().size());
  if (args.commutative)
    for (const auto& c : comparisons)
      if (metrics::reference_count(c.refs) != 1)
        fail("--commutative swaps hypothesis and reference: give exactly one reference file");

  if (args.sentence && systems.size() > 1) fail("--sentence scores one system: give one --hyp FILE");
  if (args.sentence && comparisons.size() > 1) fail("--sentence scores one comparison: give --source or --ref, not both");

  // Segments run in chunks (run/row_run.hpp: --resume, --shard, MPI); corpus scores come from
  // the summed statistics, so a part's statistics are all a merge needs.
  RowRun segments(row_run_spec(args.control, {.inputs = {"--hyp", "--ref", "--source"},
                   .output = args.output, .rows = systems.front().size(), .chunk = 512}));
  if (!segments.process([&](std::size_t begin, std::size_t end) {
        return stat_records(metric, args, systems, comparisons, begin, end);
      }))
    return;
  const auto stats = read_stat_records(segments.records(), metric.row_names().size(), systems.size(),
                                       comparisons.size(), args.commutative);
  AtomicOutput out(args.output);
  if (args.raw_stats) {
    run_raw_stats(metric, args, comparisons, stats, out);
  } else if (args.sentence) {
    run_sentences(metric, args, comparisons.front(), stats, out);
  } else {
    run_corpus(metric, args, systems.size(), comparisons, stats, out);
  }
  out.commit();
  segments.close();
}

void add_common_options(CLI::App* app, MetricArguments& args) {
  args.hyps = {"-"};  // as sacrebleu: standard input when no file is named (replaced by the -i files given)
  app->add_option("-i,--hyp", args.hyps,
                  "Hypotheses, one segment per line (repeat for several systems; with --paired-bs the first "
                  "is the baseline); default and '-': standard input");
  app->add_option("-r,--ref", args.refs,
                  "References, line-aligned with the hypotheses (repeat for several references per segment)");
  app->add_option("--num-refs", args.num_refs,
                  "References per segment in the one --ref FILE, tab-separated on each line (sacrebleu --num-refs)")
      ->capture_default_str();
  app->add_option("-l,--language-pair", args.language_pair,
                  "Language pair SRC-TRG; BLEU without --tokenize then tokenizes as sacrebleu does for TRG "
                  "(zh: zh, ja: ja-mecab, ko: ko-mecab, else 13a)");
  app->add_option("--source", args.source,
                  "Sources, line-aligned: score the hypotheses against their sources (self-BLEU of style "
                  "transfer: how much of the input is copied). With --ref too, both are reported, labelled "
                  "self- and ref-");
  app->add_flag("--sentence,--sentence-level", args.sentence,
                "One score per line, aligned with the hypotheses (BLEU turns on effective order, as sacrebleu)");
  app->add_flag("--commutative", args.commutative,
                "Mean of metric(hyp, ref) and metric(ref, hyp) (isometry studies' commutative chrF); needs one "
                "reference per segment");
  app->add_flag("--json", args.json,
                "JSON with the fields of sacrebleu's JSON output (plus invar_version); with --sentence, JSON "
                "Lines {line, score} with unrounded scores");
  app->add_flag("-b,--score-only", args.score_only, "Print only the score");
  app->add_flag("--stats", args.raw_stats,
                "Print the raw sufficient statistics instead of scores (BLEU: sys_len, ref_len, n-gram counts and "
                "totals; chrF: hyp/ref/match per order; TER: edits and average reference length): TSV with a header, "
                "per line with --sentence, or JSON with --json");
  app->add_flag("--short", args.short_signature, "Abbreviated signature (#:1|c:mixed|...) in text output");
  app->add_option("-w,--width", args.width, "Decimals of printed scores")->capture_default_str();
  app->add_option("--threads", args.threads, "Threads scoring segments (0 = all cores); results do not depend on it")
      ->capture_default_str();
  app->add_flag("--confidence", args.confidence, "Bootstrap 95% confidence interval (μ ± half-width) of the score");
  app->add_option("--confidence-n", args.confidence_n, "Bootstrap resamples for --confidence")->capture_default_str();
  app->add_flag("--paired-bs", args.paired_bs,
                "Paired bootstrap test of every --hyp against the first (Koehn 2004, as sacrebleu --paired-bs); "
                "p < 0.05 is starred");
  app->add_option("--paired-bs-n", args.paired_bs_n, "Resamples for --paired-bs")->capture_default_str();
  app->add_flag("--paired-ar", args.paired_ar,
                "Paired approximate randomization test of every --hyp against the first (as sacrebleu --paired-ar: "
                "p = (1 + #{trials with |Δ| > |Δ observed|}) / (trials + 1)); p < 0.05 is starred");
  app->add_option("--paired-ar-n", args.paired_ar_n, "Trials for --paired-ar")->capture_default_str();
  app->add_option("--seed", args.seed,
                  "Resampling seed (SACREBLEU_SEED: the draws are numpy's default_rng(seed), as sacrebleu's)")
      ->capture_default_str();
  app->add_option("--empty", args.empty,
                  "An empty hypothesis: reference (scored as sacrebleu scores it) or error (naming its line)")
      ->check(CLI::IsMember({"error", "reference"}))
      ->capture_default_str();
  app->add_option("-o,--output", args.output, "Write here instead of standard output (complete or not at all)");
  add_run_control_options(*app, args.control);
  app->footer(
      "Scores, signatures and formats reproduce sacrebleu 2.4.3 exactly; the signature's version field names "
      "that algorithm (version:2.4.3) so it compares equal with sacrebleu's, and --json adds invar_version. "
      "Lines are rstrip()ped as sacrebleu's CLI reads them.");
}

// A registered metric's settings as options of its subcommand; what the user gave (and the
// defaults help shows) becomes its settings by name.
class SettingOptions {
 public:
  SettingOptions(CLI::App& app, const metrics::RegisteredMetric& metric) : metric_(metric) {
    values_.resize(metric.settings.size());
    for (std::size_t k = 0; k < metric.settings.size(); ++k) {
      const auto& s = metric.settings[k];
      auto& v = values_[k];
      std::string names;
      for (const auto& alias : s.aliases)
        if (alias.size() == 2) names += alias + ",";
      names += "--" + s.name;
      for (const auto& alias : s.aliases)
        if (alias.size() > 2) names += "," + alias;
      switch (s.kind) {
        case Kind::Flag: v.option = app.add_flag(names, v.flag, s.help); break;
        case Kind::Integer:
          if (!s.shown_default.empty()) v.integer = std::stoi(s.shown_default);
          v.option = app.add_option(names, v.integer, s.help);
          break;
        case Kind::Real: v.option = app.add_option(names, v.real, s.help); break;
        case Kind::Text:
          v.text = s.shown_default;
          v.option = app.add_option(names, v.text, s.help);
          break;
      }
      if (!s.shown_default.empty()) v.option->capture_default_str();
    }
  }

  // Fails, naming the option, on a number outside the setting's range.
  metrics::MetricSettings settings() const {
    metrics::MetricSettings out;
    for (std::size_t k = 0; k < values_.size(); ++k) {
      const auto& s = metric_.settings[k];
      const auto& v = values_[k];
      const bool given = v.option->count() > 0;
      switch (s.kind) {
        case Kind::Flag:
          if (v.flag) out[s.name] = "true";
          break;
        case Kind::Integer:
          if (s.min && s.max && (v.integer < *s.min || v.integer > *s.max))
            fail("--{} must be {}..{}, got {}", s.name, *s.min, *s.max, v.integer);
          if (s.min && !s.max && v.integer < *s.min) fail("--{} must be >= {}, got {}", s.name, *s.min, v.integer);
          if (given || !s.shown_default.empty()) out[s.name] = std::to_string(v.integer);
          break;
        case Kind::Real:
          if (given) out[s.name] = fmt::format("{}", v.real);
          break;
        case Kind::Text:
          if (given || !s.shown_default.empty()) out[s.name] = v.text;
          break;
      }
    }
    return out;
  }

 private:
  using Kind = metrics::MetricSetting::Kind;
  struct Value {
    CLI::Option* option = nullptr;
    bool flag = false;
    int integer = 0;
    double real = 0;
    std::string text;
  };
  const metrics::RegisteredMetric& metric_;
  std::vector<Value> values_;
};

void setup_metric(CLI::App& parent, const metrics::RegisteredMetric& metric) {
  auto args = std::make_shared<MetricArguments>();
  auto* app = parent.add_subcommand(metric.name, metric.description);
  add_common_options(app, *args);
  auto options = std::make_shared<SettingOptions>(*app, metric);
  app->callback([=, &metric] {
    const auto settings = options->settings();
    const auto target = args->language_pair.empty() ? std::nullopt : target_language(args->language_pair);
    const auto chosen = metrics::make_corpus_metric(
        metric.name, settings,
        {.sentence = args->sentence,
         .target_language = target.value_or(""),
         .warn = [](const std::string& advice) { print_line(fmt::format("invar: {}", advice)); }});
    run(*args, *chosen);
  });
}

void setup(CLI::App& root) {
  auto* app = root.add_subcommand(
      "metric",
      "Reference-based text metrics: BLEU, chrF, TER (sacrebleu 2.4.3-exact), BERTScore (bert_score 0.3.13-exact), "
      "with signatures; METEOR (NLTK), Word Mover's Distance and mean word-vector cosine");
  app->require_subcommand(1);
  for (const auto& metric : metrics::corpus_metrics()) setup_metric(*app, metric);
  add_subcommands(*app, "metric");  // bertscore, meteor, wmd, wvcos: they need models or word vectors
}

INVAR_COMMAND("metric", setup);

}  // namespace
}  // namespace invar::cli
