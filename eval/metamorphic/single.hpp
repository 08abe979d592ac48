#pragma once
// Single-input relations (Manino et al. 2022, §3; the robustness relations of the literature): a
// source x and its follow-up t(x), one test case each, violated when the property fails.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace invar::metamorphic {

// What the outputs must keep. Order: s(f(x)) ≤ s(f(t(x))) (Increase) or ≥ (Decrease), for
// transformations with a known monotone effect; a tie keeps the property.
enum class Property { Equivalence, Similarity, Order };
enum class Direction { Increase, Decrease };

const char* property_name(Property property);
Property parse_property(const std::string& name);  // "equivalence", "similarity", "order"
Direction parse_direction(const std::string& name);  // "increase", "decrease"

struct SingleCounts {
  std::size_t tests = 0;
  std::vector<std::size_t> violating;  // source indices, ascending
  double rate() const;                 // violating / tests; NaN without tests
};

// argmax f(x) = argmax f(t(x)).
SingleCounts check_equivalence(std::span<const int> source, std::span<const int> follow_up);
// |s(f(x)) − s(f(t(x)))| ≤ δ.
SingleCounts check_score_similarity(std::span<const double> source, std::span<const double> follow_up, double delta);
// cos(f(x), f(t(x))) ≥ δ, for embeddings (engine/cosine.hpp: a zero vector has cosine 0).
SingleCounts check_cosine_similarity(const std::vector<std::vector<float>>& source,
                                     const std::vector<std::vector<float>>& follow_up, double delta);
SingleCounts check_order(std::span<const double> source, std::span<const double> follow_up, Direction direction);

}  // namespace invar::metamorphic
