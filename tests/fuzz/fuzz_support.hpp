#pragma once
// What the fuzz targets share: a scratch folder per process, files written from fuzz input, and
// copies of fixture model folders with one file replaced.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/text/tokenizer.hpp"

namespace invar::fuzz {

namespace fs = std::filesystem;

// This process's scratch folder, removed at exit.
inline const std::string& scratch() {
  struct Folder {
    std::string path;
    Folder() {
      std::string pattern = (fs::temp_directory_path() / "invar-fuzz-XXXXXX").string();
      if (!mkdtemp(pattern.data())) std::abort();
      path = pattern;
    }
    ~Folder() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  };
  static const Folder folder;
  return folder.path;
}

inline void write_file(const std::string& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) std::abort();
}

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A copy of the fixture folder `folder` ("core/marian"), made once per process without its goldens
// and pytorch_model.bin, in which one file at a time is replaced: replace() first restores what the
// previous call replaced.
class FixtureCopy {
 public:
  static FixtureCopy& of(const std::string& folder) {
    static std::map<std::string, FixtureCopy> copies;
    auto it = copies.find(folder);
    if (it == copies.end()) it = copies.emplace(folder, FixtureCopy(folder)).first;
    return it->second;
  }

  const std::string& path() const { return path_; }

  // Replaces (or adds) `file` with `content`.
  void replace(const std::string& file, std::string_view content) {
    restore();
    const fs::path target = fs::path(path_) / file;
    if (fs::exists(target)) {
      std::ifstream in(target, std::ios::binary);
      original_ = std::string(std::istreambuf_iterator<char>(in), {});
    }
    replaced_ = file;
    write_file(target.string(), content);
  }

 private:
  explicit FixtureCopy(const std::string& folder) : path_(scratch() + "/" + std::to_string(count()++)) {
    const fs::path from = fs::path(INVAR_FIXTURES_DIR) / folder;
    fs::create_directories(path_);
    for (const auto& entry : fs::directory_iterator(from)) {
      const std::string name = entry.path().filename().string();
      if (name == "golden.json" || name == "pytorch_model.bin") continue;
      fs::copy(entry.path(), fs::path(path_) / name, fs::copy_options::recursive);
    }
  }
  static int& count() {
    static int n = 0;
    return n;
  }
  void restore() {
    if (replaced_.empty()) return;
    const fs::path target = fs::path(path_) / replaced_;
    if (original_) write_file(target.string(), *original_);
    else fs::remove(target);
    replaced_.clear();
    original_.reset();
  }

  std::string path_;
  std::string replaced_;
  std::optional<std::string> original_;
};

// fuzz_vocabulary's files, each in a fixture folder that uses it; a seed is the index here as one
// byte, then the fixture's file (invar_fuzz_seeds writes them).
struct VocabularyFile {
  const char* folder;
  const char* file;
};
inline constexpr std::array<VocabularyFile, 10> kVocabularyFiles{{
    {"core/bert-wordpiece", "vocab.txt"},
    {"core/mpnet", "vocab.txt"},
    {"core/xlmr-mlm", "sentencepiece.bpe.model"},
    {"core/marian", "source.spm"},
    {"core/marian", "vocab.json"},
    {"seq2seq/bart", "vocab.json"},
    {"seq2seq/bart", "merges.txt"},
    {"seq2seq/fsmt", "vocab-src.json"},
    {"seq2seq/fsmt", "merges.txt"},
    {"seq2seq/t5", "spiece.model"},
}};

// Everything a tokenizer does with text: pieces, ids of one text, a pair and a target, decoding
// back, and id lookups at the vocabulary's edges.
inline void exercise(const Tokenizer& tokenizer) {
  static const std::vector<std::string> texts = {
      "Hello, world! It's 3.5 km.", "  ünïcödé  ß 中文 ", "<s> </s> <unk> <mask> [CLS] x [SEP]", "a\tb\nc", ""};
  for (const auto& text : texts) {
    tokenizer.tokenize(text);
    const Encoding encoding = tokenizer.encode(text, 16);
    tokenizer.decode(encoding.ids, false, Side::Source);
    tokenizer.decode(tokenizer.encode_target(text).ids);
    tokenizer.encode_pair(text, texts[0], 24);
  }
  const auto size = static_cast<std::int32_t>(tokenizer.vocab_size());
  for (std::int32_t id : {0, size / 2, size - 1}) tokenizer.id_to_token(id);
}

}  // namespace invar::fuzz
