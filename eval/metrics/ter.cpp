#include "eval/metrics/ter.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "core/error.hpp"
#include "eval/metrics/ngram_index.hpp"

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

struct Cell {
  std::int64_t cost;
  char op;
};

// The beam edit distance of sacrebleu's BeamEditDistance (its row cache changes speed, not results):
// only cells within the beam around the length-scaled diagonal are computed (the last row up to its
// end; the first row is the initial insertions). Only those cells are stored, so memory grows with length × beam, not length² (a 37,000-word line
// would need 21 GB for the whole matrix); a cell outside the band reads as sacrebleu's untouched
// (infinite, undefined) one.
class BeamEditDistance {
 public:
  explicit BeamEditDistance(const Words& ref) : ref_(ref) {}

  std::int64_t operator()(const Words& hyp, std::string* trace) {
    const std::size_t n = hyp.size(), m = ref_.size();
    const double length_ratio = n ? static_cast<double>(m) / static_cast<double>(n) : 1.0;
    const long beam = kBeamWidth < length_ratio / 2 ? static_cast<long>(std::ceil(length_ratio / 2 + kBeamWidth))
                                                    : kBeamWidth;
    rows_.assign(n + 1, Band{});
    std::size_t size = 0;
    for (std::size_t i = 0; i <= n; ++i) {
      const long diagonal = static_cast<long>(std::floor(static_cast<double>(i) * length_ratio));
      const long begin = i == 0 ? 0 : std::max(0L, diagonal - beam);
      const long end = i == 0 || i == n ? static_cast<long>(m) + 1 : std::min(static_cast<long>(m) + 1, diagonal + beam);
      rows_[i] = {static_cast<std::size_t>(begin), static_cast<std::size_t>(std::max(begin, end)), size};
      size += rows_[i].end - rows_[i].begin;
    }
    dist_.assign(size, kOutside);
    for (std::size_t j = 0; j <= m; ++j) *cell(0, j) = {static_cast<std::int64_t>(j), kIns};
    for (std::size_t i = 1; i <= n; ++i) {
      for (std::size_t j = rows_[i].begin; j < rows_[i].end; ++j) {
        Cell& here = *cell(i, j);
        if (j == 0) {
          here = {at(i - 1, 0).cost + 1, kDel};
          continue;
        }
        const bool same = hyp[i - 1] == ref_[j - 1];
        // Tercom prefers match/substitution, then (after sacrebleu's flip) deletion, then insertion.
        const Cell options[3] = {{at(i - 1, j - 1).cost + (same ? 0 : 1), same ? kNop : kSub},
                                 {at(i - 1, j).cost + 1, kDel},
                                 {at(i, j - 1).cost + 1, kIns}};
        for (const auto& option : options)
          if (here.cost > option.cost) here = option;
      }
    }
    if (trace) {
      trace->clear();
      std::size_t i = n, j = m;
      while (i > 0 || j > 0) {
        const char op = at(i, j).op;
        trace->push_back(op);
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
      std::reverse(trace->begin(), trace->end());
    }
    return at(n, m).cost;
  }

 private:
  // The stored columns [begin, end) of one row, at dist_[offset].
  struct Band {
    std::size_t begin = 0, end = 0, offset = 0;
  };
  static constexpr Cell kOutside{kInfinity, kUndefined};

  Cell* cell(std::size_t i, std::size_t j) {
    const Band& row = rows_[i];
    return j >= row.begin && j < row.end ? &dist_[row.offset + j - row.begin] : nullptr;
  }
  Cell at(std::size_t i, std::size_t j) {
    const Cell* stored = cell(i, j);
    return stored ? *stored : kOutside;
  }

  const Words& ref_;
  std::vector<Band> rows_;
  std::vector<Cell> dist_;
};

// _perform_shift: move words[start, start+length) before position `target`.
Words perform_shift(const Words& words, int start, int length, int target) {
  auto slice = [&](Words& out, long from, long to) {
    from = std::clamp(from, 0L, static_cast<long>(words.size()));
    to = std::clamp(to, 0L, static_cast<long>(words.size()));
    if (from < to) out.insert(out.end(), words.begin() + from, words.begin() + to);
  };
  Words out;
  out.reserve(words.size());
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
  return out;
}

struct ShiftResult {
  std::int64_t delta = 0;
  Words words;
};

// _shift: the best single block shift by Tercom's ranking (gain, length, earliest start,
// earliest target), counting every candidate evaluated.
ShiftResult best_shift(const Words& hyp, const Words& ref, BeamEditDistance& edit_distance, int& checked) {
  std::string trace;
  const std::int64_t pre_score = edit_distance(hyp, &trace);
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
  Words best_words;
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
          Words shifted = perform_shift(hyp, start_h, length, target);
          const std::int64_t gain = pre_score - edit_distance(shifted, nullptr);
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
            best_words = std::move(shifted);
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
  BeamEditDistance edit_distance(ref);
  int shifts = 0, checked = 0;
  Words input = hyp;
  while (true) {
    ShiftResult shift = best_shift(input, ref, edit_distance, checked);
    if (checked >= kMaxShiftCandidates || shift.delta <= 0) break;
    ++shifts;
    input = std::move(shift.words);
  }
  return {shifts + static_cast<int>(edit_distance(input, nullptr)), static_cast<int>(ref.size())};
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

ScoreReport Ter::report(const TerScore& score) const { return {"TER", score.score, ""}; }

std::vector<double> Ter::segment_row(std::string_view hypothesis, const std::vector<std::string>& references) const {
  const auto s = segment_stats(hypothesis, references);
  return {s.num_edits, s.ref_length};
}

ScoreReport Ter::report_row(const std::vector<double>& summed) const {
  if (summed.size() != 2) fail("TER: expected 2 statistics, got {}", summed.size());
  return report(compute({summed[0], summed[1]}));
}

std::vector<std::string> Ter::row_names() const { return {"num_edits", "ref_length"}; }

}  // namespace invar::metrics
