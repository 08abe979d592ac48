#include "eval/metrics/corpus/chrf.hpp"

#include <fmt/format.h>
#include <utf8proc.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "eval/stats/numpy_scalar.hpp"
#include "eval/metrics/tokenizers/mt_tokenize.hpp"
#include "eval/metrics/corpus/ngram_index.hpp"

namespace invar::metrics {

namespace {

constexpr std::uint32_t kCharRoot = 0xFFFFFFF1u;
constexpr std::uint32_t kWordRoot = 0xFFFFFFF2u;

// Python's string.punctuation.
bool is_ascii_punct(unsigned char c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
}

// Code points of `text` (invalid bytes read as U+FFFD), without Python whitespace unless kept.
void char_symbols(std::string_view text, bool keep_whitespace, std::vector<std::uint32_t>& out) {
  out.clear();
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::uint32_t cp = static_cast<unsigned char>(text[pos]);
    if (cp < 0x80) {
      ++pos;
    } else {
      utf8proc_int32_t decoded = 0;
      auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                                static_cast<utf8proc_ssize_t>(text.size() - pos), &decoded);
      cp = n > 0 ? static_cast<std::uint32_t>(decoded) : 0xFFFDu;
      pos += n > 0 ? static_cast<std::size_t>(n) : 1;
    }
    if (keep_whitespace || !is_python_space(cp)) out.push_back(cp);
  }
}

struct ChrfScratch {
  std::string hyp;
  std::vector<std::string> refs;
  std::vector<std::uint32_t> hyp_chars, ref_chars, hyp_words, ref_words;
  std::vector<std::string_view> words;
  std::vector<std::int64_t> hyp_totals, ref_totals, matches, candidate;
  detail::StringInterner interner;
  detail::NgramMatcher matcher;
};

}  // namespace

ChrF::ChrF(ChrfOptions options) : options_(options) {
  if (options_.char_order < 0 || options_.word_order < 0 || options_.char_order + options_.word_order == 0)
    fail("chrF: the character and word orders must be >= 0 and not both 0 (got {} and {})", options_.char_order,
         options_.word_order);
  if (options_.beta < 0) fail("chrF: beta must be >= 0, got {}", options_.beta);
}

void ChrF::words(std::string_view sentence, std::vector<std::string_view>& out) {
  std::vector<std::string_view> raw;
  split_whitespace(sentence, raw);
  out.clear();
  for (auto w : raw) {
    std::size_t first_length = 0;
    {
      utf8proc_int32_t cp = 0;
      auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(w.data()),
                                static_cast<utf8proc_ssize_t>(w.size()), &cp);
      first_length = n > 0 ? static_cast<std::size_t>(n) : 1;
    }
    if (first_length == w.size()) {
      out.push_back(w);
    } else if (is_ascii_punct(static_cast<unsigned char>(w.back()))) {
      out.push_back(w.substr(0, w.size() - 1));
      out.push_back(w.substr(w.size() - 1));
    } else if (is_ascii_punct(static_cast<unsigned char>(w.front()))) {
      out.push_back(w.substr(0, 1));
      out.push_back(w.substr(1));
    } else {
      out.push_back(w);
    }
  }
}

std::vector<std::string_view> ChrF::words(std::string_view sentence) {
  std::vector<std::string_view> out;
  words(sentence, out);
  return out;
}

void ChrF::segment_stats(std::string_view hypothesis, const std::vector<std::string>& references,
                         std::int64_t* out) const {
  if (references.empty()) fail("chrF: a segment needs at least one reference");
  thread_local ChrfScratch s;
  const int orders = options_.char_order + options_.word_order;
  const std::size_t size = stats_size();

  s.hyp = options_.lowercase ? python_lower(hypothesis) : std::string(hypothesis);
  s.refs.resize(references.size());
  for (std::size_t r = 0; r < references.size(); ++r)
    s.refs[r] = options_.lowercase ? python_lower(references[r]) : references[r];

  char_symbols(s.hyp, options_.whitespace, s.hyp_chars);
  s.interner.reset();
  if (options_.word_order > 0) {
    words(s.hyp, s.words);
    s.hyp_words.resize(s.words.size());
    for (std::size_t i = 0; i < s.words.size(); ++i) s.hyp_words[i] = s.interner.insert(s.words[i]);
  }

  double best_f = -1.0;
  s.candidate.resize(size);
  for (const auto& ref : s.refs) {
    s.hyp_totals.assign(orders, 0);
    s.ref_totals.assign(orders, 0);
    s.matches.assign(orders, 0);
    s.matcher.reset();
    char_symbols(ref, options_.whitespace, s.ref_chars);
    s.matcher.add_reference(s.ref_chars.data(), s.ref_chars.size(), options_.char_order, kCharRoot,
                            s.ref_totals.data());
    s.matcher.match(s.hyp_chars.data(), s.hyp_chars.size(), options_.char_order, kCharRoot, s.matcher.counts(),
                    s.hyp_totals.data(), s.matches.data());
    if (options_.word_order > 0) {
      const int c = options_.char_order;
      words(ref, s.words);
      s.ref_words.resize(s.words.size());
      for (std::size_t i = 0; i < s.words.size(); ++i) s.ref_words[i] = s.interner.insert(s.words[i]);
      s.matcher.add_reference(s.ref_words.data(), s.ref_words.size(), options_.word_order, kWordRoot,
                              s.ref_totals.data() + c);
      s.matcher.match(s.hyp_words.data(), s.hyp_words.size(), options_.word_order, kWordRoot, s.matcher.counts(),
                      s.hyp_totals.data() + c, s.matches.data() + c);
    }
    for (int k = 0; k < orders; ++k) {
      // sacrebleu counts no hypothesis n-grams for an order the reference does not have.
      s.candidate[3 * k] = s.ref_totals[k] > 0 ? s.hyp_totals[k] : 0;
      s.candidate[3 * k + 1] = s.ref_totals[k];
      s.candidate[3 * k + 2] = s.matches[k];
    }
    if (s.refs.size() == 1) {
      std::copy(s.candidate.begin(), s.candidate.end(), out);
      return;
    }
    const double f = f_score(s.candidate.data());
    if (f > best_f) {
      best_f = f;
      std::copy(s.candidate.begin(), s.candidate.end(), out);
    }
  }
}

std::vector<std::int64_t> ChrF::segment_stats(std::string_view hypothesis,
                                              const std::vector<std::string>& references) const {
  std::vector<std::int64_t> out(stats_size());
  segment_stats(hypothesis, references, out.data());
  return out;
}

// sacrebleu's _compute_f_score. T: double (Python numbers from int statistics) or NumpyScalar (the
// float32 sums of a bootstrap resample, where eps and 0.0 stay Python floats).
template <typename T, typename Stat>
T chrf_f_score(const Stat* stats, const ChrfOptions& options) {
  const double eps = 1e-16;
  const int orders = options.char_order + options.word_order;
  const double factor = static_cast<double>(options.beta) * options.beta;
  T score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
  int effective_order = 0;
  for (int i = 0; i < orders; ++i) {
    const T n_hyp = stats[3 * i], n_ref = stats[3 * i + 1], n_match = stats[3 * i + 2];
    const T prec = n_hyp > 0 ? n_match / n_hyp : T(eps);
    const T rec = n_ref > 0 ? n_match / n_ref : T(eps);
    const T denom = T(factor) * prec + rec;
    score += denom > 0 ? T(1 + factor) * prec * rec / denom : T(eps);
    if (n_hyp > 0 && n_ref > 0) {
      avg_prec += prec;
      avg_rec += rec;
      ++effective_order;
    }
  }
  if (options.eps_smoothing) return T(100) * score / T(orders);
  if (effective_order == 0) {
    avg_prec = avg_rec = 0.0;
  } else {
    avg_prec /= T(effective_order);
    avg_rec /= T(effective_order);
  }
  if (avg_prec + avg_rec == 0) return 0.0;
  score = T(1 + factor) * avg_prec * avg_rec;
  score /= T(factor) * avg_prec + avg_rec;
  return T(100) * score;
}

double ChrF::f_score(const std::int64_t* stats) const {
  return chrf_f_score<double>(stats, options_);
}

double ChrF::sentence_score(std::string_view hypothesis, const std::vector<std::string>& references) const {
  thread_local std::vector<std::int64_t> stats;
  stats.resize(stats_size());
  segment_stats(hypothesis, references, stats.data());
  return f_score(stats.data());
}

double ChrF::sentence_score(std::string_view hypothesis, std::string_view reference) const {
  thread_local std::vector<std::string> single(1);
  single[0].assign(reference);
  return sentence_score(hypothesis, single);
}

std::vector<std::int64_t> ChrF::corpus_stats(const std::vector<std::string>& hyps,
                                             const std::vector<std::vector<std::string>>& refs, int threads) const {
  check_corpus("chrF", hyps.size(), refs);
  const std::size_t size = stats_size();
  std::vector<std::int64_t> per_segment(hyps.size() * size);
  parallel_for(hyps.size(), threads,
               [&](std::size_t i) { segment_stats(hyps[i], refs[i], per_segment.data() + i * size); });
  std::vector<std::int64_t> total(size, 0);
  for (std::size_t i = 0; i < hyps.size(); ++i)
    for (std::size_t k = 0; k < size; ++k) total[k] += per_segment[i * size + k];
  return total;
}

double ChrF::corpus_score(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
                          int threads) const {
  return f_score(corpus_stats(hyps, refs, threads).data());
}

std::vector<double> ChrF::sentence_scores(const std::vector<std::string>& hyps,
                                          const std::vector<std::vector<std::string>>& refs, int threads) const {
  return score_segments<double>("chrF", hyps, refs, threads,
                                [&](auto& h, auto& r) { return sentence_score(h, r); });
}

std::string ChrF::name() const {
  return fmt::format("chrF{}{}", options_.beta, std::string(static_cast<std::size_t>(options_.word_order), '+'));
}

Signature ChrF::signature(int nrefs) const {
  Signature sig(nrefs);
  sig.add("case", "c", options_.lowercase ? "lc" : "mixed");
  sig.add("eff", "e", options_.eps_smoothing ? "no" : "yes");
  sig.add("nc", "nc", std::to_string(options_.char_order));
  sig.add("nw", "nw", std::to_string(options_.word_order));
  sig.add("space", "s", options_.whitespace ? "yes" : "no");
  return sig;
}

ScoreReport ChrF::report(double score) const { return {name(), score, ""}; }

std::vector<double> ChrF::segment_row(std::string_view hypothesis, const std::vector<std::string>& references) const {
  const auto stats = segment_stats(hypothesis, references);
  return std::vector<double>(stats.begin(), stats.end());
}

ScoreReport ChrF::report_row(const std::vector<double>& summed) const {
  if (summed.size() != stats_size()) fail("chrF: expected {} statistics, got {}", stats_size(), summed.size());
  std::vector<std::int64_t> stats(summed.size());
  for (std::size_t k = 0; k < summed.size(); ++k) stats[k] = std::llround(summed[k]);
  return report(f_score(stats.data()));
}

double ChrF::resampled_score(const std::vector<double>& summed) const {
  if (summed.size() != stats_size()) fail("chrF: expected {} statistics, got {}", stats_size(), summed.size());
  std::vector<stats::NumpyScalar> narrow;
  for (double v : summed) narrow.push_back(stats::NumpyScalar::f32(static_cast<float>(v)));
  return chrf_f_score<stats::NumpyScalar>(narrow.data(), options_).value;
}

std::vector<std::string> ChrF::row_names() const {
  std::vector<std::string> names;
  const auto add = [&](const char* kind, int order) {
    for (int n = 1; n <= order; ++n)
      for (const char* part : {"hyp", "ref", "match"}) names.push_back(fmt::format("{}{}_{}", kind, n, part));
  };
  add("chr", options_.char_order);
  add("word", options_.word_order);
  return names;
}

}  // namespace invar::metrics
