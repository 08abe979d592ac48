#pragma once
// Character n-gram TF-IDF features, exactly as scikit-learn 1.2's TfidfVectorizer computes them
// (the LIP paper's property classifier uses analyzer="char", ngram_range=(2, 6), sublinear_tf=True,
// min_df=0.001, max_df=0.6):
//   - preprocessing: Python str.lower() (when `lowercase`);
//   - analyzer "char": every run of two or more whitespace characters (Python's `\s\s+`) becomes one
//     space (a lone tab stays a tab), then every n-gram of the whole string for n in the range;
//   - analyzer "char_wb": split on whitespace, pad each word with one space on both sides and take the
//     n-grams inside each padded word; a padded word shorter than n yields itself once, then no longer
//     n-grams;
//   - n-grams are sequences of code points; the vocabulary is sorted by code point;
//   - document frequencies are pruned to min_df <= df <= max_df (an integer is a count, a fraction
//     is a proportion of the documents, compared as df <= max_df * n like sklearn);
//   - tf = raw count, or 1 + ln(count) with sublinear_tf; idf = ln((1 + n) / (1 + df)) + 1 (smooth
//     idf); each row tf * idf is divided by its L2 norm. Unknown n-grams are ignored by transform().
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "eval/learn/sparse.hpp"

namespace invar::learn {

enum class NgramAnalyzer { Char, CharWb };

// min_df / max_df: a document count (an integer >= 1 as sklearn requires) or a proportion in [0, 1].
struct DocumentFrequencyBound {
  double value = 1;
  bool proportion = false;
  // "2" is a count, "0.6" / "1.0" / "6e-1" a proportion (as Python's int and float differ).
  static DocumentFrequencyBound parse(const std::string& text);
  double limit(std::size_t documents) const { return proportion ? value * static_cast<double>(documents) : value; }
  std::string str() const;
};

struct TfidfOptions {
  NgramAnalyzer analyzer = NgramAnalyzer::Char;
  int ngram_min = 1;
  int ngram_max = 1;
  bool lowercase = true;
  bool sublinear_tf = false;
  DocumentFrequencyBound min_df{1, false};
  DocumentFrequencyBound max_df{1.0, true};

  void validate() const;
};

class TfidfVectorizer {
 public:
  explicit TfidfVectorizer(TfidfOptions options);

  void fit(const std::vector<std::string>& documents);
  SparseMatrix transform(const std::vector<std::string>& documents) const;

  // The n-grams of one document, in sklearn's build_analyzer() order (repeats included).
  std::vector<std::string> analyze(const std::string& document) const;

  const TfidfOptions& options() const { return options_; }
  const std::vector<std::string>& vocabulary() const { return vocabulary_; }
  const std::vector<double>& idf() const { return idf_; }
  const std::vector<std::size_t>& document_frequency() const { return document_frequency_; }
  // N-grams seen in fit() but removed by min_df / max_df (sklearn's stop_words_).
  std::size_t pruned_terms() const { return pruned_terms_; }
  std::optional<std::size_t> index(const std::string& ngram) const;

 private:
  std::vector<std::pair<std::uint32_t, double>> row(const std::string& document) const;

  TfidfOptions options_;
  std::vector<std::string> vocabulary_;
  std::unordered_map<std::string, std::uint32_t> index_;
  std::vector<double> idf_;
  std::vector<std::size_t> document_frequency_;
  std::size_t pruned_terms_ = 0;
};

}  // namespace invar::learn
