#include "eval/metrics/corpus/common.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "core/io.hpp"

namespace invar::metrics {

CommutativeScore commutative_score(std::string_view a, std::string_view b, const CorpusMetric& metric) {
  CommutativeScore out;
  out.forward = metric.score_row(metric.segment_row(a, {std::string(b)}));
  out.backward = metric.score_row(metric.segment_row(b, {std::string(a)}));
  out.mean = (out.forward + out.backward) / 2;
  return out;
}

int reference_count(const std::vector<std::vector<std::string>>& refs) {
  if (refs.empty()) return 0;
  const std::size_t first = refs.front().size();
  for (const auto& r : refs)
    if (r.size() != first) return -1;
  return static_cast<int>(first);
}

std::vector<std::vector<std::string>> references_by_segment(
    const std::vector<std::vector<std::optional<std::string>>>& streams) {
  std::vector<std::vector<std::string>> out;
  if (streams.empty()) return out;
  out.resize(streams.front().size());
  for (std::size_t s = 0; s < streams.size(); ++s) {
    if (streams[s].size() != out.size())
      fail("reference stream {} has {} segments, stream 1 has {}", s + 1, streams[s].size(), out.size());
    for (std::size_t i = 0; i < out.size(); ++i)
      if (streams[s][i]) out[i].push_back(*streams[s][i]);
  }
  return out;
}

void check_corpus(const char* metric, std::size_t hyps, std::span<const std::vector<std::string>> refs) {
  if (hyps != refs.size())
    fail("{}: {} hypotheses but references for {} segments", metric, hyps, refs.size());
  for (std::size_t i = 0; i < refs.size(); ++i)
    if (refs[i].empty()) fail("{}: segment {} has no reference", metric, i + 1);
}

void check_no_empty_hypothesis(const std::vector<std::string>& hyps, const std::string& file) {
  for (std::size_t i = 0; i < hyps.size(); ++i)
    if (is_blank(hyps[i])) fail("{}:{}: empty hypothesis", file, i + 1);
}

void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t)>& body) {
  std::size_t workers = threads > 0 ? static_cast<std::size_t>(threads) : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min(workers, n);
  if (workers <= 1) {
    for (std::size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::exception_ptr error;
  std::mutex error_mutex;
  std::vector<std::thread> pool;
  pool.reserve(workers);
  for (std::size_t w = 0; w < workers; ++w) {
    pool.emplace_back([&, w] {
      const std::size_t begin = n * w / workers, end = n * (w + 1) / workers;
      try {
        for (std::size_t i = begin; i < end; ++i) body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    });
  }
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

std::vector<std::vector<double>> segment_rows(const CorpusMetric& metric, std::span<const std::string> hyps,
                                              std::span<const std::vector<std::string>> refs, int threads) {
  return score_segments<std::vector<double>>("metric", hyps, refs, threads,
                                             [&](auto& h, auto& r) { return metric.segment_row(h, r); });
}

std::vector<double> sum_rows(const std::vector<std::vector<double>>& rows) {
  if (rows.empty()) fail("no segments to score");
  std::vector<double> sum(rows[0].size(), 0.0);
  for (const auto& row : rows)
    for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += row[k];
  return sum;
}

}  // namespace invar::metrics
