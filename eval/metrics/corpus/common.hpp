#pragma once
// Pieces shared by the corpus metrics (BLEU, chrF, TER): reference layout and parallel scoring.
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "eval/metrics/corpus/report.hpp"

namespace invar::metrics {

// What corpus-level tools (the CLI, bootstrap resampling, meta-evaluation) need from BLEU, chrF and
// TER: per-segment sufficient statistics as a row of numbers whose column sums give the corpus
// statistics, and the score / report / signature from such a sum.
class CorpusMetric {
 public:
  virtual ~CorpusMetric() = default;
  // The score's name as sacrebleu prints it: "BLEU", "chrF2", "chrF2++", "TER".
  virtual std::string name() const = 0;
  virtual std::vector<double> segment_row(std::string_view hypothesis,
                                          const std::vector<std::string>& references) const = 0;
  virtual ScoreReport report_row(const std::vector<double>& summed) const = 0;
  // A name per row column (sacrebleu's statistics in its order), for printing raw statistics.
  virtual std::vector<std::string> row_names() const = 0;
  double score_row(const std::vector<double>& summed) const { return report_row(summed).score; }
  // The score sacrebleu gives a bootstrap resample: _compute_score_from_stats on float32 sums
  // (widened to double here) with numpy 2's arithmetic, where float32 meeting a Python number stays
  // float32 (NEP 50). BLEU's is a double; chrF's and TER's are float32 values (float32_resampled).
  virtual double resampled_score(const std::vector<double>& float32_summed) const = 0;
  virtual bool float32_resampled() const { return true; }
  virtual Signature signature(int nrefs) const = 0;
};

// Rows of every segment (computed on `threads` threads) and their column sums, in order. Spans, so
// a part of a corpus is scored without copying it.
std::vector<std::vector<double>> segment_rows(const CorpusMetric& metric, std::span<const std::string> hyps,
                                              std::span<const std::vector<std::string>> refs, int threads = 1);
std::vector<double> sum_rows(const std::vector<std::vector<double>>& rows);

// A metric computed in both directions, metric(a, [b]) and metric(b, [a]), and their mean: the
// commutative scores of isometry studies (e.g. chrF̄2).
struct CommutativeScore {
  double forward = 0;
  double backward = 0;
  double mean = 0;
};

// metric(a, [b]), metric(b, [a]) and their mean, as sentence scores.
CommutativeScore commutative_score(std::string_view a, std::string_view b, const CorpusMetric& metric);

// The number of references per segment if it is the same everywhere, else -1 (sacrebleu "var").
int reference_count(const std::vector<std::vector<std::string>>& refs);

// sacrebleu's stream layout (one list per reference file, nullopt where a segment has no reference
// there) turned segment-major, dropping the nullopts. Streams must have equal lengths.
std::vector<std::vector<std::string>> references_by_segment(
    const std::vector<std::vector<std::optional<std::string>>>& streams);

// Checks hyps/refs sizes and that every segment has a reference; `metric` names the caller.
void check_corpus(const char* metric, std::size_t hyps, std::span<const std::vector<std::string>> refs);

// Fails with "FILE:LINE: empty hypothesis" at the first blank hypothesis (line = index + 1): the
// pair metrics would score it 0 (BERTScore, METEOR) or infinity (WMD) without saying why.
void check_no_empty_hypothesis(const std::vector<std::string>& hyps, const std::string& file);

// Calls body(i) for i in [0, n) on `threads` threads (0 = hardware concurrency), contiguous
// blocks per thread; rethrows the first exception.
void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t)>& body);

// score(hyps[i], refs[i]) for every segment, in parallel, after check_corpus.
template <typename Result, typename Score>
std::vector<Result> score_segments(const char* metric, std::span<const std::string> hyps,
                                   std::span<const std::vector<std::string>> refs, int threads, Score score) {
  check_corpus(metric, hyps.size(), refs);
  std::vector<Result> out(hyps.size());
  parallel_for(hyps.size(), threads, [&](std::size_t i) { out[i] = score(hyps[i], refs[i]); });
  return out;
}

}  // namespace invar::metrics
