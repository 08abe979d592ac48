#pragma once
// Word vectors for the word-vector metrics: fastText's .vec text format (first line "N D", then
// "word x1 … xD", read as word2vec_format readers such as gensim's do: float32 values, the first of
// duplicate words kept) or its .bin model read with Debian's libfasttext (the vectors of the
// model's dictionary words, as fastText's print-word-vectors gives them). Words missing from the
// file are out of vocabulary for both formats (no subword vectors), so a .bin and the .vec saved
// from it score alike.
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace invar::metrics {

class WordVectors {
 public:
  // .bin (fastText model) by extension, anything else as .vec text.
  static WordVectors load(const std::string& path);
  static WordVectors read_vec(const std::string& path);
  static WordVectors read_fasttext_bin(const std::string& path);
  // An empty table of `dimension`-long vectors to add() to; `path` names it in settings.
  WordVectors(std::string path, std::size_t dimension) : path_(std::move(path)), dimension_(dimension) {}

  std::size_t dimension() const { return dimension_; }
  std::size_t size() const { return words_.size(); }
  const std::string& path() const { return path_; }
  // The vector of a word, or nullptr when it is out of vocabulary.
  const float* find(std::string_view word) const;

  void add(std::string word, const float* values);  // ignored if the word is there already

 private:
  std::string path_;
  std::size_t dimension_ = 0;
  std::unordered_map<std::string, std::size_t> words_;
  std::vector<float> values_;
};

// The metrics' tokens: Python's text.lower().split().
std::vector<std::string> word_vector_tokens(std::string_view text);

}  // namespace invar::metrics
