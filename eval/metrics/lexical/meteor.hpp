#pragma once
// METEOR (Banerjee & Lavie 2005; Lavie & Agarwal 2007) exactly as NLTK's meteor_score computes it:
// unigram alignment in three stages (exact, Porter stem, WordNet synonym), each matching from the
// last hypothesis word backwards to the last still unmatched reference word that fits, then
// Fmean = P·R / (α·P + (1−α)·R) and the fragmentation penalty γ·(chunks/matches)^β; several
// references → the best score. Two NLTK behaviours:
// - Nltk38 (NLTK ≥ 3.6.5, pre-tokenised input: str.split() then str.lower() per token): the
//   WordNet stage sees the *stems* left over by the stem stage (NLTK ≥ 3.6.3).
// - Nltk362 (NLTK 3.6.2, strings: str.lower() then split(), as Briakou et al.'s script called it):
//   the stem stage does not remove what it matched, so the WordNet stage looks at every word left
//   after the exact stage, unstemmed, and may match a word a second time (scores can exceed 1).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "eval/metrics/lexical/wordnet.hpp"

namespace invar::metrics {

enum class MeteorVersion { Nltk38, Nltk362 };

struct MeteorOptions {
  MeteorVersion version = MeteorVersion::Nltk38;
  double alpha = 0.9;
  double beta = 3.0;
  double gamma = 0.5;
};

// A word with its position in the sentence (NLTK's enumerated lists).
struct IndexedWord {
  int index = 0;
  std::string word;
  bool operator==(const IndexedWord&) const = default;
};
using WordMatch = std::pair<int, int>;  // [hypothesis index, reference index]

// The computation against one reference, stage by stage.
struct MeteorAlignment {
  std::vector<WordMatch> exact, stem, synonym;  // in the order each stage found them
  std::vector<WordMatch> matches;               // all of them, stably sorted by hypothesis index
  std::vector<IndexedWord> unmatched_hyp, unmatched_ref;  // what the synonym stage left
  std::size_t hyp_length = 0, ref_length = 0;
  int chunks = 0;
  bool zero_division = false;  // an empty side or no match: the score is 0
  double precision = 0, recall = 0, fmean = 0, fragmentation = 0, penalty = 0, score = 0;
};

class Meteor {
 public:
  Meteor(const WordNet& wordnet, MeteorOptions options = {});
  const MeteorOptions& options() const { return options_; }

  // NLTK's tokens of a sentence under the chosen version.
  std::vector<std::string> tokens(std::string_view sentence) const;
  // The synonym set the WordNet stage uses for a word: the lemma names (without "_") of every
  // synset of the word, plus the word itself, sorted.
  std::vector<std::string> synonyms(std::string_view word) const;

  MeteorAlignment align(std::string_view hypothesis, std::string_view reference) const;
  // max over references of align(...).score; 0 when there is none.
  double score(std::string_view hypothesis, const std::vector<std::string>& references) const;
  // "nltk:3.8|alpha:0.9|beta:3|gamma:0.5|stem:porter-nltk|wordnet:/usr/share/wordnet"
  std::string signature() const;

 private:
  const WordNet& wordnet_;
  MeteorOptions options_;
};

std::string to_string(MeteorVersion version);  // "3.8" or "3.6.2"

}  // namespace invar::metrics
