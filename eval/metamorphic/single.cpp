#include "eval/metamorphic/single.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "engine/cosine.hpp"

namespace invar::metamorphic {

namespace {

template <typename Violated>
SingleCounts check_each(std::size_t source, std::size_t follow_up, Violated violated) {
  if (source != follow_up) fail("{} source outputs but {} follow-up outputs; they must be line-aligned", source, follow_up);
  SingleCounts counts;
  counts.tests = source;
  for (std::size_t i = 0; i < source; ++i)
    if (violated(i)) counts.violating.push_back(i);
  return counts;
}

}  // namespace

const char* property_name(Property property) {
  switch (property) {
    case Property::Equivalence: return "equivalence";
    case Property::Similarity: return "similarity";
    case Property::Order: return "order";
  }
  return "?";
}

Property parse_property(const std::string& name) {
  if (name == "equivalence") return Property::Equivalence;
  if (name == "similarity") return Property::Similarity;
  if (name == "order") return Property::Order;
  fail("--property must be equivalence, similarity or order, got '{}'", name);
}

Direction parse_direction(const std::string& name) {
  if (name == "increase") return Direction::Increase;
  if (name == "decrease") return Direction::Decrease;
  fail("--direction must be increase or decrease, got '{}'", name);
}

double SingleCounts::rate() const {
  return tests == 0 ? std::numeric_limits<double>::quiet_NaN()
                    : static_cast<double>(violating.size()) / static_cast<double>(tests);
}

SingleCounts check_equivalence(std::span<const int> source, std::span<const int> follow_up) {
  return check_each(source.size(), follow_up.size(), [&](std::size_t i) { return source[i] != follow_up[i]; });
}

SingleCounts check_score_similarity(std::span<const double> source, std::span<const double> follow_up, double delta) {
  return check_each(source.size(), follow_up.size(),
                    [&](std::size_t i) { return !(std::abs(source[i] - follow_up[i]) <= delta); });
}

SingleCounts check_cosine_similarity(const std::vector<std::vector<float>>& source,
                                     const std::vector<std::vector<float>>& follow_up, double delta) {
  return check_each(source.size(), follow_up.size(),
                    [&](std::size_t i) { return !(cosine_similarity(source[i], follow_up[i]) >= delta); });
}

SingleCounts check_order(std::span<const double> source, std::span<const double> follow_up, Direction direction) {
  return check_each(source.size(), follow_up.size(), [&](std::size_t i) {
    return direction == Direction::Increase ? follow_up[i] < source[i] : follow_up[i] > source[i];
  });
}

}  // namespace invar::metamorphic
