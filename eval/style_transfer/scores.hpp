#pragma once
// Every automatic metric of Briakou et al. (2021) on every segment, each computed by the code the
// single-metric commands use: BLEU and chrF (sacrebleu, sentence level: `invar metric bleu|chrf
// --sentence`), METEOR (NLTK), BERTScore F1 (bert_score), WMD and mean word-vector cosine, in a
// self- variant (the output against its informal input) and a ref- variant (against the references);
// the formality regressor on the output and the STS regressor on the (input, output) pair (`invar
// classify [--pairs]`); the pseudo-log-likelihood of the output and its pseudo-perplexity (`invar
// pll --ppl`). A metric whose model or data is missing is not computed, with the reason. The STS
// regressor also scores (reference, output) (ref-STS), and a formality classifier gives each output
// 1 (classed formal) or 0 (formality-clf).
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "eval/style_transfer/data.hpp"
#include "eval/style_transfer/models.hpp"

namespace invar::style_transfer {

struct MetricScores {
  std::string name;  // "self-BLEU", "ref-BERTScore", "formality", …
  Dimension dimension;  // the human dimension it is meta-evaluated against
  bool higher_is_better = true;
  std::string settings;  // the metric's signature
  std::vector<double> values;  // per segment; NaN where undefined (no known word, empty output)
  // BLEU and chrF: the corpus metric (registry name) a system's score can be computed with over its
  // segments (sacrebleu's corpus_bleu / corpus_chrf, as the paper's Table 8), and whether it compares
  // with the input (self-) or the references (ref-). Empty for the other metrics.
  std::string corpus;
  bool self = false;
};

struct NotComputed {
  std::string metrics;  // e.g. "formality", "ref-* (every reference-based metric)"
  std::string reason;
};

struct Scores {
  std::vector<MetricScores> metrics;
  std::vector<NotComputed> not_computed;
};

// The metrics, their settings and what is not computed, with the values of the segments `rows`
// (indices into `segments`) only, in that order: a row run computes its chunks so
// (eval/style_transfer/rows.hpp), and no rows give the metrics without values. Every segment is
// read for what is global to them: the reference count of the signatures and BERTScore's idf
// weights (from every compared text of a system).
Scores score_segments(const std::vector<Segment>& segments, std::span<const std::size_t> rows, Models& models);

}  // namespace invar::style_transfer
