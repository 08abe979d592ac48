#include "eval/metrics/vectors/word_vectors.hpp"

#include <fasttext/fasttext.h>

#include <charconv>
#include <filesystem>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/utf8.hpp"

namespace invar::metrics {
namespace {

std::size_t parse_size(std::string_view token, const std::string& where, const char* field) {
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size() || value == 0)
    fail("{}: {} must be a positive whole number, got '{}'", where, field, token);
  return value;
}

// A value as numpy reads a decimal string into float32: to double first, then rounded to float.
float parse_value(std::string_view token, const std::string& where, std::size_t column) {
  double value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size())
    fail("{}: value {} is not a number: '{}'", where, column, token);
  return static_cast<float>(value);
}

// Fields separated by single spaces, as gensim splits them; trailing whitespace (fastText writes a
// space after the last value) does not count.
std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  line = python_rstrip(line);
  std::size_t start = 0;
  while (true) {
    const auto space = line.find(' ', start);
    out.push_back(line.substr(start, space == std::string_view::npos ? std::string_view::npos : space - start));
    if (space == std::string_view::npos) return out;
    start = space + 1;
  }
}

}  // namespace

WordVectors WordVectors::load(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) fail("{}: word vectors file not found", path);
  return std::filesystem::path(path).extension() == ".bin" ? read_fasttext_bin(path) : read_vec(path);
}

WordVectors WordVectors::read_vec(const std::string& path) {
  LineReader reader(path);
  std::string line;
  if (!reader.next(line)) fail("{}: empty file; a .vec file starts with a line 'WORDS DIMENSION'", path);
  const auto header = python_split(line);
  if (header.size() != 2) fail("{}: the first line must be 'WORDS DIMENSION', got '{}'", reader.where(), line);
  const std::size_t count = parse_size(header[0], reader.where(), "WORDS");
  WordVectors out(path, parse_size(header[1], reader.where(), "DIMENSION"));
  std::vector<float> values(out.dimension_);
  std::size_t read = 0;
  for (; reader.next(line); ++read) {
    const auto parts = fields(line);
    if (parts.size() != out.dimension_ + 1)
      fail("{}: expected a word and {} values (the header's dimension), found {} values", reader.where(),
           out.dimension_, parts.size() - 1);
    if (parts[0].empty()) fail("{}: the word is empty", reader.where());
    for (std::size_t k = 0; k < out.dimension_; ++k) values[k] = parse_value(parts[k + 1], reader.where(), k + 1);
    out.add(std::string(parts[0]), values.data());
  }
  if (read != count) fail("{}: the header announces {} words but {} lines follow", path, count, read);
  return out;
}

WordVectors WordVectors::read_fasttext_bin(const std::string& path) {
  fasttext::FastText model;
  try {
    model.loadModel(path);
  } catch (const std::exception& e) {
    fail("{}: not a fastText .bin model: {}", path, e.what());
  }
  const auto dictionary = model.getDictionary();
  WordVectors out(path, static_cast<std::size_t>(model.getDimension()));
  fasttext::Vector vector(model.getDimension());
  for (std::int32_t id = 0; id < dictionary->nwords(); ++id) {
    const auto word = dictionary->getWord(id);
    model.getWordVector(vector, word);
    out.add(word, vector.data());
  }
  return out;
}

void WordVectors::add(std::string word, const float* values) {
  if (!words_.emplace(std::move(word), words_.size()).second) return;
  values_.insert(values_.end(), values, values + dimension_);
}

const float* WordVectors::find(std::string_view word) const {
  const auto it = words_.find(std::string(word));
  return it == words_.end() ? nullptr : values_.data() + it->second * dimension_;
}

std::vector<std::string> word_vector_tokens(std::string_view text) {
  const auto lowered = python_lower(text);
  std::vector<std::string> out;
  for (auto token : python_split(lowered)) out.emplace_back(token);
  return out;
}

}  // namespace invar::metrics
