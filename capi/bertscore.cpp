// invar_bertscore: BERTScore as `invar metric bertscore` computes it (tools/cmd_bertscore.cpp), in one
// call: the idf weights from the call's references, one matching over every segment.
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "capi/guard.hpp"
#include "capi/model.hpp"
#include "capi/references.hpp"
#include "capi/results.hpp"
#include "eval/metrics/bertscore/bertscore.hpp"

using namespace invar::capi;

extern "C" {

void invar_bertscore_options_init(invar_bertscore_options* options) {
  if (options == nullptr) return;
  const invar::metrics::BertScoreOptions defaults;
  *options = invar_bertscore_options{
      .layer = -1, .idf = 0, .batch_size = defaults.batch_size, .max_length = 0, .baseline = nullptr};
}

invar_status invar_bertscore(invar_model* model, const char* const* hypotheses, size_t count,
                             const char* const* references, size_t num_references,
                             const invar_bertscore_options* options, invar_bertscores** scores) {
  if (scores != nullptr) *scores = nullptr;
  return guarded([&] {
    invar::TextEncoder& encoder = encoder_of(model, "bertscore");
    require_texts(hypotheses, count, "hypotheses");
    require(scores, "scores");
    invar_bertscore_options chosen;
    invar_bertscore_options_init(&chosen);
    if (options != nullptr) chosen = *options;
    if (chosen.layer < -1) throw ArgumentError(fmt::format("layer must be -1 (the model's) or >= 0, got {}", chosen.layer));
    if (chosen.batch_size == 0) throw ArgumentError("batch_size must be at least 1");
    const std::vector<std::string> hyps(hypotheses, hypotheses + count);
    const auto refs = segment_references(references, count, num_references);
    for (std::size_t i = 0; i < count; ++i)
      if (refs[i].empty()) throw ArgumentError(fmt::format("hypotheses[{}] has no reference", i));

    const std::string& path = encoder.source().path();
    const std::int64_t layer = invar::metrics::bertscore_layer(
        path, encoder.source(), chosen.layer < 0 ? std::nullopt : std::optional<std::int64_t>(chosen.layer));
    std::optional<invar::metrics::BertScoreBaseline> baseline;
    if (chosen.baseline != nullptr) baseline = invar::metrics::read_bertscore_baseline(chosen.baseline, layer);
    // The texts bert_score embeds: each distinct one once.
    std::set<std::string_view> texts(hyps.begin(), hyps.end());
    for (const auto& segment : refs) texts.insert(segment.begin(), segment.end());
    invar::metrics::BertScorer scorer(
        encoder, {.layer = layer,
                  .idf = chosen.idf != 0,
                  .batch_size = chosen.batch_size,
                  .max_length = chosen.max_length,
                  // The engine copies the callback: the count is shared.
                  .progress = [model, total = texts.size(), done = std::make_shared<std::size_t>(0)](std::size_t batch) {
                    *done += batch;
                    report_progress(*model, *done, total);
                  }});
    auto values = scorer.score(hyps, refs);
    if (baseline)
      for (auto& s : values) s = invar::metrics::rescale(s, *baseline);

    Result<invar_bertscores, invar_bertscores_free> out;
    out->precision = new float[count];
    out->recall = new float[count];
    out->f1 = new float[count];
    out->count = count;
    for (std::size_t i = 0; i < count; ++i) {
      out->precision[i] = values[i].precision;
      out->recall[i] = values[i].recall;
      out->f1[i] = values[i].f1;
    }
    const auto mean = invar::metrics::mean_score(values);
    out->mean[0] = mean.precision;
    out->mean[1] = mean.recall;
    out->mean[2] = mean.f1;
    out->layer = layer;
    out->hash = new_string(invar::metrics::bertscore_hash(invar::metrics::bertscore_model_name(path), layer,
                                                          chosen.idf != 0, baseline.has_value()));
    for (std::string_view text : texts) out->truncated += scorer.truncated(text) ? 1 : 0;
    *scores = out.release();
  });
}

void invar_bertscores_free(invar_bertscores* scores) {
  if (scores == nullptr) return;
  delete[] scores->precision;
  delete[] scores->recall;
  delete[] scores->f1;
  delete[] scores->hash;
  delete scores;
}

}  // extern "C"
