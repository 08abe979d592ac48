#include "eval/metrics/vectors/wmd.hpp"

#include <lemon/network_simplex.h>
#include <lemon/smart_graph.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>

#include "core/error.hpp"

namespace invar::metrics {
namespace {

using Vector = std::vector<double>;

// The in-vocabulary tokens of a text as double vectors (unit length if asked).
std::vector<std::pair<std::string, Vector>> in_vocabulary(const WordVectors& vectors, std::string_view text,
                                                          bool unit_vectors) {
  std::vector<std::pair<std::string, Vector>> out;
  for (auto& token : word_vector_tokens(text)) {
    const float* v = vectors.find(token);
    if (!v) continue;
    Vector x(v, v + vectors.dimension());
    if (unit_vectors) {
      double norm = 0;
      for (double e : x) norm += e * e;
      norm = std::sqrt(norm);
      if (norm > 0)
        for (double& e : x) e /= norm;
    }
    out.emplace_back(std::move(token), std::move(x));
  }
  return out;
}

double euclidean(const Vector& a, const Vector& b) {
  double sum = 0;
  for (std::size_t k = 0; k < a.size(); ++k) sum += (a[k] - b[k]) * (a[k] - b[k]);
  return std::sqrt(sum);
}

// Unique words (sorted) with their token counts and vectors.
struct Bag {
  std::vector<std::string> words;
  std::vector<std::int64_t> counts;
  std::vector<Vector> vectors;
  std::int64_t tokens = 0;
};

Bag bag_of_words(const std::vector<std::pair<std::string, Vector>>& tokens) {
  std::map<std::string, std::pair<std::int64_t, const Vector*>> unique;
  for (const auto& [word, vector] : tokens) {
    auto& entry = unique.try_emplace(word, 0, &vector).first->second;
    ++entry.first;
  }
  Bag bag;
  for (const auto& [word, entry] : unique) {
    bag.words.push_back(word);
    bag.counts.push_back(entry.first);
    bag.vectors.push_back(*entry.second);
  }
  bag.tokens = static_cast<std::int64_t>(tokens.size());
  return bag;
}

// LEMON's network simplex needs integer data. The supplies are exact integers once both weight
// vectors are put over the common denominator n1·n2 (count1·n2 and count2·n1); the costs are the
// distances scaled so the largest is 2^40 and rounded, which moves the optimum by at most
// 2 · 0.5 / scale · Σflow = max distance · 2^-40 (≈ 1e-12 here), far below the 1e-9 tolerance.
std::vector<std::vector<double>> optimal_flow(const Bag& a, const Bag& b, const std::vector<std::vector<double>>& d) {
  double largest = 0;
  for (const auto& row : d)
    for (double x : row) largest = std::max(largest, x);
  const double scale = largest > 0 ? std::ldexp(1.0, 40) / largest : 1.0;

  lemon::SmartDigraph graph;
  lemon::SmartDigraph::NodeMap<std::int64_t> supply(graph);
  std::vector<lemon::SmartDigraph::Node> left, right;
  for (std::size_t i = 0; i < a.words.size(); ++i) {
    left.push_back(graph.addNode());
    supply[left.back()] = a.counts[i] * b.tokens;
  }
  for (std::size_t j = 0; j < b.words.size(); ++j) {
    right.push_back(graph.addNode());
    supply[right.back()] = -b.counts[j] * a.tokens;
  }
  lemon::SmartDigraph::ArcMap<std::int64_t> cost(graph);
  std::vector<std::vector<lemon::SmartDigraph::Arc>> arcs(a.words.size());
  for (std::size_t i = 0; i < left.size(); ++i)
    for (std::size_t j = 0; j < right.size(); ++j) {
      arcs[i].push_back(graph.addArc(left[i], right[j]));
      cost[arcs[i].back()] = std::llround(d[i][j] * scale);
    }
  lemon::NetworkSimplex<lemon::SmartDigraph, std::int64_t, std::int64_t> simplex(graph);
  simplex.costMap(cost).supplyMap(supply);
  if (simplex.run() != decltype(simplex)::OPTIMAL)
    fail("word mover's distance: the network simplex found no optimal flow ({} x {} words)", a.words.size(),
         b.words.size());
  const double total = static_cast<double>(a.tokens) * static_cast<double>(b.tokens);
  std::vector<std::vector<double>> flow(left.size(), std::vector<double>(right.size()));
  for (std::size_t i = 0; i < left.size(); ++i)
    for (std::size_t j = 0; j < right.size(); ++j) flow[i][j] = static_cast<double>(simplex.flow(arcs[i][j])) / total;
  return flow;
}

Vector mean(const std::vector<std::pair<std::string, Vector>>& tokens) {
  Vector m(tokens.front().second.size());
  for (const auto& [word, x] : tokens)
    for (std::size_t k = 0; k < m.size(); ++k) m[k] += x[k];
  for (double& e : m) e /= static_cast<double>(tokens.size());
  return m;
}

double dot(const Vector& a, const Vector& b) {
  double sum = 0;
  for (std::size_t k = 0; k < a.size(); ++k) sum += a[k] * b[k];
  return sum;
}

}  // namespace

WmdProblem word_movers_problem(const WordVectors& vectors, std::string_view text1, std::string_view text2,
                               bool unit_vectors) {
  const Bag a = bag_of_words(in_vocabulary(vectors, text1, unit_vectors));
  const Bag b = bag_of_words(in_vocabulary(vectors, text2, unit_vectors));
  WmdProblem p{.words1 = a.words, .words2 = b.words};
  for (auto c : a.counts) p.weights1.push_back(static_cast<double>(c) / static_cast<double>(a.tokens));
  for (auto c : b.counts) p.weights2.push_back(static_cast<double>(c) / static_cast<double>(b.tokens));
  if (a.words.empty() || b.words.empty()) {
    p.value = std::numeric_limits<double>::infinity();
    return p;
  }
  // Checked before the distance matrix and the graph, which grow with the product (~100 bytes a pair).
  if (a.words.size() * b.words.size() > kMaxWordPairs)
    fail("word mover's distance: {} x {} unique words make {} word pairs, more than the {} it solves exactly; "
         "score sentences, not whole documents",
         a.words.size(), b.words.size(), a.words.size() * b.words.size(), kMaxWordPairs);
  for (const auto& x : a.vectors) {
    p.distance.emplace_back();
    for (const auto& y : b.vectors) p.distance.back().push_back(euclidean(x, y));
  }
  p.flow = optimal_flow(a, b, p.distance);
  for (std::size_t i = 0; i < a.words.size(); ++i)
    for (std::size_t j = 0; j < b.words.size(); ++j) p.value += p.flow[i][j] * p.distance[i][j];
  return p;
}

double word_movers_distance(const WordVectors& vectors, std::string_view text1, std::string_view text2,
                            bool unit_vectors) {
  return word_movers_problem(vectors, text1, text2, unit_vectors).value;
}

std::optional<double> mean_vector_cosine(const WordVectors& vectors, std::string_view text1,
                                         std::string_view text2) {
  const auto a = in_vocabulary(vectors, text1, false);
  const auto b = in_vocabulary(vectors, text2, false);
  if (a.empty() || b.empty()) return std::nullopt;
  const Vector m1 = mean(a), m2 = mean(b);
  return dot(m1, m2) / (std::sqrt(dot(m1, m1)) * std::sqrt(dot(m2, m2)));
}

}  // namespace invar::metrics
