#include "eval/metamorphic/pairwise.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unordered_map>

#include <Eigen/Dense>

#include "core/error.hpp"

namespace invar::metamorphic {

namespace {

// Counts of inserted ranks, with prefix sums in O(log n) (Fenwick 1994).
class Fenwick {
 public:
  explicit Fenwick(std::size_t size) : tree_(size + 1, 0) {}
  void add(std::size_t rank, std::int64_t delta) {
    for (std::size_t i = rank + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
  }
  // How many inserted ranks are < rank.
  std::uint64_t below(std::size_t rank) const {
    std::int64_t sum = 0;
    for (std::size_t i = rank; i > 0; i -= i & (~i + 1)) sum += tree_[i];
    return static_cast<std::uint64_t>(sum);
  }

 private:
  std::vector<std::int64_t> tree_;
};

void check_sizes(std::size_t source, std::size_t follow_up) {
  if (source != follow_up) fail("{} source outputs but {} follow-up outputs; they must be line-aligned", source, follow_up);
}

void check_finite(std::span<const double> values, const char* what) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i])) fail("{} score {} (input {}) is not a finite number", what, values[i], i + 1);
}

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The embeddings as rows scaled to unit length, so that a product of rows is their cosine; a zero
// vector stays zero (cosine 0 with everything, as check_cosine_similarity has it).
RowMatrix unit_rows(const std::vector<std::vector<float>>& embeddings, std::size_t dimension, const char* what) {
  RowMatrix rows(embeddings.size(), dimension);
  for (std::size_t i = 0; i < embeddings.size(); ++i) {
    if (embeddings[i].size() != dimension)
      fail("{} embedding {} has {} dimensions, the first has {}", what, i + 1, embeddings[i].size(), dimension);
    for (std::size_t k = 0; k < dimension; ++k) {
      if (!std::isfinite(embeddings[i][k])) fail("{} embedding {} holds a value that is not finite", what, i + 1);
      rows(i, k) = embeddings[i][k];
    }
    const double norm = rows.row(i).norm();
    if (norm > 0) rows.row(i) /= norm;
  }
  return rows;
}

std::uint64_t pairs_of(std::uint64_t n) { return n * (n - (n > 0)) / 2; }

PairwiseCounts empty_counts(std::size_t n) {
  PairwiseCounts counts;
  counts.source_tests.assign(n, 0);
  counts.source_violations.assign(n, 0);
  return counts;
}

// Indices sorted by value (stable, so equal values keep input order).
std::vector<std::size_t> sorted_indices(std::span<const double> values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  return order;
}

// Dense ranks of the values: equal values share a rank, ranks follow the order of the values.
std::vector<std::size_t> dense_ranks(std::span<const double> values, std::vector<double>& distinct) {
  distinct.assign(values.begin(), values.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<std::size_t> ranks(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    ranks[i] = static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), values[i]) - distinct.begin());
  return ranks;
}

// Walks `order` group by group of equal source scores; for each member asks `count` how many
// earlier groups' members violate with it, then inserts the group. Run forwards it finds each
// source's violations with lower-scored sources, backwards those with higher-scored ones.
template <typename Order, typename Count>
void sweep_groups(const Order& order, std::span<const double> source, const std::vector<std::size_t>& ranks,
                  Fenwick& tree, Count count, PairwiseCounts& counts) {
  std::size_t inserted = 0;
  for (auto group = order.begin(); group != order.end();) {
    auto end = group;
    while (end != order.end() && source[*end] == source[*group]) ++end;
    for (auto it = group; it != end; ++it) counts.source_violations[*it] += count(tree, ranks[*it], inserted);
    for (auto it = group; it != end; ++it) tree.add(ranks[*it], 1);
    inserted += static_cast<std::size_t>(end - group);
    group = end;
  }
}

}  // namespace

double PairwiseCounts::rate() const {
  return tests == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(violations) / static_cast<double>(tests);
}

double PairwiseCounts::source_rate(std::size_t source) const {
  return source_tests[source] == 0 ? std::numeric_limits<double>::quiet_NaN()
                                   : static_cast<double>(source_violations[source]) / static_cast<double>(source_tests[source]);
}

PairwiseCounts count_order_violations(std::span<const double> source, std::span<const double> follow_up) {
  check_sizes(source.size(), follow_up.size());
  check_finite(source, "source");
  check_finite(follow_up, "follow-up");
  const std::size_t n = source.size();
  auto counts = empty_counts(n);
  std::vector<double> distinct;
  const auto ranks = dense_ranks(follow_up, distinct);
  const auto order = sorted_indices(source);

  // Ascending: a lower-scored source whose follow-up ranks strictly higher is a reversal.
  Fenwick lower(distinct.size());
  sweep_groups(order, source, ranks, lower,
               [](const Fenwick& tree, std::size_t rank, std::size_t inserted) { return inserted - tree.below(rank + 1); },
               counts);
  for (std::size_t i = 0; i < n; ++i) counts.violations += counts.source_violations[i];
  // Descending: a higher-scored source whose follow-up ranks strictly lower.
  Fenwick higher(distinct.size());
  std::vector<std::size_t> reversed(order.rbegin(), order.rend());
  sweep_groups(reversed, source, ranks, higher,
               [](const Fenwick& tree, std::size_t rank, std::size_t) { return tree.below(rank); }, counts);

  std::uint64_t tied_pairs = 0;
  for (std::size_t k = 0; k < n;) {
    std::size_t end = k;
    while (end < n && source[order[end]] == source[order[k]]) ++end;
    const std::uint64_t group = end - k;
    tied_pairs += pairs_of(group);
    for (std::size_t m = k; m < end; ++m) counts.source_tests[order[m]] = n - group;
    k = end;
  }
  counts.tests = pairs_of(n) - tied_pairs;
  return counts;
}

PairwiseCounts count_class_violations(std::span<const int> source, std::span<const int> follow_up) {
  check_sizes(source.size(), follow_up.size());
  auto counts = empty_counts(source.size());
  std::unordered_map<int, std::uint64_t> group_size;
  std::unordered_map<std::uint64_t, std::uint64_t> same_follow_up;  // (source class, follow-up class) → count
  auto key = [](int a, int b) { return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b); };
  for (std::size_t i = 0; i < source.size(); ++i) {
    ++group_size[source[i]];
    ++same_follow_up[key(source[i], follow_up[i])];
  }
  for (const auto& [cls, size] : group_size) counts.tests += pairs_of(size);
  std::uint64_t kept = 0;
  for (const auto& [classes, size] : same_follow_up) kept += pairs_of(size);
  counts.violations = counts.tests - kept;
  for (std::size_t i = 0; i < source.size(); ++i) {
    counts.source_tests[i] = group_size[source[i]] - 1;
    counts.source_violations[i] = group_size[source[i]] - same_follow_up[key(source[i], follow_up[i])];
  }
  return counts;
}

PairwiseCounts count_similarity_violations(std::span<const double> source, std::span<const double> follow_up,
                                           double delta) {
  check_sizes(source.size(), follow_up.size());
  check_finite(source, "source");
  check_finite(follow_up, "follow-up");
  if (!(delta >= 0) || !std::isfinite(delta)) fail("the similarity threshold δ must be a finite number ≥ 0, got {}", delta);
  const std::size_t n = source.size();
  auto counts = empty_counts(n);
  std::vector<double> distinct;
  const auto ranks = dense_ranks(follow_up, distinct);
  // "Within δ" is always tested as larger − smaller ≤ δ, the very expression the reference
  // evaluates; floating-point subtraction is monotone, so the windows below are exact.
  auto within = [delta](double smaller, double larger) { return larger - smaller <= delta; };
  const auto order = sorted_indices(source);
  // Sliding window over sources sorted by score: the window holds the earlier sources within δ of
  // the current one; its follow-ups within δ of the current follow-up are found by rank.
  auto sweep = [&](const auto& sequence) {
    Fenwick window(distinct.size());
    std::size_t first = 0;
    for (std::size_t k = 0; k < sequence.size(); ++k) {
      const std::size_t j = sequence[k];
      while (!within(std::min(source[sequence[first]], source[j]), std::max(source[sequence[first]], source[j]))) {
        window.add(ranks[sequence[first]], -1);
        ++first;
      }
      const double t = follow_up[j];
      const auto low = std::partition_point(distinct.begin(), distinct.end(), [&](double u) { return !within(u, t); });
      const auto high = std::partition_point(distinct.begin(), distinct.end(), [&](double u) { return u <= t || within(t, u); });
      const std::uint64_t close = window.below(static_cast<std::size_t>(high - distinct.begin())) -
                                  window.below(static_cast<std::size_t>(low - distinct.begin()));
      const std::uint64_t tests = k - first;
      counts.source_tests[j] += tests;
      counts.source_violations[j] += tests - close;
      window.add(ranks[j], 1);
    }
  };
  sweep(order);
  for (std::size_t i = 0; i < n; ++i) {
    counts.tests += counts.source_tests[i];
    counts.violations += counts.source_violations[i];
  }
  sweep(std::vector<std::size_t>(order.rbegin(), order.rend()));
  return counts;
}

PairwiseCounts count_cosine_violations(const std::vector<std::vector<float>>& source,
                                       const std::vector<std::vector<float>>& follow_up, double delta) {
  check_sizes(source.size(), follow_up.size());
  if (!std::isfinite(delta)) fail("the similarity threshold δ must be a finite number, got {}", delta);
  const std::size_t n = source.size();
  const std::size_t dimension = n == 0 ? 0 : source.front().size();
  const auto s = unit_rows(source, dimension, "source");
  const auto t = unit_rows(follow_up, dimension, "follow-up");
  auto counts = empty_counts(n);
  // A block of rows against every later row: the cosines of the pairs (i, j > i), a block at a time
  // so that memory stays at kBlock × n whatever n is.
  constexpr std::size_t kBlock = 256;
  for (std::size_t first = 0; first < n; first += kBlock) {
    const std::size_t rows = std::min(kBlock, n - first);
    const RowMatrix source_cosines = s.middleRows(first, rows) * s.bottomRows(n - first).transpose();
    const RowMatrix follow_up_cosines = t.middleRows(first, rows) * t.bottomRows(n - first).transpose();
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = r + 1; c < n - first; ++c) {
        if (!(source_cosines(r, c) >= delta)) continue;
        const std::size_t i = first + r, j = first + c;
        ++counts.tests;
        ++counts.source_tests[i];
        ++counts.source_tests[j];
        if (follow_up_cosines(r, c) >= delta) continue;
        ++counts.violations;
        ++counts.source_violations[i];
        ++counts.source_violations[j];
      }
  }
  return counts;
}

}  // namespace invar::metamorphic
