#include "eval/metrics/corpus/bleu.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "eval/metrics/tokenizers/mt_tokenize.hpp"
#include "eval/metrics/corpus/ngram_index.hpp"

namespace invar::metrics {

namespace {

constexpr std::uint32_t kWordRoot = 0xFFFFFFF0u;

double default_smooth_value(BleuSmoothing smooth) {
  switch (smooth) {
    case BleuSmoothing::Floor: return 0.1;
    case BleuSmoothing::AddK: return 1;
    default: return 0;
  }
}

// sacrebleu.utils.my_log: log(0) is a large negative number instead of an error.
double my_log(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }

// compute_bleu from the precisions on: T = double for Python numbers, float for the float32 sums of
// sacrebleu's bootstrap resamples, where numpy 2 (NEP 50) keeps each precision a float32 (a Python
// float meeting a float32 is rounded to float32 first). The logs and the rest are in double.
template <typename T>
double smoothed_score(std::vector<T>& counts, std::vector<T>& totals, std::vector<T>& precisions, double bp,
                      const BleuOptions& options, double smooth_value) {
  const int order = static_cast<int>(precisions.size());
  double smooth_mteval = 1.;
  int eff_order = order;
  for (int n = 1; n <= order; ++n) {
    if (options.smooth == BleuSmoothing::AddK && n > 1) {
      counts[n - 1] += static_cast<T>(smooth_value);
      totals[n - 1] += static_cast<T>(smooth_value);
    }
    if (totals[n - 1] == 0) break;
    if (options.effective_order) eff_order = n;
    if (counts[n - 1] == 0) {
      if (options.smooth == BleuSmoothing::Exp) {
        smooth_mteval *= 2;
        precisions[n - 1] = static_cast<T>(100.) / (static_cast<T>(smooth_mteval) * totals[n - 1]);
      } else if (options.smooth == BleuSmoothing::Floor) {
        precisions[n - 1] = static_cast<T>(100. * smooth_value) / totals[n - 1];
      }
    } else {
      precisions[n - 1] = static_cast<T>(100.) * counts[n - 1] / totals[n - 1];
    }
  }
  // Python's sum() of the logs, which since Python 3.12 compensates floats (Neumaier) and adds ints
  // (my_log's -9999999999) plainly: sacrebleu's command line on Python 3.12 shows it in the last
  // digits of its bootstrap means (tests/fixtures/metrics/sacrebleu_cli_2.6.0.json).
  double log_sum = 0, compensation = 0;
  for (int n = 0; n < eff_order; ++n) {
    const double x = my_log(precisions[n]);
    if (precisions[n] == 0) {
      log_sum += x;
      continue;
    }
    const double t = log_sum + x;
    compensation += std::fabs(log_sum) >= std::fabs(x) ? (log_sum - t) + x : (x - t) + log_sum;
    log_sum = t;
  }
  if (compensation != 0 && std::isfinite(compensation)) log_sum += compensation;
  return bp * std::exp(log_sum / eff_order);
}

struct BleuScratch {
  std::string hyp;
  std::vector<std::string> refs;
  std::vector<std::string_view> tokens;
  std::vector<std::uint32_t> symbols;
  std::vector<std::uint32_t> merged;
  detail::StringInterner interner;
  detail::NgramMatcher matcher;
};

}  // namespace

std::optional<BleuSmoothing> parse_bleu_smoothing(std::string_view name) {
  if (name == "none") return BleuSmoothing::None;
  if (name == "floor") return BleuSmoothing::Floor;
  if (name == "add-k") return BleuSmoothing::AddK;
  if (name == "exp") return BleuSmoothing::Exp;
  return std::nullopt;
}

const char* bleu_smoothing_name(BleuSmoothing smoothing) {
  switch (smoothing) {
    case BleuSmoothing::None: return "none";
    case BleuSmoothing::Floor: return "floor";
    case BleuSmoothing::AddK: return "add-k";
    case BleuSmoothing::Exp: break;
  }
  return "exp";
}

BleuStats& BleuStats::operator+=(const BleuStats& other) {
  sys_len += other.sys_len;
  ref_len += other.ref_len;
  correct.resize(std::max(correct.size(), other.correct.size()), 0);
  total.resize(std::max(total.size(), other.total.size()), 0);
  for (std::size_t n = 0; n < other.correct.size(); ++n) {
    correct[n] += other.correct[n];
    total[n] += other.total[n];
  }
  return *this;
}

std::string BleuScore::verbose() const {
  const double ratio = ref_len ? static_cast<double>(sys_len) / static_cast<double>(ref_len) : 0.0;
  return fmt::format("{:.1f} (BP = {:.3f} ratio = {:.3f} hyp_len = {} ref_len = {})", fmt::join(precisions, "/"), bp,
                     ratio, sys_len, ref_len);
}

Bleu::Bleu(BleuOptions options) : options_(options) {
  if (options_.smooth_value && (options_.smooth == BleuSmoothing::Floor || options_.smooth == BleuSmoothing::AddK) &&
      !(*options_.smooth_value >= 0))
    fail("BLEU: the smoothing value must be >= 0, got {}", *options_.smooth_value);
  if (options_.max_ngram_order < 1) fail("BLEU: max_ngram_order must be >= 1, got {}", options_.max_ngram_order);
  tokenizer_ = find_tokenizer(options_.tokenize);
  if (!tokenizer_) fail("BLEU: tokenize must be {}, got '{}'", tokenizer_choices(), options_.tokenize);
}

Bleu::~Bleu() = default;

std::string Bleu::preprocess(std::string_view segment) const {
  std::string lowered;
  if (options_.lowercase) {
    lowered = python_lower(segment);
    segment = lowered;
  }
  segment = rstrip_whitespace(segment);
  return tokenizer_->tokenize(segment);
}

BleuStats Bleu::segment_stats(std::string_view hypothesis, const std::vector<std::string>& references) const {
  if (references.empty()) fail("BLEU: a segment needs at least one reference");
  thread_local BleuScratch s;
  s.refs.resize(references.size());
  for (std::size_t r = 0; r < references.size(); ++r) s.refs[r] = preprocess(references[r]);
  s.hyp = preprocess(hypothesis);

  s.interner.reset();
  s.matcher.reset();
  s.merged.clear();
  std::vector<std::int64_t> ref_lens;
  ref_lens.reserve(references.size());
  const int order = options_.max_ngram_order;
  std::vector<std::int64_t> ignored(order);
  for (const auto& ref : s.refs) {
    split_whitespace(ref, s.tokens);
    s.symbols.resize(s.tokens.size());
    for (std::size_t i = 0; i < s.tokens.size(); ++i) s.symbols[i] = s.interner.insert(s.tokens[i]);
    ref_lens.push_back(static_cast<std::int64_t>(s.tokens.size()));
    s.matcher.add_reference(s.symbols.data(), s.symbols.size(), order, kWordRoot, ignored.data());
    // Clip against the maximum count of each n-gram over the references.
    s.merged.resize(s.matcher.size(), 0);
    auto& counts = s.matcher.counts();
    for (auto id : s.matcher.last_ids()) s.merged[id] = std::max(s.merged[id], counts[id]);
    for (auto id : s.matcher.last_ids()) counts[id] = 0;
  }

  BleuStats stats;
  stats.correct.assign(order, 0);
  stats.total.assign(order, 0);
  split_whitespace(s.hyp, s.tokens);
  s.symbols.resize(s.tokens.size());
  for (std::size_t i = 0; i < s.tokens.size(); ++i) s.symbols[i] = s.interner.find(s.tokens[i]);
  s.matcher.match(s.symbols.data(), s.symbols.size(), order, kWordRoot, s.merged, stats.total.data(),
                  stats.correct.data());
  stats.sys_len = static_cast<std::int64_t>(s.tokens.size());
  // The closest reference length; the shorter one on ties.
  std::int64_t best_diff = -1;
  for (auto len : ref_lens) {
    const std::int64_t diff = std::llabs(stats.sys_len - len);
    if (best_diff == -1 || diff < best_diff) {
      best_diff = diff;
      stats.ref_len = len;
    } else if (diff == best_diff && len < stats.ref_len) {
      stats.ref_len = len;
    }
  }
  return stats;
}

BleuScore Bleu::compute(const BleuStats& stats) const {
  const double smooth_value = options_.smooth_value.value_or(default_smooth_value(options_.smooth));
  const int order = options_.max_ngram_order;
  if (stats.correct.size() > static_cast<std::size_t>(order) || stats.total.size() > static_cast<std::size_t>(order))
    fail("BLEU: statistics of {} n-gram orders for max_ngram_order {}", stats.correct.size(), order);
  BleuScore out;
  out.sys_len = stats.sys_len;
  out.ref_len = stats.ref_len;
  out.counts.assign(stats.correct.begin(), stats.correct.end());
  out.totals.assign(stats.total.begin(), stats.total.end());
  out.counts.resize(order, 0.0);  // statistics of no segment at all
  out.totals.resize(order, 0.0);
  out.precisions.assign(order, 0.0);
  if (stats.sys_len < stats.ref_len)
    out.bp = stats.sys_len > 0
                 ? std::exp(1 - static_cast<double>(stats.ref_len) / static_cast<double>(stats.sys_len))
                 : 0.0;
  else
    out.bp = 1.0;
  // sacrebleu #141: no match at all scores 0 before any smoothing.
  if (std::all_of(stats.correct.begin(), stats.correct.end(), [](std::int64_t c) { return c == 0; })) return out;

  out.score = smoothed_score(out.counts, out.totals, out.precisions, out.bp, options_, smooth_value);
  return out;
}

BleuScore Bleu::sentence_score(std::string_view hypothesis, const std::vector<std::string>& references) const {
  return compute(segment_stats(hypothesis, references));
}

BleuScore Bleu::sentence_score(std::string_view hypothesis, std::string_view reference) const {
  return sentence_score(hypothesis, std::vector<std::string>{std::string(reference)});
}

BleuStats Bleu::corpus_stats(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
                             int threads) const {
  BleuStats total;
  for (const auto& s : score_segments<BleuStats>("BLEU", hyps, refs, threads,
                                                 [&](auto& h, auto& r) { return segment_stats(h, r); }))
    total += s;
  return total;
}

BleuScore Bleu::corpus_score(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
                             int threads) const {
  return compute(corpus_stats(hyps, refs, threads));
}

std::vector<BleuScore> Bleu::sentence_scores(const std::vector<std::string>& hyps,
                                             const std::vector<std::vector<std::string>>& refs, int threads) const {
  return score_segments<BleuScore>("BLEU", hyps, refs, threads,
                                   [&](auto& h, auto& r) { return sentence_score(h, r); });
}

Signature Bleu::signature(int nrefs) const {
  Signature sig(nrefs);
  sig.add("case", "c", options_.lowercase ? "lc" : "mixed");
  sig.add("eff", "e", options_.effective_order ? "yes" : "no");
  sig.add("tok", "tok", tokenizer_signature());
  std::string smooth = bleu_smoothing_name(options_.smooth);
  if (options_.smooth == BleuSmoothing::Floor || options_.smooth == BleuSmoothing::AddK)
    smooth += fmt::format("[{:.2f}]", options_.smooth_value.value_or(default_smooth_value(options_.smooth)));
  sig.add("smooth", "s", smooth);
  // sacrebleu's signature leaves max_ngram_order out, so two orders would share one signature;
  // invar names a non-default order (the default keeps sacrebleu's signature byte for byte).
  if (options_.max_ngram_order != kBleuMaxOrder)
    sig.add("ngram", "n", std::to_string(options_.max_ngram_order));
  return sig;
}

ScoreReport Bleu::report(const BleuScore& score) const { return {name(), score.score, score.verbose()}; }

std::vector<double> Bleu::segment_row(std::string_view hypothesis, const std::vector<std::string>& references) const {
  const auto s = segment_stats(hypothesis, references);
  std::vector<double> row{static_cast<double>(s.sys_len), static_cast<double>(s.ref_len)};
  for (auto c : s.correct) row.push_back(static_cast<double>(c));
  for (auto t : s.total) row.push_back(static_cast<double>(t));
  return row;
}

ScoreReport Bleu::report_row(const std::vector<double>& summed) const {
  const std::size_t order = options_.max_ngram_order;
  if (summed.size() != 2 + 2 * order) fail("BLEU: expected {} statistics, got {}", 2 + 2 * order, summed.size());
  BleuStats s;
  s.sys_len = std::llround(summed[0]);
  s.ref_len = std::llround(summed[1]);
  for (std::size_t n = 0; n < order; ++n) {
    s.correct.push_back(std::llround(summed[2 + n]));
    s.total.push_back(std::llround(summed[2 + order + n]));
  }
  return report(compute(s));
}

double Bleu::resampled_score(const std::vector<double>& summed) const {
  const std::size_t order = options_.max_ngram_order;
  if (summed.size() != 2 + 2 * order) fail("BLEU: expected {} statistics, got {}", 2 + 2 * order, summed.size());
  std::vector<float> counts(summed.begin() + 2, summed.begin() + 2 + order);
  std::vector<float> totals(summed.begin() + 2 + order, summed.end());
  std::vector<float> precisions(order, 0.0F);
  // int(stats[0]), int(stats[1]): the brevity penalty is in double.
  const auto sys_len = static_cast<std::int64_t>(summed[0]), ref_len = static_cast<std::int64_t>(summed[1]);
  double bp = 1.0;
  if (sys_len < ref_len)
    bp = sys_len > 0 ? std::exp(1 - static_cast<double>(ref_len) / static_cast<double>(sys_len)) : 0.0;
  if (std::all_of(counts.begin(), counts.end(), [](float c) { return c == 0; })) return 0.0;
  return smoothed_score(counts, totals, precisions, bp, options_,
                        options_.smooth_value.value_or(default_smooth_value(options_.smooth)));
}

std::vector<std::string> Bleu::row_names() const {
  std::vector<std::string> names{"sys_len", "ref_len"};
  for (int n = 1; n <= options_.max_ngram_order; ++n) names.push_back(fmt::format("counts_{}", n));
  for (int n = 1; n <= options_.max_ngram_order; ++n) names.push_back(fmt::format("totals_{}", n));
  return names;
}

}  // namespace invar::metrics
