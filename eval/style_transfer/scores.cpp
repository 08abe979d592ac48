#include "eval/style_transfer/scores.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <span>

#include "core/error.hpp"
#include "eval/metrics/corpus/common.hpp"
#include "eval/metrics/corpus/registry.hpp"
#include "eval/metrics/vectors/wmd.hpp"
#include "eval/style_transfer/classifier.hpp"

namespace invar::style_transfer {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// What a variant compares the output with: the informal input (self-) or the references (ref-).
enum class Variant { Self, Reference };

const std::vector<std::string>& compared(const Segment& s, Variant v, std::vector<std::string>& input) {
  if (v == Variant::Reference) return s.references;
  input.assign(1, s.input);
  return input;
}

std::string variant_name(Variant v, const std::string& metric) {
  return (v == Variant::Self ? "self-" : "ref-") + metric;
}

class Scoring {
 public:
  Scoring(const std::vector<Segment>& segments, std::span<const std::size_t> rows, Models& models)
      : segments_(segments), rows_(rows), models_(models) {}

  Scores run() {
    std::vector<Variant> variants{Variant::Self};
    bool references = !segments_.empty();
    for (const auto& s : segments_) references = references && !s.references.empty();
    if (references)
      variants.push_back(Variant::Reference);
    else
      out_.not_computed.push_back({"ref-* (BLEU, chrF, METEOR, BERTScore, WMD, WVCOS, STS)", "no references"});
    for (Variant v : variants) lexical(v);
    for (Variant v : variants) bertscore(v);
    for (Variant v : variants) word_vectors(v);
    regressors(references);
    pseudo_likelihood();
    return std::move(out_);
  }

 private:
  // fn(i) for every segment i of the rows, on the settings' threads.
  std::vector<double> each(const std::string& stage, const std::function<double(std::size_t)>& fn) {
    std::vector<double> values(rows_.size());
    metrics::parallel_for(rows_.size(), models_.settings().threads, [&](std::size_t k) {
      try {
        values[k] = fn(rows_[k]);
      } catch (const Error& e) {
        fail("{}: {}: {}", segments_[rows_[k]].where, stage, e.what());
      }
    });
    return values;
  }

  void add(std::string name, Dimension dimension, bool higher_is_better, std::string settings,
           std::vector<double> values) {
    for (double& v : values)
      if (!std::isfinite(v)) v = kNaN;
    out_.metrics.push_back({std::move(name), dimension, higher_is_better, std::move(settings), std::move(values)});
  }

  void mark_corpus(const char* corpus, Variant v) {
    out_.metrics.back().corpus = corpus;
    out_.metrics.back().self = v == Variant::Self;
  }

  // Sentence BLEU (effective order, as sacrebleu's sentence_bleu and `invar metric bleu --sentence`),
  // chrF and METEOR.
  void lexical(Variant v) {
    const auto bleu = metrics::make_corpus_metric("bleu", {}, {.sentence = true});
    const auto chrf = metrics::make_corpus_metric("chrf");
    auto refs_of = [&](std::size_t i) {
      std::vector<std::string> input;
      return compared(segments_[i], v, input);
    };
    const auto sentence_score = [&](const metrics::CorpusMetric& metric, std::size_t i) {
      return metric.score_row(metric.segment_row(segments_[i].output, refs_of(i)));
    };
    const int nrefs = v == Variant::Self ? 1 : reference_count();
    add(variant_name(v, "BLEU"), Dimension::Meaning, true, bleu->signature(nrefs).format(),
        each(variant_name(v, "BLEU"), [&](std::size_t i) { return sentence_score(*bleu, i); }));
    mark_corpus("bleu", v);
    add(variant_name(v, "chrF"), Dimension::Meaning, true, chrf->signature(nrefs).format(),
        each(variant_name(v, "chrF"), [&](std::size_t i) { return sentence_score(*chrf, i); }));
    mark_corpus("chrf", v);
    if (const auto* meteor = models_.meteor()) {
      add(variant_name(v, "METEOR"), Dimension::Meaning, true, meteor->signature(),
          each(variant_name(v, "METEOR"), [&](std::size_t i) { return meteor->score(segments_[i].output, refs_of(i)); }));
    } else if (v == Variant::Self) {
      out_.not_computed.push_back({"self-METEOR, ref-METEOR", models_.meteor_missing()});
    }
  }

  int reference_count() const {
    std::vector<std::vector<std::string>> refs;
    for (const auto& s : segments_) refs.push_back(s.references);
    return metrics::reference_count(refs);
  }

  // bert_score's F1, per system as `invar metric bertscore` over that system's output file: the idf
  // weights come from every compared text of the system, the rows are whole matching batches of it
  // (eval/style_transfer/rows.hpp), so padding falls as in one call over the system.
  void bertscore(Variant v) {
    TextEncoder* encoder = models_.bertscore();
    if (!encoder) {
      if (v == Variant::Self) out_.not_computed.push_back({"self-BERTScore, ref-BERTScore", "no --bertscore-model"});
      return;
    }
    const auto& settings = models_.settings();
    metrics::BertScorer scorer(*encoder, {.layer = models_.bertscore_layer(),
                                          .idf = settings.bertscore_idf,
                                          .batch_size = settings.bertscore_batch_size});
    std::vector<double> values(rows_.size(), kNaN);
    for (const auto& system : systems_of(segments_)) {
      std::vector<std::size_t> rows;
      std::vector<std::string> hyps;
      std::vector<std::vector<std::string>> refs;
      for (std::size_t k = 0; k < rows_.size(); ++k)
        if (const Segment& s = segments_[rows_[k]]; s.system == system) {
          rows.push_back(k);
          hyps.push_back(s.output);
          std::vector<std::string> input;
          refs.push_back(compared(s, v, input));
        }
      if (rows.empty()) continue;
      if (settings.bertscore_idf) {
        std::vector<std::vector<std::string>> system_refs;
        for (const auto& s : segments_)
          if (s.system == system) {
            std::vector<std::string> input;
            system_refs.push_back(compared(s, v, input));
          }
        scorer.weigh_by(system_refs);
      }
      auto scores = scorer.score(hyps, refs);
      for (std::size_t k = 0; k < rows.size(); ++k) {
        if (models_.bertscore_baseline()) scores[k] = metrics::rescale(scores[k], *models_.bertscore_baseline());
        values[rows[k]] = scores[k].f1;
      }
    }
    add(variant_name(v, "BERTScore"), Dimension::Meaning, true, models_.bertscore_hash() + " F1", std::move(values));
  }

  // WMD (lower is better) and the mean-vector cosine; with several references the best one counts.
  void word_vectors(Variant v) {
    const auto* vectors = models_.vectors();
    if (!vectors) {
      if (v == Variant::Self) out_.not_computed.push_back({"self-WMD, ref-WMD, self-WVCOS, ref-WVCOS", "no --vectors"});
      return;
    }
    const bool unit = models_.settings().unit_vectors;
    const std::string settings = fmt::format("vectors:{}|dim:{}|words:{}|tokenize:lower-split|oov:drop", vectors->path(),
                                             vectors->dimension(), vectors->size());
    add(variant_name(v, "WMD"), Dimension::Meaning, false,
        settings + (unit ? "|norm:unit" : "|norm:raw") + "|solver:exact",
        each(variant_name(v, "WMD"), [&](std::size_t i) {
          std::vector<std::string> input;
          double best = std::numeric_limits<double>::infinity();
          for (const auto& ref : compared(segments_[i], v, input))
            best = std::min(best, metrics::word_movers_distance(*vectors, segments_[i].output, ref, unit));
          return best;
        }));
    add(variant_name(v, "WVCOS"), Dimension::Meaning, true, settings + "|mean:tokens",
        each(variant_name(v, "WVCOS"), [&](std::size_t i) {
          std::vector<std::string> input;
          double best = kNaN;
          for (const auto& ref : compared(segments_[i], v, input))
            if (auto c = metrics::mean_vector_cosine(*vectors, segments_[i].output, ref); c && (std::isnan(best) || *c > best))
              best = *c;
          return best;
        }));
  }

  // `invar classify` on the outputs (formality) and `invar classify --pairs` on (first, output) pairs
  // (STS), one pass over every input the rows need.
  std::vector<std::vector<float>> logits(TextEncoder& encoder, const std::vector<TextInput>& inputs, bool pairs) {
    if (inputs.empty()) return {};
    std::size_t truncated = 0;
    const auto encodings = encoder.encode(inputs, pairs, truncated);
    return encoder.logits(encodings, {models_.settings().batch_size, {}});
  }

  std::vector<double> regress(TextEncoder& encoder, bool pairs) {
    std::vector<TextInput> inputs;
    for (std::size_t i : rows_) {
      const Segment& s = segments_[i];
      inputs.push_back(pairs ? TextInput{s.input, s.output} : TextInput{s.output, {}});
    }
    std::vector<double> out;
    for (const auto& l : logits(encoder, inputs, pairs)) out.push_back(l[0]);
    return out;
  }

  // ref-STS: the STS regressor on (reference, output); with several references the largest, as the
  // other ref- similarities take the best reference.
  std::vector<double> regress_references(TextEncoder& encoder) {
    std::vector<TextInput> inputs;
    for (std::size_t i : rows_)
      for (const auto& ref : segments_[i].references) inputs.push_back({ref, segments_[i].output});
    const auto all = logits(encoder, inputs, true);
    std::vector<double> out;
    std::size_t next = 0;
    for (std::size_t i : rows_) {
      double best = -std::numeric_limits<double>::infinity();
      for (std::size_t r = 0; r < segments_[i].references.size(); ++r) best = std::max(best, static_cast<double>(all[next++][0]));
      out.push_back(best);
    }
    return out;
  }

  void regressors(bool references) {
    if (auto* encoder = models_.formality())
      add("formality", Dimension::Formality, true, "regressor:" + models_.settings().formality + "|input:output",
          regress(*encoder, false));
    else
      out_.not_computed.push_back({"formality", "no --formality model"});
    if (auto* encoder = models_.sts()) {
      add("STS", Dimension::Meaning, true, "regressor:" + models_.settings().sts + "|input:(informal input, output)",
          regress(*encoder, true));
      if (references)
        add("ref-STS", Dimension::Meaning, true,
            "regressor:" + models_.settings().sts + "|input:(reference, output)|references:max",
            regress_references(*encoder));
    } else {
      out_.not_computed.push_back({"STS, ref-STS", "no --sts model"});
    }
    if (models_.formality_classifier()) {
      std::vector<std::string> outputs;
      for (std::size_t i : rows_) outputs.push_back(segments_[i].output);
      std::vector<double> formal;
      for (const auto& label : formality_labels(models_, outputs)) formal.push_back(label == "formal" ? 1.0 : 0.0);
      add("formality-clf", Dimension::Formality, true,
          fmt::format("classifier:{}|formal:{}|value:1 if classed formal else 0",
                      models_.settings().formality_classifier,
                      models_.formality_classifier()->model().spec().labels[models_.formal_label()]),
          std::move(formal));
    } else {
      out_.not_computed.push_back({"formality-clf", "no --formality-classifier model"});
    }
  }

  // Salazar et al. (2020): PLL = Σ log P(token | the rest) over the output's tokens, long outputs in
  // windows; pseudo-perplexity exp(−PLL / tokens), which the paper's authors recommend for fluency.
  void pseudo_likelihood() {
    TextEncoder* encoder = models_.mlm();
    if (!encoder) {
      out_.not_computed.push_back({"PLL, PPPL", "no --mlm model"});
      return;
    }
    const auto mask = *encoder->tokenizer().mask_id();
    std::vector<double> pll, pppl;
    for (std::size_t i : rows_) {
      const auto result = encoder->pll(encoder->tokenizer().encode(segments_[i].output), mask);
      double total = 0;
      for (double t : result.per_token) total += t;
      pll.push_back(total);
      pppl.push_back(result.per_token.empty() ? kNaN : std::exp(-total / static_cast<double>(result.per_token.size())));
    }
    const std::string settings = "mlm:" + models_.settings().mlm;
    add("PLL", Dimension::Fluency, true, settings + "|sum:natural-log", std::move(pll));
    add("PPPL", Dimension::Fluency, false, settings + "|exp(-PLL/tokens)", std::move(pppl));
  }

  const std::vector<Segment>& segments_;
  std::span<const std::size_t> rows_;
  Models& models_;
  Scores out_;
};

}  // namespace

Scores score_segments(const std::vector<Segment>& segments, std::span<const std::size_t> rows, Models& models) {
  return Scoring(segments, rows, models).run();
}

}  // namespace invar::style_transfer
