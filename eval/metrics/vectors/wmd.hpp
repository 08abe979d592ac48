#pragma once
// Word-vector similarity of two texts, over their in-vocabulary tokens (Python's lower().split();
// tokens missing from the vectors are dropped first):
// - Word Mover's Distance (Kusner et al. 2015, "From Word Embeddings To Document Distances"): the
//   earth mover's distance between the normalised bags of words (weight of a word = its count /
//   the number of in-vocabulary tokens), ground distance Euclidean between the word vectors,
//   solved exactly as a min-cost flow by LEMON's network simplex. Infinite when a side has no
//   in-vocabulary token.
// - The cosine of the mean word vectors (every token counted), undefined (nullopt) when a side has
//   no in-vocabulary token.
// Vectors are float32, computed with as doubles. The exact problem has one arc per pair of unique
// words, so a pair of texts with more than kMaxWordPairs of them (e.g. 1024 × 1024 unique words:
// whole documents rather than sentences) fails with a message instead of exhausting memory. `unit_vectors` divides every vector by its L2 norm
// first, what gensim ≥ 4 does by default (wmdistance(norm=True)) and Mir et al. 2019 did.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/metrics/vectors/word_vectors.hpp"

namespace invar::metrics {

// The transport problem of one pair: unique in-vocabulary words in order of first appearance,
// their nBOW weights, the distance matrix and the optimal flow (rows: words1, columns: words2).
inline constexpr std::size_t kMaxWordPairs = std::size_t{1} << 20;

struct WmdProblem {
  std::vector<std::string> words1, words2;
  std::vector<double> weights1, weights2;
  std::vector<std::vector<double>> distance, flow;
  double value = 0;  // Σ flow · distance; +∞ when a side is empty
};

WmdProblem word_movers_problem(const WordVectors& vectors, std::string_view text1, std::string_view text2,
                               bool unit_vectors = false);
double word_movers_distance(const WordVectors& vectors, std::string_view text1, std::string_view text2,
                            bool unit_vectors = false);
std::optional<double> mean_vector_cosine(const WordVectors& vectors, std::string_view text1, std::string_view text2);

}  // namespace invar::metrics
