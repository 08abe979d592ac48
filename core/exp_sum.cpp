#include "core/exp_sum.hpp"

#include <Eigen/Core>

#include <algorithm>

namespace invar {

double exp_sum(const float* x, std::int64_t n, float max) {
  constexpr std::int64_t kBlock = 1024, kLanes = 8;
  alignas(64) float block[kBlock];
  double lanes[kLanes] = {};
  for (std::int64_t begin = 0; begin < n; begin += kBlock) {
    const std::int64_t count = std::min(kBlock, n - begin);
    Eigen::Map<Eigen::ArrayXf>(block, count) = (Eigen::Map<const Eigen::ArrayXf>(x + begin, count) - max).exp();
    std::int64_t i = 0;
    for (; i + kLanes <= count; i += kLanes)
      for (std::int64_t l = 0; l < kLanes; ++l) lanes[l] += static_cast<double>(block[i + l]);
    for (std::int64_t l = 0; i < count; ++i, ++l) lanes[l] += static_cast<double>(block[i]);
  }
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

}  // namespace invar
