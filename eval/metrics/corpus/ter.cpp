#include "eval/metrics/corpus/ter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "core/error.hpp"
#include "eval/metrics/corpus/ngram_index.hpp"

namespace invar::metrics {

namespace {

// Tercom's limits and sacrebleu's own (lib_ter.py).
constexpr int kMaxShiftSize = 10;
constexpr int kMaxShiftDist = 50;
constexpr int kBeamWidth = 25;
constexpr int kMaxShiftCandidates = 1000;
constexpr std::int64_t kInfinity = 10000000000000000;  // int(1e16)

enum Op : char { kNop = ' ', kSub = 's', kIns = 'i', kDel = 'd', kUndefined = 'x' };

using Words = std::vector<std::uint32_t>;

// The beam edit distance of sacrebleu's BeamEditDistance: only cells within the beam around the
// length-scaled diagonal are computed (the last row up to its end; the first row is the initial
// insertions). Only those cells are stored, so memory grows with length × beam, not length² (a
// 37,000-word line would need 21 GB for the whole matrix); a cell outside the band reads as
// sacrebleu's untouched (infinite, undefined) one.
//
// Shifts keep the hypothesis length, so every candidate of one sentence has the same bands. Row i
// depends only on the first i words, so a candidate that shares its first p words with the last
// aligned hypothesis starts from that hypothesis's row p (sacrebleu's row cache does the same
// through a prefix tree; either changes speed, not results).
class BeamEditDistance {
 public:
  BeamEditDistance(const Words& ref, std::size_t hyp_length) : ref_(ref) {
    const std::size_t n = hyp_length, m = ref.size();
    const double length_ratio = n ? static_cast<double>(m) / static_cast<double>(n) : 1.0;
    const long beam = kBeamWidth < length_ratio / 2 ? static_cast<long>(std::ceil(length_ratio / 2 + kBeamWidth))
                                                    : kBeamWidth;
    rows_.resize(n + 1);
    std::size_t size = 0;
    for (std::size_t i = 0; i <= n; ++i) {
      const long diagonal = static_cast<long>(std::floor(static_cast<double>(i) * length_ratio));
      const long begin = i == 0 ? 0 : std::max(0L, diagonal - beam);
      const long last = static_cast<long>(m) + 1;
      const long end = i == 0 || i == n ? last : std::min(last, diagonal + beam);
      rows_[i] = {static_cast<std::size_t>(begin), static_cast<std::size_t>(std::max(begin, end)), size};
      size += rows_[i].end - rows_[i].begin;
    }
    aligned_costs_.assign(size, kInfinity);
    ops_.assign(size, kUndefined);
    costs_.assign(size, kInfinity);
    for (std::size_t j = 0; j <= m; ++j) {
      aligned_costs_[j] = costs_[j] = static_cast<std::int64_t>(j);
      ops_[j] = kIns;
    }
  }

  // The edit distance of `hyp` and its trace; `hyp` becomes the hypothesis later candidates
  // start from.
  std::int64_t align(const Words& hyp, std::string& trace) {
    aligned_ = hyp;
    for (std::size_t i = 1; i < rows_.size(); ++i)
      fill_row<true>(i, aligned_costs_.data() + rows_[i - 1].offset, aligned_costs_.data(), hyp[i - 1]);
    trace.clear();
    std::size_t i = rows_.size() - 1, j = ref_.size();
    while (i > 0 || j > 0) {
      const char op = stored(i, j) ? ops_[rows_[i].offset + j - rows_[i].begin] : char(kUndefined);
      trace.push_back(op);
      if (op == kSub || op == kNop) {
        --i;
        --j;
      } else if (op == kIns) {
        --j;
      } else if (op == kDel) {
        --i;
      } else {
        fail("TER: unknown edit operation '{}' in the trace", op);
      }
    }
    std::reverse(trace.begin(), trace.end());
    return last_cell(aligned_costs_);
  }

  // The edit distance of `hyp` (of the aligned hypothesis's length).
  std::int64_t operator()(const Words& hyp) {
    std::size_t same = 0;
    while (same < hyp.size() && hyp[same] == aligned_[same]) ++same;
    for (std::size_t i = same + 1; i < rows_.size(); ++i) {
      const auto& previous = i - 1 == same ? aligned_costs_ : costs_;
      fill_row<false>(i, previous.data() + rows_[i - 1].offset, costs_.data(), hyp[i - 1]);
    }
    return last_cell(same + 1 < rows_.size() ? costs_ : aligned_costs_);
  }

 private:
  // The stored columns [begin, end) of one row, at offset in the cost (and op) arrays.
  struct Band {
    std::size_t begin = 0, end = 0, offset = 0;
  };

  bool stored(std::size_t i, std::size_t j) const { return j >= rows_[i].begin && j < rows_[i].end; }
  std::int64_t last_cell(const std::vector<std::int64_t>& costs) const {
    const Band& last = rows_.back();
    return stored(rows_.size() - 1, ref_.size()) ? costs[last.offset + ref_.size() - last.begin] : kInfinity;
  }

  // Row i from row i − 1 (`previous`, its band's values); with kOps, the chosen operations too.
  template <bool kOps>
  void fill_row(std::size_t i, const std::int64_t* previous, std::int64_t* costs, std::uint32_t word) {
    const Band& band = rows_[i];
    const Band& above = rows_[i - 1];
    const auto up = [&](std::size_t j) {
      return j >= above.begin && j < above.end ? previous[j - above.begin] : kInfinity;
    };
    std::int64_t* row = costs + band.offset - band.begin;
    char* ops = ops_.data() + band.offset - band.begin;
    std::int64_t left = kInfinity;
    for (std::size_t j = band.begin; j < band.end; ++j) {
      std::int64_t here = kInfinity;
      char op = kUndefined;
      if (j == 0) {
        here = up(0) + 1;
        op = kDel;
      } else {
        // Tercom prefers match/substitution, then (after sacrebleu's flip) deletion, then insertion.
        const bool same = word == ref_[j - 1];
        const std::int64_t diagonal = up(j - 1) + (same ? 0 : 1), deletion = up(j) + 1, insertion = left + 1;
        if (here > diagonal) here = diagonal, op = same ? kNop : kSub;
        if (here > deletion) here = deletion, op = kDel;
        if (here > insertion) here = insertion, op = kIns;
      }
      row[j] = left = here;
      if constexpr (kOps) ops[j] = op;
    }
  }

  const Words& ref_;
  std::vector<Band> rows_;
  Words aligned_;
  std::vector<std::int64_t> aligned_costs_, costs_;  // the aligned hypothesis's rows; a candidate's
  std::vector<char> ops_;                             // the aligned hypothesis's operations
};

// _perform_shift: move words[start, start+length) before position `target`.
void perform_shift(const Words& words, int start, int length, int target, Words& out) {
  auto slice = [&](Words& out, long from, long to) {
    from = std::clamp(from, 0L, static_cast<long>(words.size()));
    to = std::clamp(to, 0L, static_cast<long>(words.size()));
    if (from < to) out.insert(out.end(), words.begin() + from, words.begin() + to);
  };
  out.clear();
  if (target < start) {
    slice(out, 0, target);
    slice(out, start, start + length);
    slice(out, target, start);
    slice(out, start + length, static_cast<long>(words.size()));
  } else if (target > start + length) {
    slice(out, 0, start);
    slice(out, start + length, target);
    slice(out, start, start + length);
    slice(out, target, static_cast<long>(words.size()));
  } else {
    slice(out, 0, start);
    slice(out, start + length, length + target);
    slice(out, start, start + length);
    slice(out, length + target, static_cast<long>(words.size()));
  }
}

struct ShiftResult {
  std::int64_t delta = 0;
  Words words;
};

// _shift: the best single block shift by Tercom's ranking (gain, length, earliest start,
// earliest target), counting every candidate evaluated.
ShiftResult best_shift(const Words& hyp, const Words& ref, BeamEditDistance& edit_distance, int& checked) {
  std::string trace;
  const std::int64_t pre_score = edit_distance.align(hyp, trace);
  // Align by rewriting the reference into the hypothesis: flip insertions and deletions.
  std::vector<int> align(ref.size(), -2);
  std::vector<int> hyp_err, ref_err;
  int pos_hyp = -1, pos_ref = -1;
  for (char op : trace) {
    const char flipped = op == kIns ? char(kDel) : op == kDel ? char(kIns) : op;
    if (flipped == kNop || flipped == kSub) {
      align[++pos_ref] = ++pos_hyp;
      hyp_err.push_back(flipped == kSub);
      ref_err.push_back(flipped == kSub);
    } else if (flipped == kIns) {
      ++pos_hyp;
      hyp_err.push_back(1);
    } else {
      align[++pos_ref] = pos_hyp;
      ref_err.push_back(1);
    }
  }
  auto any_error = [](const std::vector<int>& errors, int from, int length) {
    for (int k = from; k < from + length && k < static_cast<int>(errors.size()); ++k)
      if (errors[k]) return true;
    return false;
  };

  bool found = false;
  std::int64_t best_gain = 0;
  int best_length = 0, best_start = 0, best_target = 0;
  Words best_words, shifted;
  const int n = static_cast<int>(hyp.size()), m = static_cast<int>(ref.size());
  for (int start_h = 0; start_h < n; ++start_h) {
    for (int start_r = 0; start_r < m; ++start_r) {
      if (std::abs(start_r - start_h) > kMaxShiftDist) continue;
      // _find_shifted_pairs yields every matching run length 1, 2, ... up to kMaxShiftSize.
      for (int length = 1; length <= kMaxShiftSize && start_h + length <= n && start_r + length <= m; ++length) {
        if (hyp[start_h + length - 1] != ref[start_r + length - 1]) break;
        if (!any_error(hyp_err, start_h, length) || !any_error(ref_err, start_r, length)) continue;
        if (start_h <= align[start_r] && align[start_r] < start_h + length) continue;
        int previous = -1;
        for (int offset = -1; offset < length; ++offset) {
          int target = 0;
          if (start_r + offset == -1)
            target = 0;
          else if (start_r + offset < m && align[start_r + offset] != -2)
            target = align[start_r + offset] + 1;
          else
            break;
          if (target == previous) continue;
          previous = target;
          perform_shift(hyp, start_h, length, target, shifted);
          const std::int64_t gain = pre_score - edit_distance(shifted);
          ++checked;
          // Tuple order (gain, length, -start, -target): the largest wins, the first on ties.
          const bool better = !found || gain > best_gain ||
                              (gain == best_gain && (length > best_length ||
                                                     (length == best_length && (start_h < best_start ||
                                                                                (start_h == best_start &&
                                                                                 target < best_target)))));
          if (better) {
            found = true;
            best_gain = gain;
            best_length = length;
            best_start = start_h;
            best_target = target;
            best_words.swap(shifted);
          }
        }
        if (checked >= kMaxShiftCandidates) return found ? ShiftResult{best_gain, best_words} : ShiftResult{0, hyp};
      }
    }
  }
  return found ? ShiftResult{best_gain, std::move(best_words)} : ShiftResult{0, hyp};
}

std::pair<int, int> edit_rate(const Words& hyp, const Words& ref) {
  if (ref.empty()) return {static_cast<int>(hyp.size()), 0};
  BeamEditDistance edit_distance(ref, hyp.size());
  int shifts = 0, checked = 0;
  Words input = hyp;
  while (true) {
    ShiftResult shift = best_shift(input, ref, edit_distance, checked);
    if (checked >= kMaxShiftCandidates || shift.delta <= 0) break;
    ++shifts;
    input = std::move(shift.words);
  }
  // `input` is the hypothesis best_shift aligned last, so this reuses its rows.
  return {shifts + static_cast<int>(edit_distance(input)), static_cast<int>(ref.size())};
}

}  // namespace

std::pair<int, int> translation_edit_rate(const std::vector<std::string_view>& hyp_words,
                                          const std::vector<std::string_view>& ref_words) {
  thread_local detail::StringInterner interner;
  interner.reset();
  Words hyp(hyp_words.size()), ref(ref_words.size());
  for (std::size_t i = 0; i < ref_words.size(); ++i) ref[i] = interner.insert(ref_words[i]);
  for (std::size_t i = 0; i < hyp_words.size(); ++i) hyp[i] = interner.insert(hyp_words[i]);
  return edit_rate(hyp, ref);
}

Ter::Ter(TerOptions options) : options_(options) {}

std::string Ter::preprocess(std::string_view segment) const {
  return tokenize_tercom(rstrip_whitespace(segment), options_);
}

TerStats Ter::segment_stats(std::string_view hypothesis, const std::vector<std::string>& references) const {
  if (references.empty()) fail("TER: a segment needs at least one reference");
  const std::string hyp = preprocess(hypothesis);
  const auto hyp_words = split_whitespace(hyp);
  long long ref_lengths = 0;
  int best_edits = 0;
  bool first = true;
  for (const auto& reference : references) {
    const std::string ref = preprocess(reference);
    const auto [edits, length] = translation_edit_rate(hyp_words, split_whitespace(ref));
    ref_lengths += length;
    if (first || edits < best_edits) best_edits = edits;
    first = false;
  }
  return {static_cast<double>(best_edits),
          static_cast<double>(ref_lengths) / static_cast<double>(references.size())};
}

TerScore Ter::compute(const TerStats& stats) const {
  double score = 0.0;
  if (stats.ref_length > 0)
    score = stats.num_edits / stats.ref_length;
  else if (stats.num_edits > 0)
    score = 1.0;  // empty reference(s), non-empty hypothesis
  return {100 * score, stats.num_edits, stats.ref_length};
}

TerScore Ter::sentence_score(std::string_view hypothesis, const std::vector<std::string>& references) const {
  return compute(segment_stats(hypothesis, references));
}

TerScore Ter::corpus_score(const std::vector<std::string>& hyps, const std::vector<std::vector<std::string>>& refs,
                           int threads) const {
  TerStats total;
  for (const auto& s :
       score_segments<TerStats>("TER", hyps, refs, threads, [&](auto& h, auto& r) { return segment_stats(h, r); })) {
    total.num_edits += s.num_edits;
    total.ref_length += s.ref_length;
  }
  return compute(total);
}

std::vector<TerScore> Ter::sentence_scores(const std::vector<std::string>& hyps,
                                           const std::vector<std::vector<std::string>>& refs, int threads) const {
  return score_segments<TerScore>("TER", hyps, refs, threads,
                                  [&](auto& h, auto& r) { return sentence_score(h, r); });
}

Signature Ter::signature(int nrefs) const {
  Signature sig(nrefs);
  sig.add("case", "c", options_.case_sensitive ? "mixed" : "lc");
  sig.add("tok", "t", "tercom");
  sig.add("norm", "nr", options_.normalized ? "yes" : "no");
  sig.add("punct", "pn", options_.no_punct ? "no" : "yes");
  sig.add("asian", "as", options_.asian_support ? "yes" : "no");
  return sig;
}

ScoreReport Ter::report(const TerScore& score) const { return {name(), score.score, ""}; }

std::vector<double> Ter::segment_row(std::string_view hypothesis, const std::vector<std::string>& references) const {
  const auto s = segment_stats(hypothesis, references);
  return {s.num_edits, s.ref_length};
}

ScoreReport Ter::report_row(const std::vector<double>& summed) const {
  if (summed.size() != 2) fail("TER: expected 2 statistics, got {}", summed.size());
  return report(compute({summed[0], summed[1]}));
}

double Ter::resampled_score(const std::vector<double>& summed) const {
  if (summed.size() != 2) fail("TER: expected 2 statistics, got {}", summed.size());
  // float32 / float32, then 100 * float32 (numpy 2); the other branches are Python floats.
  const auto edits = static_cast<float>(summed[0]), length = static_cast<float>(summed[1]);
  if (length > 0) return 100.0F * (edits / length);
  return edits > 0 ? 100.0 : 0.0;
}

std::vector<std::string> Ter::row_names() const { return {"num_edits", "ref_length"}; }

}  // namespace invar::metrics
