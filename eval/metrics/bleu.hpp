#pragma once
// BLEU (Papineni et al., 2002) exactly as sacrebleu 2.4.3 computes it: the same tokenizers,
// n-gram clipping against the maximum count over references, closest reference length (shorter
// on ties), smoothing (Chen & Cherry 2014: none, floor, add-k, exp) and effective order.
//
// References come segment-major: refs[i] holds the references of segment i (any number >= 1; a
// missing reference is simply absent, so the count may vary — sacrebleu's `None`). An empty
// string is a reference (it counts, as in sacrebleu).
//
// Self-BLEU / reference-BLEU of style-transfer studies are this metric with the source or the
// human reference passed as the reference; nothing else differs.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/metrics/common.hpp"
#include "eval/metrics/report.hpp"

namespace invar::metrics {

enum class BleuTokenizer { None, V13a, Intl, Zh, Char };
std::optional<BleuTokenizer> parse_bleu_tokenizer(std::string_view name);  // "none", "13a", "intl", "zh", "char"
const char* bleu_tokenizer_name(BleuTokenizer tokenizer);

enum class BleuSmoothing { None, Floor, AddK, Exp };
std::optional<BleuSmoothing> parse_bleu_smoothing(std::string_view name);  // "none", "floor", "add-k", "exp"
const char* bleu_smoothing_name(BleuSmoothing smoothing);

inline constexpr int kBleuMaxOrder = 4;

struct BleuOptions {
  BleuTokenizer tokenize = BleuTokenizer::V13a;
  BleuSmoothing smooth = BleuSmoothing::Exp;
  std::optional<double> smooth_value;  // nullopt: floor 0.1, add-k 1 (sacrebleu's defaults)
  bool lowercase = false;
  bool effective_order = false;
};

// Sufficient statistics of one segment or (summed) of a corpus.
struct BleuStats {
  std::int64_t sys_len = 0;
  std::int64_t ref_len = 0;
  std::array<std::int64_t, kBleuMaxOrder> correct{};
  std::array<std::int64_t, kBleuMaxOrder> total{};
  BleuStats& operator+=(const BleuStats& other);
};

struct BleuScore {
  double score = 0;
  // As sacrebleu returns them: with add-k, orders 2-4 are incremented by k (when anything matched).
  std::array<double, kBleuMaxOrder> counts{};
  std::array<double, kBleuMaxOrder> totals{};
  std::array<double, kBleuMaxOrder> precisions{};
  double bp = 0;
  std::int64_t sys_len = 0;
  std::int64_t ref_len = 0;
  // "P1/P2/P3/P4 (BP = ... ratio = ... hyp_len = ... ref_len = ...)", as sacrebleu prints it.
  std::string verbose() const;
};

class Bleu : public CorpusMetric {
 public:
  explicit Bleu(BleuOptions options = {});
  const BleuOptions& options() const { return options_; }

  // sacrebleu's _preprocess_segment: optional str.lower(), rstrip(), tokenizer.
  std::string preprocess(std::string_view segment) const;

  BleuStats segment_stats(std::string_view hypothesis, const std::vector<std::string>& references) const;
  BleuScore compute(const BleuStats& stats) const;

  BleuScore sentence_score(std::string_view hypothesis, const std::vector<std::string>& references) const;
  BleuScore sentence_score(std::string_view hypothesis, std::string_view reference) const;
  // Segment statistics summed in order; refs.size() must equal hyps.size().
  BleuStats corpus_stats(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
                         int threads = 1) const;
  BleuScore corpus_score(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
                         int threads = 1) const;
  // One sentence score per segment, computed on `threads` threads (0 = hardware concurrency).
  std::vector<BleuScore> sentence_scores(const std::vector<std::string>& hyps,
                                         const std::vector<std::vector<std::string>>& refs, int threads = 1) const;

  // nrefs as computed by reference_count() (-1 = var).
  Signature signature(int nrefs) const override;
  ScoreReport report(const BleuScore& score) const;

  // Row: sys_len, ref_len, correct[4], total[4].
  std::vector<double> segment_row(std::string_view hypothesis,
                                  const std::vector<std::string>& references) const override;
  ScoreReport report_row(const std::vector<double>& summed) const override;

 private:
  BleuOptions options_;
};

}  // namespace invar::metrics
