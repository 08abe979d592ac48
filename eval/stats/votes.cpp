#include "eval/stats/stats.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "core/error.hpp"

namespace invar::stats {

// ---- Votes and modes ----------------------------------------------------------------------------

Mode scipy_mode(const std::vector<double>& values) {
  if (values.empty()) fail("mode: empty input");
  std::map<double, std::size_t> counts;
  for (double v : values) ++counts[v];
  Mode best{counts.begin()->first, 0};
  for (const auto& [value, count] : counts)
    if (count > best.count) best = {value, count};
  return best;
}

std::vector<double> multimode(const std::vector<double>& values) {
  std::vector<std::pair<double, std::size_t>> seen;  // value, count in first-seen order
  for (double v : values) {
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == v; });
    if (it == seen.end())
      seen.emplace_back(v, 1);
    else
      ++it->second;
  }
  std::size_t most = 0;
  for (const auto& s : seen) most = std::max(most, s.second);
  std::vector<double> modes;
  for (const auto& s : seen)
    if (s.second == most) modes.push_back(s.first);
  return modes;
}

const char* agreement_name(Agreement agreement) {
  switch (agreement) {
    case Agreement::All: return "all";
    case Agreement::Two: return "two";
    case Agreement::None: break;
  }
  return "none";
}

PairMode mode_of_pairs(const std::vector<std::pair<int, int>>& detectors) {
  if (detectors.empty()) fail("mode of pairs: no detectors");
  const auto vote = majority_vote(detectors);
  return {vote.winner, vote.agreement, vote.count};
}

}  // namespace invar::stats
