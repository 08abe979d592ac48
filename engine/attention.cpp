#include "engine/attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace invar {

std::int64_t relative_bucket(std::int64_t relative, bool bidirectional, std::int64_t buckets, std::int64_t max_distance) {
  std::int64_t bucket = 0;
  if (bidirectional) {
    buckets /= 2;
    if (relative > 0) bucket += buckets;
    relative = std::abs(relative);
  } else {
    relative = -std::min<std::int64_t>(relative, 0);
  }
  const std::int64_t max_exact = buckets / 2;
  if (relative < max_exact) return bucket + relative;
  const float scaled = std::log(static_cast<float>(relative) / static_cast<float>(max_exact)) /
                       static_cast<float>(std::log(static_cast<double>(max_distance) / static_cast<double>(max_exact))) *
                       static_cast<float>(buckets - max_exact);
  return bucket + std::min<std::int64_t>(max_exact + static_cast<std::int64_t>(scaled), buckets - 1);
}

std::vector<float> relative_position_bias(const std::vector<float>& table, std::int64_t heads, std::int64_t tq,
                                          std::int64_t tk, std::int64_t q_start, bool bidirectional,
                                          std::int64_t buckets, std::int64_t max_distance) {
  std::vector<float> bias(static_cast<std::size_t>(heads * tq * tk));
  for (std::int64_t i = 0; i < tq; ++i)
    for (std::int64_t j = 0; j < tk; ++j) {
      const std::int64_t bucket = relative_bucket(j - (q_start + i), bidirectional, buckets, max_distance);
      for (std::int64_t h = 0; h < heads; ++h)
        bias[static_cast<std::size_t>((h * tq + i) * tk + j)] = table[static_cast<std::size_t>(bucket * heads + h)];
    }
  return bias;
}

std::vector<std::int32_t> disentangled_positions(std::int64_t len, std::int64_t span, std::int64_t buckets,
                                                 std::int64_t max_positions) {
  const auto bucket = [&](std::int64_t relative) -> std::int64_t {
    if (buckets <= 0 || max_positions <= 0) return relative;
    const std::int64_t mid = buckets / 2;
    const std::int64_t magnitude = std::abs(relative);
    if (magnitude <= mid) return relative;
    const double log_position =
        std::ceil(std::log(static_cast<double>(magnitude) / static_cast<double>(mid)) /
                  std::log(static_cast<double>(max_positions - 1) / static_cast<double>(mid)) *
                  static_cast<double>(mid - 1)) +
        static_cast<double>(mid);
    return (relative < 0 ? -1 : 1) * static_cast<std::int64_t>(log_position);
  };
  std::vector<std::int32_t> index(static_cast<std::size_t>(len * len));
  for (std::int64_t i = 0; i < len; ++i)
    for (std::int64_t j = 0; j < len; ++j)
      index[static_cast<std::size_t>(i * len + j)] =
          static_cast<std::int32_t>(std::clamp<std::int64_t>(bucket(i - j) + span, 0, 2 * span - 1));
  return index;
}

}  // namespace invar
