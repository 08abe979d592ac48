#pragma once
// Single-input relations and pairwise systematicity over several transformations (Manino et al.
// 2022, Tables 1 and 2): the model's outputs on the sources and on each transformation's
// follow-ups, checked per transformation, with per-source counts.
#include <cstdint>
#include <string>
#include <vector>

#include "eval/metamorphic/models.hpp"
#include "eval/metamorphic/pairwise.hpp"
#include "eval/metamorphic/single.hpp"

namespace invar::metamorphic {

enum class Arity { Single, Pairwise };

struct RelationSettings {
  Arity arity = Arity::Pairwise;
  Property property = Property::Order;
  Direction direction = Direction::Increase;  // single-input order only
  double delta = 0.1;    // similarity: |Δ score| ≤ δ, or cosine ≥ δ for embeddings
};

struct Suite {
  std::string path;                         // where the sources came from (named in errors)
  std::vector<std::size_t> line_numbers;    // of each source
  std::vector<std::string> texts;           // the source texts, when known
  std::vector<std::string> class_names;     // names of the class indices in Outputs::classes
  Outputs source;
  std::vector<std::string> names;           // one per transformation
  std::vector<std::string> descriptions;    // what each transformation does, e.g. its sentence; may be empty
  std::vector<Outputs> follow_ups;          // one per transformation, line-aligned with the sources
};

// One transformation's result. Single-input relations count one test per source.
struct TransformationResult {
  std::string name;
  std::uint64_t tests = 0, violations = 0;
  std::vector<std::uint64_t> source_tests, source_violations;
  double rate() const;
  double source_rate(std::size_t source) const;
};

struct SuiteResult {
  RelationSettings settings;
  std::vector<TransformationResult> transformations;
  std::uint64_t tests = 0, violations = 0;  // over every transformation
  double rate() const;
};

// δ of the similarity property: |Δ score| ≤ δ needs a finite δ ≥ 0 (a negative one reports every
// test violated); cosine ≥ δ (embeddings) a finite δ. NaN fails both.
void validate_delta(double delta, bool cosine);

// Fails for a bad δ (validate_delta), for a suite without transformations, with fewer than two sources (pairwise), with outputs
// of the wrong kind for the property, or misaligned follow-ups.
SuiteResult run_suite(const Suite& suite, const RelationSettings& settings);

// Precomputed outputs, so that models outside invar can be tested: TSV/CSV with a header line, or
// JSONL objects. Column "source" holds s(f(x)), every other column s(f(t(x))) of the transformation
// it names, except "text" (the source text) and "label" (the source's predicted label, reported per
// source). Scores must be numbers, except for equivalence, where they are class names.
Suite read_score_file(const std::string& path, Property property);

}  // namespace invar::metamorphic
