#include "eval/metrics/vectors/word_vectors.hpp"

#include <fasttext/fasttext.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

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
// NaN, infinities and values beyond float's range (1e39) are refused: a distance over them never
// settles (WMD's network simplex loops on NaN costs).
float parse_value(std::string_view token, const std::string& where, std::size_t column) {
  double value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error == std::errc::result_out_of_range || (error == std::errc() && end == token.data() + token.size() &&
                                                  std::isfinite(value) && !std::isfinite(static_cast<float>(value))))
    fail("{}: value {} is outside float32's range: '{}'", where, column, token);
  if (error != std::errc() || end != token.data() + token.size())
    fail("{}: value {} is not a number: '{}'", where, column, token);
  if (!std::isfinite(value)) fail("{}: value {} is not finite: '{}'", where, column, token);
  return static_cast<float>(value);
}

// The sizes a fastText .bin file announces, checked against the file's length before libfasttext
// reads it: libfasttext allocates what the header says, and loops forever on a word without its
// terminating NUL at the end of the file. Layout (fastText 0.9's FastText::saveModel): magic and
// version, Args (12 int32 and a double), the dictionary (sizes, then NUL-terminated words with an
// int64 count and an int8 type each, then pruned-index pairs), the input matrix (a bool "quantized",
// int64 rows and columns, float32 values) and the output matrix likewise.
class BinChecker {
 public:
  explicit BinChecker(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) fail("{}: cannot open", path);
    std::error_code error;
    size_ = std::filesystem::file_size(path, error);
    if (error) fail("{}: cannot read its size: {}", path, error.message());
  }

  void check() {
    if (read<std::int32_t>("magic") != 793712314) fail("{}: not a fastText .bin model: wrong magic number", path_);
    const auto version = read<std::int32_t>("version");
    if (version < 11 || version > 12) fail("{}: not a fastText .bin model: version {} (11 or 12 are read)", path_, version);
    const auto dim = read<std::int32_t>("dim");
    for (int i = 0; i < 5; ++i) read<std::int32_t>("args");  // ws, epoch, minCount, neg, wordNgrams
    const auto loss = read<std::int32_t>("loss"), model = read<std::int32_t>("model");
    const auto bucket = read<std::int32_t>("bucket"), minn = read<std::int32_t>("minn");
    auto maxn = read<std::int32_t>("maxn");
    read<std::int32_t>("lrUpdateRate");
    read<double>("t");
    if (loss < 1 || loss > 4 || model < 1 || model > 3) fail("{}: not a fastText .bin model: loss {} model {}", path_, loss, model);
    if (version == 11 && model == 3) maxn = 0;  // as FastText::loadModel: old supervised models have no subwords
    // Every word adds its character n-grams of minn..maxn characters: fastText's default is 3..6.
    if (dim <= 0 || minn < 0 || maxn < 0 || maxn > kMaxN || (maxn > 0 && bucket <= 0) || bucket < 0)
      fail("{}: fastText settings out of range: dim {}, minn {}, maxn {}, bucket {}", path_, dim, minn, maxn, bucket);

    const auto entries = read<std::int32_t>("dictionary size"), words = read<std::int32_t>("word count");
    const auto labels = read<std::int32_t>("label count");
    read<std::int64_t>("token count");
    const auto pruned = read<std::int64_t>("pruned index size");
    // Each entry takes at least 10 bytes: a NUL, an int64 count and an int8 type.
    if (entries < 0 || words < 0 || labels < 0 || std::int64_t{words} + labels != entries ||
        static_cast<std::uint64_t>(entries) > left() / 10)
      fail("{}: the dictionary announces {} entries ({} words, {} labels), more than the file holds", path_, entries,
           words, labels);
    for (std::int32_t i = 0; i < entries; ++i) {
      std::size_t length = 0;
      for (int c = in_.get(); c != 0; c = in_.get()) {
        if (c == std::char_traits<char>::eof()) fail("{}: dictionary entry {} ends with the file", path_, i);
        if (++length > kMaxWordBytes) fail("{}: dictionary entry {} is longer than {} bytes", path_, i, kMaxWordBytes);
      }
      read<std::int64_t>("count");
      read<std::int8_t>("type");
    }
    if (pruned > 0 && static_cast<std::uint64_t>(pruned) > left() / 8)
      fail("{}: the pruned index announces {} pairs, more than the file holds", path_, pruned);
    for (std::int64_t i = 0; i < pruned; ++i) read<std::int64_t>("pruned index pair");

    if (read<std::uint8_t>("quantized") != 0)
      fail("{}: a quantized fastText model (.ftz) is not read: give the .bin it was quantized from, or its .vec", path_);
    // Rows are looked up by dictionary entry (a word repeated as a label resolves to the label's
    // entry) and by subword bucket after the words.
    const auto input_rows = matrix("input", dim);
    const std::int64_t rows_needed = std::max<std::int64_t>(entries, std::int64_t{words} + (maxn > 0 ? bucket : 0));
    if (input_rows < rows_needed)
      fail("{}: the input matrix has {} rows, fewer than the {} its dictionary ({} entries, {} words) and {} subword "
           "buckets need",
           path_, input_rows, rows_needed, entries, words, maxn > 0 ? bucket : 0);
    read<std::uint8_t>("quantized output");
    const auto output_rows = matrix("output", dim);
    if (output_rows != (model == 3 ? labels : words))
      fail("{}: the output matrix has {} rows, expected {}", path_, output_rows, model == 3 ? labels : words);
  }

 private:
  static constexpr std::int32_t kMaxN = 32;
  static constexpr std::size_t kMaxWordBytes = 4096;

  std::uint64_t left() {
    const auto at = static_cast<std::uint64_t>(in_.tellg());
    return at > size_ ? 0 : size_ - at;
  }

  template <typename T>
  T read(const char* field) {
    T value{};
    if (!in_.read(reinterpret_cast<char*>(&value), sizeof value)) fail("{}: the file ends inside its {}", path_, field);
    return value;
  }

  // Rows of a dense float32 matrix of `columns` columns, whose values are skipped.
  std::int64_t matrix(const char* name, std::int32_t columns) {
    const auto rows = read<std::int64_t>("matrix rows"), cols = read<std::int64_t>("matrix columns");
    if (rows < 0 || cols != columns || static_cast<std::uint64_t>(rows) > left() / sizeof(float) / static_cast<std::uint64_t>(cols))
      fail("{}: the {} matrix announces {} x {} values (dimension {}), more than the file holds", path_, name, rows, cols,
           columns);
    in_.seekg(static_cast<std::streamoff>(rows * cols * static_cast<std::int64_t>(sizeof(float))), std::ios::cur);
    return rows;
  }

  std::string path_;
  std::ifstream in_;
  std::uint64_t size_ = 0;
};

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
  const std::size_t dimension = parse_size(header[1], reader.where(), "DIMENSION");
  // Sized by the header only once the file can hold it: every value takes two bytes at least.
  std::error_code error;
  const auto bytes = std::filesystem::file_size(path, error);
  if (!error && (dimension > bytes / 2 || count > bytes / 2 / dimension))
    fail("{}: the header announces {} words of {} values, more than the file's {} bytes can hold", reader.where(),
         count, dimension, bytes);
  WordVectors out(path, dimension);
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
  BinChecker(path).check();
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
    for (std::int64_t k = 0; k < vector.size(); ++k)
      if (!std::isfinite(vector[k]))
        fail("{}: the vector of word {} ('{}') holds a value that is not finite", path, id + 1, word);
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
