#include "eval/metamorphic/transitivity.hpp"

#include <limits>
#include <random>
#include <set>

#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/stats/random.hpp"

namespace invar::metamorphic {

namespace {

void add(TransitivityCounts& counts, bool premise, bool violated) {
  ++counts.candidates;
  counts.tests += premise;
  counts.violations += violated;
}

}  // namespace

double TransitivityCounts::rate() const {
  return tests == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(violations) / static_cast<double>(tests);
}

std::vector<Triplet> read_triplets(const std::string& path) {
  const auto table = read_table(path, {.format = TableFormat::Tsv});
  std::vector<Triplet> out;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    if (row.size() != 3 && row.size() != 4)
      fail("{}: expected a <TAB> b <TAB> c [<TAB> group], got {} fields", table.where(r), row.size());
    for (std::size_t k = 0; k < 3; ++k)
      if (is_blank(row[k])) fail("{}: word {} is empty", table.where(r), k + 1);
    out.push_back({row[0], row[1], row[2], row.size() == 4 ? row[3] : "", table.where(r)});
  }
  if (out.empty()) fail("{}: no triplets", path);
  return out;
}

std::vector<Word> read_words(const std::string& path) {
  const auto table = read_table(path, {.format = TableFormat::Tsv});
  std::vector<Word> out;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    if (row.size() > 2) fail("{}: expected word [<TAB> group], got {} fields", table.where(r), row.size());
    if (is_blank(row[0])) fail("{}: empty word", table.where(r));
    out.push_back({row[0], row.size() == 2 ? row[1] : ""});
  }
  return out;
}

std::vector<Triplet> sample_triplets(const std::vector<Word>& words, std::size_t count, std::uint64_t seed) {
  std::map<std::string, std::vector<std::string>> groups;
  for (const auto& word : words) groups[word.group].push_back(word.text);
  std::vector<const std::pair<const std::string, std::vector<std::string>>*> usable;
  std::size_t total = 0;
  for (const auto& group : groups)
    if (group.second.size() >= 3) {
      usable.push_back(&group);
      total += group.second.size();
    }
  if (usable.empty()) fail("sampling triplets needs a group with at least three words");
  std::mt19937_64 rng(seed);
  std::vector<Triplet> out;
  for (std::size_t k = 0; k < count; ++k) {
    std::uint64_t pick = stats::uniform_below(rng, total);
    std::size_t g = 0;
    while (pick >= usable[g]->second.size()) pick -= usable[g++]->second.size();
    const auto& list = usable[g]->second;
    const std::size_t n = list.size();
    const std::size_t i = stats::uniform_below(rng, n);
    std::size_t j = stats::uniform_below(rng, n - 1);
    j += j >= i;
    std::size_t l = stats::uniform_below(rng, n - 2);
    for (std::size_t taken : {std::min(i, j), std::max(i, j)}) l += l >= taken;
    out.push_back({list[i], list[j], list[l], usable[g]->first, "sampled"});
  }
  return out;
}

TripletJudgements judge_triplets(std::span<const Triplet> triplets, std::size_t relations, const PairJudge& judge) {
  std::vector<std::pair<std::string, std::string>> premises;
  for (const auto& t : triplets) {
    premises.push_back({t.a, t.b});
    premises.push_back({t.b, t.c});
  }
  const auto premise_judgements = judge(premises);
  std::vector<std::pair<std::string, std::string>> conclusions;
  for (const auto& t : triplets) conclusions.push_back({t.a, t.c});
  const auto conclusion_judgements = judge(conclusions);
  TripletJudgements out(relations);
  for (std::size_t r = 0; r < relations; ++r)
    for (std::size_t k = 0; k < triplets.size(); ++k)
      out[r].push_back({premise_judgements[r][2 * k], premise_judgements[r][2 * k + 1], conclusion_judgements[r][k]});
  return out;
}

std::vector<RelationTransitivity> count_transitivity(const std::vector<Triplet>& triplets,
                                                     const std::vector<std::string>& relations,
                                                     const TripletJudgements& judgements) {
  if (relations.empty()) fail("transitivity needs at least one relation");
  std::vector<RelationTransitivity> out;
  for (std::size_t r = 0; r < relations.size(); ++r) {
    RelationTransitivity result{relations[r], {}, {}, {}, judgements[r]};
    for (std::size_t k = 0; k < triplets.size(); ++k) {
      const auto& [ab, bc, ac] = judgements[r][k];
      const bool premise = ab && bc;
      const bool violated = premise && !ac;
      add(result.overall, premise, violated);
      add(result.groups[triplets[k].group], premise, violated);
      if (violated) result.violating.push_back(k);
    }
    out.push_back(std::move(result));
  }
  return out;
}

std::vector<RelationTransitivity> run_transitivity(const std::vector<Triplet>& triplets,
                                                   const std::vector<std::string>& relations, const PairJudge& judge) {
  if (relations.empty()) fail("transitivity needs at least one relation");
  return count_transitivity(triplets, relations, judge_triplets(triplets, relations.size(), judge));
}

PairJudge pair_label_file_judge(const std::string& path, const std::vector<std::string>& relations) {
  const auto table = read_table(path, {.format = TableFormat::Tsv, .expected_columns = 3});
  std::map<std::pair<std::string, std::string>, std::string> labels;
  std::set<std::string> seen;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    seen.insert(row[2]);
    if (!labels.emplace(std::make_pair(row[0], row[1]), row[2]).second)
      fail("{}: the pair ({}, {}) is listed twice", table.where(r), row[0], row[1]);
  }
  for (const auto& relation : relations)
    if (!seen.count(relation)) fail("{}: unknown label '{}': no pair has it", path, relation);
  return [labels, relations, path](const std::vector<std::pair<std::string, std::string>>& pairs) {
    std::vector<std::vector<bool>> out(relations.size());
    for (const auto& pair : pairs) {
      auto found = labels.find(pair);
      if (found == labels.end()) fail("{}: no label for the pair ({}, {})", path, pair.first, pair.second);
      for (std::size_t r = 0; r < relations.size(); ++r) out[r].push_back(found->second == relations[r]);
    }
    return out;
  };
}

}  // namespace invar::metamorphic
