#pragma once
// Seeded uniform draws that give the same values on every platform (splits, sampling, noise).
#include <cstdint>
#include <random>

namespace invar::stats {

// Uniform in [0, bound) by rejection, not std::uniform_int_distribution (whose algorithm the
// standard leaves open), so a seed gives the same draws on every platform.
inline std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t bound) {
  const std::uint64_t limit = rng.max() - rng.max() % bound;
  std::uint64_t draw;
  do draw = rng(); while (draw >= limit);
  return draw % bound;
}

}  // namespace invar::stats
