#pragma once
// Helpers that several of eval/stats' statistics files share (not part of stats.hpp's interface).
#include <vector>

#include "eval/stats/stats.hpp"

namespace invar::stats {

void require_same_length(const std::vector<double>& x, const std::vector<double>& y, const char* what);
// scipy's _ttest_finish: p-value of a t statistic with df degrees of freedom.
double t_pvalue(double t, double df, Alternative alternative);

}  // namespace invar::stats
