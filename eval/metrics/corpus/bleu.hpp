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
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/metrics/corpus/common.hpp"
#include "eval/metrics/tokenizers/registry.hpp"
#include "eval/metrics/corpus/report.hpp"

namespace invar::metrics {

enum class BleuSmoothing { None, Floor, AddK, Exp };
std::optional<BleuSmoothing> parse_bleu_smoothing(std::string_view name);  // "none", "floor", "add-k", "exp"
const char* bleu_smoothing_name(BleuSmoothing smoothing);

// sacrebleu's MAX_NGRAM_ORDER: the default of BleuOptions::max_ngram_order.
inline constexpr int kBleuMaxOrder = 4;

struct BleuOptions {
  std::string tokenize = "13a";  // a name of the tokenizer registry (eval/metrics/tokenizers/registry.hpp)
  BleuSmoothing smooth = BleuSmoothing::Exp;
  std::optional<double> smooth_value;  // nullopt: floor 0.1, add-k 1 (sacrebleu's defaults)
  bool lowercase = false;
  bool effective_order = false;
  int max_ngram_order = kBleuMaxOrder;  // n-gram orders 1..max_ngram_order (sacrebleu's max_ngram_order)
};

// Sufficient statistics of one segment or (summed) of a corpus; correct/total have one entry per
// n-gram order.
struct BleuStats {
  std::int64_t sys_len = 0;
  std::int64_t ref_len = 0;
  std::vector<std::int64_t> correct;
  std::vector<std::int64_t> total;
  BleuStats& operator+=(const BleuStats& other);
};

struct BleuScore {
  double score = 0;
  // As sacrebleu returns them: with add-k, orders 2-4 are incremented by k (when anything matched).
  std::vector<double> counts;
  std::vector<double> totals;
  std::vector<double> precisions;
  double bp = 0;
  std::int64_t sys_len = 0;
  std::int64_t ref_len = 0;
  // "P1/P2/P3/P4 (BP = ... ratio = ... hyp_len = ... ref_len = ...)", as sacrebleu prints it.
  std::string verbose() const;
};

class Bleu : public CorpusMetric {
 public:
  explicit Bleu(BleuOptions options = {});
  ~Bleu() override;
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

  // The signature's tok value: the tokenizer's name, or MeCab's "ja-mecab-0.996-IPA".
  std::string tokenizer_signature() const { return tokenizer_->signature(); }
  // nrefs as computed by reference_count() (-1 = var).
  std::string name() const override { return "BLEU"; }
  Signature signature(int nrefs) const override;
  ScoreReport report(const BleuScore& score) const;

  // Row: sys_len, ref_len, counts (correct) per order, totals per order.
  std::vector<double> segment_row(std::string_view hypothesis,
                                  const std::vector<std::string>& references) const override;
  ScoreReport report_row(const std::vector<double>& summed) const override;
  double resampled_score(const std::vector<double>& float32_summed) const override;
  bool float32_resampled() const override { return false; }
  std::vector<std::string> row_names() const override;

 private:
  BleuOptions options_;
  std::shared_ptr<const Tokenizer> tokenizer_;
};

}  // namespace invar::metrics
