#include "eval/learn/sparse.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace invar::learn {

void SparseMatrix::add_row(const std::vector<std::pair<std::uint32_t, double>>& entries) {
  for (const auto& [column, value] : entries) {
    indices.push_back(column);
    values.push_back(value);
  }
  row_offsets.push_back(indices.size());
}

double SparseMatrix::at(std::size_t r, std::size_t c) const {
  auto begin = indices.begin() + static_cast<std::ptrdiff_t>(row_offsets[r]);
  auto end = indices.begin() + static_cast<std::ptrdiff_t>(row_offsets[r + 1]);
  auto it = std::lower_bound(begin, end, static_cast<std::uint32_t>(c));
  return it != end && *it == c ? values[static_cast<std::size_t>(it - indices.begin())] : 0.0;
}

SparseMatrix SparseMatrix::select_rows(const std::vector<std::size_t>& rows) const {
  SparseMatrix out;
  out.cols = cols;
  for (auto r : rows) {
    out.indices.insert(out.indices.end(), indices.begin() + static_cast<std::ptrdiff_t>(row_offsets[r]),
                       indices.begin() + static_cast<std::ptrdiff_t>(row_offsets[r + 1]));
    out.values.insert(out.values.end(), values.begin() + static_cast<std::ptrdiff_t>(row_offsets[r]),
                      values.begin() + static_cast<std::ptrdiff_t>(row_offsets[r + 1]));
    out.row_offsets.push_back(out.indices.size());
  }
  return out;
}

SparseMatrix SparseMatrix::from_dense(const std::vector<std::vector<float>>& rows, std::size_t cols) {
  SparseMatrix out;
  out.cols = cols;
  for (const auto& row : rows) {
    if (row.size() != cols) fail("feature rows differ in width: {} and {}", row.size(), cols);
    for (std::size_t c = 0; c < cols; ++c) {
      if (row[c] == 0.0f) continue;
      out.indices.push_back(static_cast<std::uint32_t>(c));
      out.values.push_back(row[c]);
    }
    out.row_offsets.push_back(out.indices.size());
  }
  return out;
}

}  // namespace invar::learn
