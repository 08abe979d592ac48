#include "eval/metrics/lexical/meteor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string_view>
#include <unordered_map>

#include "core/utf8.hpp"
#include "eval/metrics/lexical/porter_stemmer.hpp"

namespace invar::metrics {
namespace {

using Words = std::vector<IndexedWord>;

Words enumerate(const std::vector<std::string>& tokens) {
  Words out;
  for (std::size_t i = 0; i < tokens.size(); ++i) out.push_back({static_cast<int>(i), tokens[i]});
  return out;
}

// NLTK's _match_enums and its WordNet stage share this loop: for each hypothesis word from the
// last, the last remaining reference word among the names `fitting` gives it is matched, and both
// leave their lists. NLTK scans the reference for each hypothesis word and erases from lists, which
// is quadratic (16 s on a 100,000-word line); here the remaining reference positions are indexed by
// word, so the same matches cost time linear in the words times the names each fits.
template <typename Fitting>
std::vector<WordMatch> match_backwards(Words& hyp, Words& ref, Fitting fitting) {
  std::unordered_map<std::string_view, std::vector<std::size_t>> remaining;  // word → its positions in ref, ascending
  for (std::size_t j = 0; j < ref.size(); ++j) remaining[ref[j].word].push_back(j);
  std::vector<bool> hyp_matched(hyp.size()), ref_matched(ref.size());
  std::vector<WordMatch> found;
  for (std::size_t i = hyp.size(); i-- > 0;) {
    std::vector<std::size_t>* last = nullptr;
    for (const auto& name : fitting(hyp[i].word)) {
      const auto it = remaining.find(std::string_view(name));
      if (it != remaining.end() && !it->second.empty() && (last == nullptr || it->second.back() > last->back()))
        last = &it->second;
    }
    if (last == nullptr) continue;
    const std::size_t j = last->back();
    last->pop_back();
    found.emplace_back(hyp[i].index, ref[j].index);
    hyp_matched[i] = ref_matched[j] = true;
  }
  remaining.clear();  // its keys view ref's words, which the compaction below moves
  const auto drop_matched = [](Words& words, const std::vector<bool>& matched) {
    std::size_t kept = 0;
    for (std::size_t k = 0; k < words.size(); ++k) {
      if (matched[k]) continue;
      if (kept != k) words[kept] = std::move(words[k]);  // a string moved onto itself would be emptied
      ++kept;
    }
    words.resize(kept);
  };
  drop_matched(hyp, hyp_matched);
  drop_matched(ref, ref_matched);
  return found;
}

std::vector<WordMatch> match_equal(Words& hyp, Words& ref) {
  return match_backwards(hyp, ref, [](const std::string& h) { return std::array<std::string_view, 1>{h}; });
}

Words stemmed(const Words& words) {
  Words out;
  for (const auto& w : words) out.push_back({w.index, porter_stem(w.word)});
  return out;
}

// NLTK's _count_chunks: 1 + the adjacent pairs of matches not consecutive on both sides.
int count_chunks(const std::vector<WordMatch>& matches) {
  int chunks = 1;
  for (std::size_t k = 0; k + 1 < matches.size(); ++k)
    if (matches[k + 1].first != matches[k].first + 1 || matches[k + 1].second != matches[k].second + 1) ++chunks;
  return chunks;
}

}  // namespace

std::string to_string(MeteorVersion version) { return version == MeteorVersion::Nltk38 ? "3.8" : "3.6.2"; }

Meteor::Meteor(const WordNet& wordnet, MeteorOptions options) : wordnet_(wordnet), options_(options) {}

std::vector<std::string> Meteor::tokens(std::string_view sentence) const {
  std::vector<std::string> out;
  if (options_.version == MeteorVersion::Nltk362) {
    const auto lowered = python_lower(sentence);
    for (auto token : python_split(lowered)) out.emplace_back(token);
  } else {
    for (auto token : python_split(sentence)) out.push_back(python_lower(token));
  }
  return out;
}

std::vector<std::string> Meteor::synonyms(std::string_view word) const {
  std::set<std::string> names{std::string(word)};
  for (const auto& synset : wordnet_.synset_lemma_names(word))
    for (const auto& name : synset)
      if (name.find('_') == std::string::npos) names.insert(name);
  return {names.begin(), names.end()};
}

MeteorAlignment Meteor::align(std::string_view hypothesis, std::string_view reference) const {
  MeteorAlignment a;
  Words hyp = enumerate(tokens(hypothesis));
  Words ref = enumerate(tokens(reference));
  a.hyp_length = hyp.size();
  a.ref_length = ref.size();
  a.exact = match_equal(hyp, ref);
  Words hyp_stems = stemmed(hyp);
  Words ref_stems = stemmed(ref);
  a.stem = match_equal(hyp_stems, ref_stems);
  // NLTK 3.6.2 meant to drop the stem-matched words here, but its filter never removes anything.
  if (options_.version == MeteorVersion::Nltk38) {
    hyp = std::move(hyp_stems);
    ref = std::move(ref_stems);
  }
  // A long line repeats its words: each one's synonyms are looked up once.
  std::unordered_map<std::string, std::vector<std::string>> synonyms_of;
  a.synonym = match_backwards(hyp, ref, [&](const std::string& h) -> const std::vector<std::string>& {
    auto it = synonyms_of.find(h);
    if (it == synonyms_of.end()) it = synonyms_of.emplace(h, synonyms(h)).first;
    return it->second;
  });
  a.unmatched_hyp = std::move(hyp);
  a.unmatched_ref = std::move(ref);
  a.matches = a.exact;
  a.matches.insert(a.matches.end(), a.stem.begin(), a.stem.end());
  a.matches.insert(a.matches.end(), a.synonym.begin(), a.synonym.end());
  std::stable_sort(a.matches.begin(), a.matches.end(),
                   [](const WordMatch& x, const WordMatch& y) { return x.first < y.first; });

  const double m = static_cast<double>(a.matches.size());
  if (a.hyp_length == 0 || a.ref_length == 0 || a.matches.empty()) {
    a.zero_division = true;
    return a;
  }
  const auto& o = options_;
  a.precision = m / static_cast<double>(a.hyp_length);
  a.recall = m / static_cast<double>(a.ref_length);
  a.fmean = a.precision * a.recall / (o.alpha * a.precision + (1 - o.alpha) * a.recall);
  a.chunks = count_chunks(a.matches);
  a.fragmentation = a.chunks / m;
  a.penalty = o.gamma * std::pow(a.fragmentation, o.beta);
  a.score = (1 - a.penalty) * a.fmean;
  return a;
}

double Meteor::score(std::string_view hypothesis, const std::vector<std::string>& references) const {
  double best = 0;
  for (std::size_t k = 0; k < references.size(); ++k) {
    const double s = align(hypothesis, references[k]).score;
    if (k == 0 || s > best) best = s;
  }
  return best;
}

std::string Meteor::signature() const {
  return fmt::format("nltk:{}|alpha:{}|beta:{}|gamma:{}|stem:porter-nltk|wordnet:{}", to_string(options_.version),
                     options_.alpha, options_.beta, options_.gamma, wordnet_.directory());
}

}  // namespace invar::metrics
