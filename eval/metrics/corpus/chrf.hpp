#pragma once
// chrF (Popović 2015) and chrF++ (Popović 2017) exactly as sacrebleu 2.4.3 computes them:
// character n-grams of orders 1..char_order over code points (Python whitespace removed unless
// `whitespace`), word n-grams of orders 1..word_order over sacrebleu's punctuation-split words,
// F-beta of the precision and recall averaged over the orders with matches (or chrF++.py's
// epsilon smoothing). With several references the one with the best F-score counts (the first on
// ties); corpus scores sum the statistics of every segment.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "eval/metrics/corpus/common.hpp"
#include "eval/metrics/corpus/report.hpp"

namespace invar::metrics {

struct ChrfOptions {
  int char_order = 6;
  int word_order = 0;  // 2 = chrF++
  int beta = 2;
  bool lowercase = false;
  bool whitespace = false;     // keep whitespace inside character n-grams
  bool eps_smoothing = false;  // chrF++.py / NLTK / Moses style instead of effective-order averaging
};

class ChrF : public CorpusMetric {
 public:
  explicit ChrF(ChrfOptions options = {});
  const ChrfOptions& options() const { return options_; }

  // 3 · (char_order + word_order): [hypothesis n-grams, reference n-grams, matches] per order,
  // character orders first. A reference without n-grams of an order zeroes that order's count.
  std::size_t stats_size() const { return 3 * static_cast<std::size_t>(options_.char_order + options_.word_order); }
  // The statistics against the best reference, written to out[0 .. stats_size()).
  void segment_stats(std::string_view hypothesis, const std::vector<std::string>& references,
                     std::int64_t* out) const;
  std::vector<std::int64_t> segment_stats(std::string_view hypothesis,
                                          const std::vector<std::string>& references) const;
  // The score (0-100) of a statistics vector of stats_size() values.
  double f_score(const std::int64_t* stats) const;

  double sentence_score(std::string_view hypothesis, const std::vector<std::string>& references) const;
  double sentence_score(std::string_view hypothesis, std::string_view reference) const;
  std::vector<std::int64_t> corpus_stats(const std::vector<std::string>& hyps,
                                         const std::vector<std::vector<std::string>>& refs, int threads = 1) const;
  double corpus_score(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
                      int threads = 1) const;
  std::vector<double> sentence_scores(const std::vector<std::string>& hyps,
                                      const std::vector<std::vector<std::string>>& refs, int threads = 1) const;

  // "chrF2", "chrF2++" (one "+" per word order), as sacrebleu names the score.
  std::string name() const override;
  Signature signature(int nrefs) const override;
  ScoreReport report(double score) const;

  // Row: the stats_size() statistics.
  std::vector<double> segment_row(std::string_view hypothesis,
                                  const std::vector<std::string>& references) const override;
  ScoreReport report_row(const std::vector<double>& summed) const override;
  double resampled_score(const std::vector<double>& float32_summed) const override;
  // chr{n}_hyp, chr{n}_ref, chr{n}_match per character order, then word{n}_… per word order.
  std::vector<std::string> row_names() const override;

  // sacrebleu's CHRF._remove_punctuation: whitespace-split words, one leading or trailing ASCII
  // punctuation character split off words longer than one character ("(hi)" → "(hi", ")").
  static std::vector<std::string_view> words(std::string_view sentence);
  static void words(std::string_view sentence, std::vector<std::string_view>& out);

 private:
  ChrfOptions options_;
};

}  // namespace invar::metrics
