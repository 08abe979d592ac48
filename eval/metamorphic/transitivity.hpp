#pragma once
// Three-way transitivity (Manino et al. 2022, §6, Table 5): for a relation R predicted by a pair
// model f (synonymy, hypernymy, ...), a triplet of words (a, b, c) whose premise R(a, b) ∧ R(b, c)
// holds is a test case, violated when ¬R(a, c).
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace invar::metamorphic {

struct Triplet {
  std::string a, b, c;
  std::string group;  // e.g. the language; "" when ungrouped
  std::string where;  // FILE:LINE, or "sampled"
};

// TSV: a <TAB> b <TAB> c [<TAB> group] per line.
std::vector<Triplet> read_triplets(const std::string& path);

struct Word {
  std::string text, group;
};
// TSV: word [<TAB> group] per line; at least three words per group.
std::vector<Word> read_words(const std::string& path);
// `count` triplets of three distinct words from one group each (groups drawn in proportion to their
// size), with mt19937_64(seed) and rejection sampling, so runs are reproducible across platforms.
std::vector<Triplet> sample_triplets(const std::vector<Word>& words, std::size_t count, std::uint64_t seed);

// For every (first, second) pair, whether each relation holds: result[relation][pair].
using PairJudge = std::function<std::vector<std::vector<bool>>(const std::vector<std::pair<std::string, std::string>>&)>;

struct TransitivityCounts {
  std::uint64_t candidates = 0;  // triplets judged
  std::uint64_t tests = 0;       // premise held
  std::uint64_t violations = 0;
  double rate() const;
};

struct RelationTransitivity {
  std::string relation;
  TransitivityCounts overall;
  std::map<std::string, TransitivityCounts> groups;
  std::vector<std::size_t> violating;  // triplet indices
  std::vector<std::array<bool, 3>> judgements;  // per triplet: R(a, b), R(b, c), R(a, c)
};

// Judges (a, b) and (b, c) of every triplet, then (a, c) of those whose premise holds.
// Per relation, per triplet: R(a, b), R(b, c), R(a, c) as the judge says; the judge sees every
// premise pair of `triplets` in one call, then every conclusion pair.
using TripletJudgements = std::vector<std::vector<std::array<bool, 3>>>;
TripletJudgements judge_triplets(std::span<const Triplet> triplets, std::size_t relations, const PairJudge& judge);

std::vector<RelationTransitivity> count_transitivity(const std::vector<Triplet>& triplets,
                                                     const std::vector<std::string>& relations,
                                                     const TripletJudgements& judgements);

// count_transitivity on the judge's judgements of every triplet.
std::vector<RelationTransitivity> run_transitivity(const std::vector<Triplet>& triplets,
                                                   const std::vector<std::string>& relations, const PairJudge& judge);

// Precomputed judgements, for models outside invar: TSV "first <TAB> second <TAB> label" per line,
// R(first, second) holding when label is R's name. A pair that is needed but missing fails.
PairJudge pair_label_file_judge(const std::string& path, const std::vector<std::string>& relations);

}  // namespace invar::metamorphic
