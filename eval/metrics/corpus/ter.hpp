#pragma once
// TER (Snover et al., 2006) exactly as sacrebleu 2.4.3 computes it: Tercom normalisation, greedy
// block shifts chosen by Tercom's ranking (at most 10 words, 50 positions, 1000 candidates), and a
// beam-limited Levenshtein distance around the length-scaled diagonal. The default is
// case-insensitive. Several references: the fewest edits over references divided by their
// average length.
#include <string>
#include <string_view>
#include <vector>

#include "eval/metrics/corpus/common.hpp"
#include "eval/metrics/tokenizers/mt_tokenize.hpp"
#include "eval/metrics/corpus/report.hpp"

namespace invar::metrics {

using TerOptions = TercomOptions;

struct TerStats {
  double num_edits = 0;   // integer-valued
  double ref_length = 0;  // average reference length (summed over segments for a corpus)
};

struct TerScore {
  double score = 0;  // 100 · edits / reference length (100 if the reference is empty and edits > 0)
  double num_edits = 0;
  double ref_length = 0;
};

// sacrebleu.metrics.lib_ter.translation_edit_rate on word lists: (edits, reference length).
std::pair<int, int> translation_edit_rate(const std::vector<std::string_view>& hyp_words,
                                          const std::vector<std::string_view>& ref_words);

class Ter : public CorpusMetric {
 public:
  explicit Ter(TerOptions options = {});
  const TerOptions& options() const { return options_; }

  // rstrip, then the Tercom tokenizer.
  std::string preprocess(std::string_view segment) const;
  TerStats segment_stats(std::string_view hypothesis, const std::vector<std::string>& references) const;
  TerScore compute(const TerStats& stats) const;

  TerScore sentence_score(std::string_view hypothesis, const std::vector<std::string>& references) const;
  TerScore corpus_score(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
                        int threads = 1) const;
  std::vector<TerScore> sentence_scores(const std::vector<std::string>& hyps,
                                        const std::vector<std::vector<std::string>>& refs, int threads = 1) const;

  std::string name() const override { return "TER"; }
  Signature signature(int nrefs) const override;
  ScoreReport report(const TerScore& score) const;

  // Row: num_edits, ref_length.
  std::vector<double> segment_row(std::string_view hypothesis,
                                  const std::vector<std::string>& references) const override;
  ScoreReport report_row(const std::vector<double>& summed) const override;
  double resampled_score(const std::vector<double>& float32_summed) const override;
  // num_edits, ref_length (the average reference length).
  std::vector<std::string> row_names() const override;

 private:
  TerOptions options_;
};

}  // namespace invar::metrics
