#pragma once
// A compressed-sparse-row matrix of doubles: the feature matrices the text classifiers exchange
// (TF-IDF rows, or dense sentence embeddings stored as full rows).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace invar::learn {

struct SparseMatrix {
  std::size_t cols = 0;
  std::vector<std::size_t> row_offsets{0};  // row r holds entries [row_offsets[r], row_offsets[r + 1])
  std::vector<std::uint32_t> indices;       // column of each entry, increasing within a row
  std::vector<double> values;

  std::size_t rows() const { return row_offsets.size() - 1; }
  std::size_t row_size(std::size_t r) const { return row_offsets[r + 1] - row_offsets[r]; }
  // Appends a row; `entries` must be sorted by column.
  void add_row(const std::vector<std::pair<std::uint32_t, double>>& entries);
  // Value at (r, c), 0 when absent.
  double at(std::size_t r, std::size_t c) const;
  // The rows listed, in that order.
  SparseMatrix select_rows(const std::vector<std::size_t>& rows) const;
  static SparseMatrix from_dense(const std::vector<std::vector<float>>& rows, std::size_t cols);
};

}  // namespace invar::learn
