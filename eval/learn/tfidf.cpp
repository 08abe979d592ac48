#include "eval/learn/tfidf.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "core/error.hpp"
#include "core/utf8.hpp"

namespace invar::learn {

DocumentFrequencyBound DocumentFrequencyBound::parse(const std::string& text) {
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(value))
    fail("document frequency bound '{}' is neither a count nor a proportion", text);
  bool proportion = text.find_first_of(".eE") != std::string::npos;
  if (proportion && (value < 0 || value > 1))
    fail("document frequency proportion {} is outside [0, 1]", text);
  if (!proportion && value < 1) fail("document frequency count {} must be at least 1", text);
  return {value, proportion};
}

std::string DocumentFrequencyBound::str() const {
  return proportion ? fmt::format("{}", value) : fmt::format("{}", static_cast<long long>(value));
}

void TfidfOptions::validate() const {
  if (ngram_min < 1) fail("n-gram range {}-{}: the lower bound must be at least 1", ngram_min, ngram_max);
  if (ngram_min > ngram_max)
    fail("n-gram range {}-{}: the lower bound is larger than the upper bound", ngram_min, ngram_max);
}

namespace {

// A lowercased, whitespace-normalised text kept both as UTF-8 bytes and as code-point offsets into
// them, so that an n-gram of code points [i, i + n) is the byte range [offset[i], offset[i + n]).
struct CodePointText {
  std::string bytes;
  std::vector<std::size_t> offsets{0};

  void push(char32_t c) {
    append_utf8(bytes, c);
    offsets.push_back(bytes.size());
  }
  std::size_t size() const { return offsets.size() - 1; }
  std::string_view slice(std::size_t begin, std::size_t n) const {
    return std::string_view(bytes).substr(offsets[begin], offsets[begin + n] - offsets[begin]);
  }
};

// sklearn's `re.compile(r"\s\s+").sub(" ", text)`: only runs of two or more whitespace characters
// are replaced, so a single tab or newline is kept as it is.
std::u32string collapse_whitespace_runs(const std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_python_space(text[i])) {
      out.push_back(text[i++]);
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && is_python_space(text[j])) ++j;
    if (j - i >= 2) out.push_back(U' ');
    else out.push_back(text[i]);
    i = j;
  }
  return out;
}

template <typename Emit>
void for_each_ngram(const TfidfOptions& options, const std::string& document, Emit&& emit) {
  std::u32string text = decode_utf8(document);
  if (options.lowercase) text = python_lower(text);
  text = collapse_whitespace_runs(text);
  const auto min_n = static_cast<std::size_t>(options.ngram_min);
  const auto max_n = static_cast<std::size_t>(options.ngram_max);
  if (options.analyzer == NgramAnalyzer::Char) {
    CodePointText whole;
    for (char32_t c : text) whole.push(c);
    for (std::size_t n = min_n; n <= std::min(max_n, whole.size()); ++n)
      for (std::size_t i = 0; i + n <= whole.size(); ++i) emit(whole.slice(i, n));
    return;
  }
  std::size_t i = 0;
  while (i < text.size()) {
    if (is_python_space(text[i])) {
      ++i;
      continue;
    }
    CodePointText word;
    word.push(U' ');
    while (i < text.size() && !is_python_space(text[i])) word.push(text[i++]);
    word.push(U' ');
    for (std::size_t n = min_n; n <= max_n; ++n) {
      if (word.size() <= n) {  // the padded word itself, once, and nothing longer
        emit(word.slice(0, word.size()));
        break;
      }
      for (std::size_t offset = 0; offset + n <= word.size(); ++offset) emit(word.slice(offset, n));
    }
  }
}

}  // namespace

TfidfVectorizer::TfidfVectorizer(TfidfOptions options) : options_(options) { options_.validate(); }

std::vector<std::string> TfidfVectorizer::analyze(const std::string& document) const {
  std::vector<std::string> ngrams;
  for_each_ngram(options_, document, [&](std::string_view ngram) { ngrams.emplace_back(ngram); });
  return ngrams;
}

void TfidfVectorizer::fit(const std::vector<std::string>& documents) {
  std::unordered_map<std::string, std::size_t> df;
  for (const auto& document : documents) {
    std::vector<std::string> ngrams = analyze(document);
    std::sort(ngrams.begin(), ngrams.end());
    ngrams.erase(std::unique(ngrams.begin(), ngrams.end()), ngrams.end());
    for (auto& ngram : ngrams) ++df[std::move(ngram)];
  }
  if (df.empty()) fail("TF-IDF: empty vocabulary; the training texts yield no {}-{} character n-grams",
                       options_.ngram_min, options_.ngram_max);
  const std::size_t n = documents.size();
  const double high = options_.max_df.limit(n), low = options_.min_df.limit(n);
  if (high < low) fail("TF-IDF: max_df {} corresponds to fewer documents than min_df {}", options_.max_df.str(),
                       options_.min_df.str());
  std::vector<std::pair<std::string, std::size_t>> kept;
  for (auto& [ngram, count] : df) {
    auto frequency = static_cast<double>(count);
    if (frequency <= high && frequency >= low) kept.emplace_back(ngram, count);
  }
  if (kept.empty()) fail("TF-IDF: after pruning, no n-grams remain; try a lower min_df or a higher max_df");
  std::sort(kept.begin(), kept.end());  // byte order of UTF-8 is code-point order
  pruned_terms_ = df.size() - kept.size();
  vocabulary_.clear();
  index_.clear();
  idf_.clear();
  document_frequency_.clear();
  for (auto& [ngram, count] : kept) {
    index_.emplace(ngram, static_cast<std::uint32_t>(vocabulary_.size()));
    idf_.push_back(std::log(static_cast<double>(n + 1) / static_cast<double>(count + 1)) + 1.0);
    document_frequency_.push_back(count);
    vocabulary_.push_back(std::move(ngram));
  }
}

std::optional<std::size_t> TfidfVectorizer::index(const std::string& ngram) const {
  auto it = index_.find(ngram);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::pair<std::uint32_t, double>> TfidfVectorizer::row(const std::string& document) const {
  std::unordered_map<std::uint32_t, double> counts;
  for_each_ngram(options_, document, [&](std::string_view ngram) {
    auto it = index_.find(std::string(ngram));
    if (it != index_.end()) counts[it->second] += 1.0;
  });
  std::vector<std::pair<std::uint32_t, double>> entries(counts.begin(), counts.end());
  std::sort(entries.begin(), entries.end());
  double squares = 0;
  for (auto& [column, value] : entries) {
    double tf = options_.sublinear_tf ? 1.0 + std::log(value) : value;
    value = tf * idf_[column];
    squares += value * value;
  }
  if (squares > 0) {
    double norm = std::sqrt(squares);
    for (auto& entry : entries) entry.second /= norm;
  }
  return entries;
}

SparseMatrix TfidfVectorizer::transform(const std::vector<std::string>& documents) const {
  if (vocabulary_.empty()) fail("TF-IDF: transform() before fit()");
  SparseMatrix matrix;
  matrix.cols = vocabulary_.size();
  for (const auto& document : documents) matrix.add_row(row(document));
  return matrix;
}

}  // namespace invar::learn
