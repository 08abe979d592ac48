// Metric calls: sacrebleu-exact BLEU, chrF and TER, corpus and sentence scores with signatures,
// from the metrics' per-segment statistics as `invar metric` computes them (tools/cmd_metric.cpp);
// NLTK's METEOR, as `invar metric meteor` (tools/cmd_metric_meteor_wmd.cpp).
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capi/guard.hpp"
#include "capi/references.hpp"
#include "capi/results.hpp"
#include "eval/metrics/corpus/bleu.hpp"
#include "eval/metrics/corpus/chrf.hpp"
#include "eval/metrics/corpus/common.hpp"
#include "eval/metrics/corpus/registry.hpp"
#include "eval/metrics/lexical/meteor.hpp"

// Sentence scores use their own instance where sacrebleu's sentence_score differs (BLEU's
// effective order); the metrics are read-only once built, so a handle may be shared by threads.
// METEOR has no corpus statistics: its sentence scores, and their mean as the corpus score.
struct invar_metric {
  std::unique_ptr<invar::metrics::CorpusMetric> corpus;
  std::unique_ptr<invar::metrics::CorpusMetric> sentence;
  std::unique_ptr<const invar::metrics::WordNet> wordnet;  // METEOR's, which `meteor` reads
  std::unique_ptr<const invar::metrics::Meteor> meteor;
};

namespace invar::capi {
namespace {

std::string flag(int value) { return value != 0 ? "true" : "false"; }

// The C options as the registry's settings (eval/metrics/corpus/registry.hpp).
metrics::MetricSettings bleu_settings(const invar_bleu_options& o) {
  metrics::MetricSettings out{{"lowercase", flag(o.lowercase)},
                              {"effective-order", flag(o.effective_order)},
                              {"max-ngram-order", std::to_string(o.max_ngram_order)}};
  if (o.tokenize != nullptr) out["tokenize"] = o.tokenize;
  if (o.smooth != nullptr) out["smooth"] = o.smooth;
  // The header: "floor and add-k only"; the other smoothings ignore it, as sacrebleu does.
  const std::string smooth = o.smooth != nullptr ? o.smooth : "exp";
  if (!std::isnan(o.smooth_value) && (smooth == "floor" || smooth == "add-k"))
    out["smooth-value"] = fmt::format("{}", o.smooth_value);
  return out;
}

// Builds the metric; the metric's own checks of its options are ArgumentErrors.
template <typename Make>
invar_status create(invar_metric** metric, Make make) {
  if (metric != nullptr) *metric = nullptr;
  return guarded([&] {
    require(metric, "metric");
    auto created = std::make_unique<invar_metric>();
    try {
      make(*created);
    } catch (const ArgumentError&) {
      throw;
    } catch (const Error& e) {
      throw ArgumentError(e.what());
    }
    *metric = created.release();
  });
}

struct Rows {
  std::vector<std::vector<double>> rows;
  std::string signature;
};

// METEOR's score of every segment against its references.
std::vector<double> meteor_scores(const metrics::Meteor& meteor, const char* const* hypotheses, std::size_t count,
                                  const char* const* references, std::size_t num_references) {
  require_texts(hypotheses, count, "hypotheses");
  const auto refs = segment_references(references, count, num_references);
  std::vector<double> scores;
  for (std::size_t i = 0; i < count; ++i) scores.push_back(meteor.score(hypotheses[i], refs[i]));
  return scores;
}

// Every segment's statistics and the signature of `metric` on these references.
Rows score_rows(const metrics::CorpusMetric& metric, const char* const* hypotheses, std::size_t count,
                const char* const* references, std::size_t num_references) {
  require_texts(hypotheses, count, "hypotheses");
  const auto refs = segment_references(references, count, num_references);
  const std::vector<std::string> hyps(hypotheses, hypotheses + count);
  return {metrics::segment_rows(metric, hyps, refs), metric.signature(metrics::reference_count(refs)).format()};
}

}  // namespace
}  // namespace invar::capi

using namespace invar::capi;
using invar::metrics::make_corpus_metric;

extern "C" {

void invar_bleu_options_init(invar_bleu_options* options) {
  if (options == nullptr) return;
  *options = invar_bleu_options{.tokenize = "13a",
                                .smooth = "exp",
                                .smooth_value = std::numeric_limits<double>::quiet_NaN(),
                                .max_ngram_order = invar::metrics::kBleuMaxOrder};
}

void invar_chrf_options_init(invar_chrf_options* options) {
  if (options == nullptr) return;
  const invar::metrics::ChrfOptions defaults;
  *options = invar_chrf_options{.char_order = defaults.char_order, .word_order = defaults.word_order, .beta = defaults.beta};
}

void invar_ter_options_init(invar_ter_options* options) {
  if (options != nullptr) *options = invar_ter_options{};
}

invar_status invar_metric_bleu(const invar_bleu_options* options, invar_metric** metric) {
  return create(metric, [&](invar_metric& m) {
    invar_bleu_options defaults;
    invar_bleu_options_init(&defaults);
    const auto settings = bleu_settings(options != nullptr ? *options : defaults);
    m.corpus = make_corpus_metric("bleu", settings, {.setting_prefix = "BLEU "});
    // As sacrebleu's sentence_score and `invar metric bleu --sentence`: effective order.
    m.sentence = make_corpus_metric("bleu", settings, {.sentence = true, .setting_prefix = "BLEU "});
  });
}

invar_status invar_metric_chrf(const invar_chrf_options* options, invar_metric** metric) {
  return create(metric, [&](invar_metric& m) {
    invar_chrf_options chosen;
    invar_chrf_options_init(&chosen);
    if (options != nullptr) chosen = *options;
    const invar::metrics::MetricSettings settings{{"char-order", std::to_string(chosen.char_order)},
                                                  {"word-order", std::to_string(chosen.word_order)},
                                                  {"beta", std::to_string(chosen.beta)},
                                                  {"lowercase", flag(chosen.lowercase)},
                                                  {"whitespace", flag(chosen.whitespace)},
                                                  {"eps-smoothing", flag(chosen.eps_smoothing)}};
    m.corpus = make_corpus_metric("chrf", settings);
    m.sentence = make_corpus_metric("chrf", settings, {.sentence = true});
  });
}

invar_status invar_metric_ter(const invar_ter_options* options, invar_metric** metric) {
  return create(metric, [&](invar_metric& m) {
    invar_ter_options chosen;
    invar_ter_options_init(&chosen);
    if (options != nullptr) chosen = *options;
    const invar::metrics::MetricSettings settings{{"normalized", flag(chosen.normalized)},
                                                  {"no-punct", flag(chosen.no_punct)},
                                                  {"asian-support", flag(chosen.asian_support)},
                                                  {"case-sensitive", flag(chosen.case_sensitive)}};
    m.corpus = make_corpus_metric("ter", settings);
    m.sentence = make_corpus_metric("ter", settings, {.sentence = true});
  });
}

void invar_meteor_options_init(invar_meteor_options* options) {
  if (options == nullptr) return;
  const invar::metrics::MeteorOptions defaults;
  *options = invar_meteor_options{
      .nltk = "3.8", .alpha = defaults.alpha, .beta = defaults.beta, .gamma = defaults.gamma, .wordnet = nullptr};
}

invar_status invar_metric_meteor(const invar_meteor_options* options, invar_metric** metric) {
  if (metric != nullptr) *metric = nullptr;
  return guarded([&] {
    require(metric, "metric");
    invar_meteor_options chosen;
    invar_meteor_options_init(&chosen);
    if (options != nullptr) chosen = *options;
    invar::metrics::MeteorOptions settings{.alpha = chosen.alpha, .beta = chosen.beta, .gamma = chosen.gamma};
    const std::string nltk = chosen.nltk != nullptr ? chosen.nltk : "3.8";
    if (nltk == "3.6.2")
      settings.version = invar::metrics::MeteorVersion::Nltk362;
    else if (nltk != "3.8")
      throw ArgumentError(fmt::format("nltk must be \"3.8\" or \"3.6.2\", got \"{}\"", nltk));
    auto created = std::make_unique<invar_metric>();
    // A missing or damaged WordNet is the input's fault (INVAR_ERROR_INPUT), as on the command line.
    created->wordnet = std::make_unique<const invar::metrics::WordNet>(
        chosen.wordnet != nullptr ? chosen.wordnet : invar::metrics::WordNet::default_directory());
    created->meteor = std::make_unique<const invar::metrics::Meteor>(*created->wordnet, settings);
    *metric = created.release();
  });
}

void invar_metric_free(invar_metric* metric) { delete metric; }

invar_status invar_corpus_score(const invar_metric* metric, const char* const* hypotheses, size_t count,
                                const char* const* references, size_t num_references, invar_score** score) {
  if (score != nullptr) *score = nullptr;
  return guarded([&] {
    require(metric, "metric");
    require(score, "score");
    if (metric->meteor) {
      const auto scores = meteor_scores(*metric->meteor, hypotheses, count, references, num_references);
      double sum = 0;
      for (double s : scores) sum += s;
      Result<invar_score, invar_score_free> out;
      out->name = new_string("METEOR");
      out->score = count > 0 ? sum / static_cast<double>(count) : std::nan("");
      out->signature = new_string(metric->meteor->signature());
      out->verbose = new_string(fmt::format("mean of {} segment{}", count, count == 1 ? "" : "s"));
      *score = out.release();
      return;
    }
    const Rows scored = score_rows(*metric->corpus, hypotheses, count, references, num_references);
    const auto report = metric->corpus->report_row(invar::metrics::sum_rows(scored.rows));
    Result<invar_score, invar_score_free> out;
    out->name = new_string(report.name);
    out->score = report.score;
    out->signature = new_string(scored.signature);
    out->verbose = new_string(report.verbose);
    *score = out.release();
  });
}

void invar_score_free(invar_score* score) {
  if (score == nullptr) return;
  delete[] score->name;
  delete[] score->signature;
  delete[] score->verbose;
  delete score;
}

invar_status invar_sentence_score(const invar_metric* metric, const char* const* hypotheses, size_t count,
                                  const char* const* references, size_t num_references,
                                  invar_sentence_scores** scores) {
  if (scores != nullptr) *scores = nullptr;
  return guarded([&] {
    require(metric, "metric");
    require(scores, "scores");
    if (metric->meteor) {
      const auto values = meteor_scores(*metric->meteor, hypotheses, count, references, num_references);
      Result<invar_sentence_scores, invar_sentence_scores_free> out;
      out->scores = new_array<double>(values);
      out->count = count;
      out->signature = new_string(metric->meteor->signature());
      *scores = out.release();
      return;
    }
    const Rows scored = score_rows(*metric->sentence, hypotheses, count, references, num_references);
    Result<invar_sentence_scores, invar_sentence_scores_free> out;
    out->scores = new double[count];
    out->count = count;
    for (std::size_t i = 0; i < count; ++i) out->scores[i] = metric->sentence->score_row(scored.rows[i]);
    out->signature = new_string(scored.signature);
    *scores = out.release();
  });
}

void invar_sentence_scores_free(invar_sentence_scores* scores) {
  if (scores == nullptr) return;
  delete[] scores->scores;
  delete[] scores->signature;
  delete scores;
}

}  // extern "C"
