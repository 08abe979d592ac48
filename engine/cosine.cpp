#include "engine/cosine.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace invar {

double cosine_similarity(std::span<const float> a, std::span<const float> b) {
  if (a.size() != b.size()) fail("internal: the cosine of vectors of {} and {} values", a.size(), b.size());
  double dot = 0.0, na = 0.0, nb = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    na += static_cast<double>(a[i]) * a[i];
    nb += static_cast<double>(b[i]) * b[i];
  }
  constexpr double kEps = 1e-8;
  return dot / (std::max(std::sqrt(na), kEps) * std::max(std::sqrt(nb), kEps));
}

}  // namespace invar
