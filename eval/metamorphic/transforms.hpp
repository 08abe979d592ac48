#pragma once
// Transformations t that build follow-up inputs from source texts: the paper's concatenation of
// neutral sentences (Manino et al. 2022, Table 1), word substitution from a lexicon, seeded
// character noise, and follow-ups given in a file.
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace invar::metamorphic {

struct Transformation {
  std::string name;
  std::string description;  // what it does, shown beside its counts: its sentence, file, rate
  // The follow-up of source `row` (the row lets seeded noise differ between inputs reproducibly).
  std::function<std::string(const std::string& text, std::size_t row)> apply;
};

// Six sentences written for invar that say nothing about the text they join, as the paper's six;
// the first three are put at the start of a text, the last three at its end.
const std::vector<std::string>& neutral_sentences();
// prefix-1, prefix-2, prefix-3, suffix-1, suffix-2, suffix-3.
std::vector<Transformation> neutral_transformations();

Transformation prefix_transformation(std::string name, std::string sentence);
Transformation suffix_transformation(std::string name, std::string sentence);

// Lexicon TSV: word <TAB> replacement per line. Whole words (maximal runs of letters, digits, '-'
// and '\'') are replaced when found, as written or with the first letter capitalised.
using Lexicon = std::unordered_map<std::string, std::string>;
Lexicon read_lexicon(const std::string& path);
Transformation substitution_transformation(std::string name, Lexicon lexicon);

// Each ASCII letter, with probability `rate`, is either replaced by a neighbouring key on a QWERTY
// keyboard or swapped with the following letter (equal chances); seeded per input with
// mt19937_64(seed + row), so a run is reproducible and rows do not depend on each other.
Transformation noise_transformation(std::string name, double rate, std::uint64_t seed);

// A --transform argument: "neutral" (the six above), "prefix:TEXT", "suffix:TEXT",
// "lexicon:FILE", "noise:RATE" (seed given separately); an optional "NAME=" in front names it.
std::vector<Transformation> parse_transformation(const std::string& argument, std::uint64_t seed);

}  // namespace invar::metamorphic
