#include "engine/text/tokenizer_json/models.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "engine/text/tokenizer_files.hpp"

namespace invar::tokenizer_json {
namespace {

// Byte offsets of each character of `word`, then its size.
std::vector<std::size_t> char_offsets(std::string_view word) {
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < word.size(); ++i)
    if ((static_cast<unsigned char>(word[i]) & 0xC0) != 0x80) offsets.push_back(i);
  offsets.push_back(word.size());
  return offsets;
}

// "<0xAB>" for each byte of `text`, when the vocabulary has every one of them.
std::optional<std::vector<std::string>> byte_tokens(std::string_view text, const Vocab& vocab) {
  std::vector<std::string> out;
  for (char byte : text) {
    out.push_back(fmt::format("<0x{:02X}>", static_cast<unsigned char>(byte)));
    if (!vocab.find(out.back())) return std::nullopt;
  }
  return out;
}

// {"token": id, ...}. (A Node per entry only where one is wrong: building each entry's path
// would double the load time of a 30,000-token vocabulary.)
void read_dict_vocab(const Node& node, Vocab& vocab, std::int64_t max_ids) {
  if (!node.json().is_object()) node.fail_here("must be a JSON object");
  for (const auto& [token, id] : node.json().items()) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() >= max_ids ||
        (id.is_number_unsigned() && id.get<std::uint64_t>() >= static_cast<std::uint64_t>(max_ids)))
      node[token].integer(0, max_ids - 1);  // fails naming the entry
    vocab.add(token, id.get<std::int32_t>());
  }
}

class WordPiece final : public Model {
 public:
  WordPiece(const Node& node, std::int64_t max_ids)
      : prefix_(node.optional_string("continuing_subword_prefix").value_or("##")),
        max_chars_(static_cast<std::size_t>(
            node.has("max_input_chars_per_word") ? node["max_input_chars_per_word"].integer(0, 1 << 30) : 100)) {
    read_dict_vocab(node["vocab"], vocab_, max_ids);
    unk_ = node.string("unk_token");
  }

  // Greedy longest match; a word with an unmatchable rest, or too long, is the unknown token.
  void tokenize(std::string_view word, std::vector<std::string>& out) const override {
    const auto offsets = char_offsets(word);
    const std::size_t n = offsets.size() - 1;
    if (n > max_chars_) {
      out.push_back(unk_);
      return;
    }
    const std::size_t first = out.size();
    std::string piece;
    for (std::size_t start = 0; start < n;) {
      std::size_t end = n;
      for (; end > start; --end) {
        piece.assign(start > 0 ? prefix_ : "");
        piece.append(word.substr(offsets[start], offsets[end] - offsets[start]));
        if (vocab_.find(piece)) break;
      }
      if (end == start) {
        out.resize(first);
        out.push_back(unk_);
        return;
      }
      out.push_back(piece);
      start = end;
    }
  }

 private:
  std::string prefix_;
  std::size_t max_chars_;
};

class Unigram final : public Model {
 public:
  Unigram(const Node& node, std::int64_t max_ids) : byte_fallback_(node.boolean("byte_fallback", false)) {
    const auto pieces = node["vocab"].elements();
    if (pieces.empty()) node.fail_here("vocab must not be empty");
    if (static_cast<std::int64_t>(pieces.size()) > max_ids)
      node.fail_here(fmt::format("vocab has {} pieces, more than the model's {} ids", pieces.size(), max_ids));
    for (std::size_t id = 0; id < pieces.size(); ++id) {
      const auto entry = pieces[id].elements();
      if (entry.size() != 2) pieces[id].fail_here("must be [piece, score]");
      const auto piece = entry[0].string();
      if (piece.empty()) entry[0].fail_here("must not be empty");
      vocab_.add(piece, static_cast<std::int32_t>(id));
      scores_.push_back(entry[1].number());
      pieces_.push_back(piece);
    }
    // Every prefix of every piece, so that the search below stops extending a candidate as soon
    // as no piece starts with it (what SentencePiece's trie does). The keys view pieces_.
    for (std::size_t id = 0; id < pieces_.size(); ++id) {
      const std::string_view piece = pieces_[id];
      const auto offsets = char_offsets(piece);
      for (std::size_t k = 1; k < offsets.size(); ++k) prefixes_.emplace(piece.substr(0, offsets[k]), -1);
    }
    for (std::size_t id = 0; id < pieces_.size(); ++id) {
      auto& slot = prefixes_[pieces_[id]];
      if (slot < 0) slot = static_cast<std::int32_t>(id);  // the first of repeated pieces, as vocab_
    }
    min_score_ = *std::min_element(scores_.begin(), scores_.end());
    if (!node.has("unk_id")) node.unsupported("unk_id", "a Unigram model without an unknown token is");
    unk_id_ = static_cast<std::int32_t>(node["unk_id"].integer(0, static_cast<std::int64_t>(pieces.size()) - 1));
    unk_ = *vocab_.token(unk_id_);
  }

  void tokenize(std::string_view word, std::vector<std::string>& out) const override {
    for (auto& piece : viterbi(word)) {
      if (vocab_.find(piece)) {
        out.push_back(std::move(piece));
      } else if (auto bytes = byte_fallback_ ? byte_tokens(piece, vocab_) : std::nullopt) {
        out.insert(out.end(), bytes->begin(), bytes->end());
      } else {
        out.push_back(unk_);
      }
    }
  }

 private:
  // `tokenizers`' Unigram::encode_optimized: the best-scoring segmentation, a character no piece
  // starts with scored as the unknown piece (min score - 10); adjacent unknown pieces fused.
  std::vector<std::string> viterbi(std::string_view text) const {
    struct Best {
      double score = 0;
      std::size_t start = 0;
      std::int32_t id = -1;  // -1: not reached yet
    };
    const double unk_score = min_score_ - 10.0;
    std::vector<Best> best(text.size() + 1);
    best[0].id = 0;
    const auto offsets = char_offsets(text);
    for (std::size_t c = 0; c + 1 < offsets.size(); ++c) {
      const std::size_t start = offsets[c];
      if (best[start].id < 0) continue;
      const double here = best[start].score;
      const std::size_t char_end = offsets[c + 1];
      bool single = false;
      for (std::size_t k = c + 1; k < offsets.size(); ++k) {
        const std::size_t end = offsets[k];
        const auto found = prefixes_.find(text.substr(start, end - start));
        if (found == prefixes_.end()) break;
        const std::int32_t id = found->second;
        if (id < 0) continue;
        const double candidate = here + scores_[static_cast<std::size_t>(id)];
        if (best[end].id < 0 || candidate > best[end].score) best[end] = {candidate, start, id};
        if (end == char_end) single = true;
      }
      if (!single) {
        const double candidate = here + unk_score;
        if (best[char_end].id < 0 || candidate > best[char_end].score) best[char_end] = {candidate, start, unk_id_};
      }
    }
    std::vector<std::string> pieces;
    bool previous_unknown = false;
    for (std::size_t end = text.size(); end > 0;) {
      const auto& node = best[end];
      const bool unknown = node.id == unk_id_;
      std::string piece(text.substr(node.start, end - node.start));
      if (unknown && previous_unknown)
        pieces.back().insert(0, piece);
      else
        pieces.push_back(std::move(piece));
      previous_unknown = unknown;
      end = node.start;
    }
    std::reverse(pieces.begin(), pieces.end());
    return pieces;
  }

  std::vector<double> scores_;
  double min_score_ = 0;
  std::int32_t unk_id_ = 0;
  std::vector<std::string> pieces_;
  std::unordered_map<std::string_view, std::int32_t> prefixes_;  // -1: a prefix only
  bool byte_fallback_;
};

class Bpe final : public Model {
 public:
  Bpe(const Node& node, std::int64_t max_ids)
      : suffix_(node.optional_string("end_of_word_suffix").value_or("")),
        byte_fallback_(node.boolean("byte_fallback", false)),
        fuse_unk_(node.boolean("fuse_unk", false)),
        ignore_merges_(node.boolean("ignore_merges", false)) {
    if (node.has("dropout") && node["dropout"].number() > 0) node.unsupported("dropout", "BPE dropout (random merges) is");
    if (!node.optional_string("continuing_subword_prefix").value_or("").empty())
      node.unsupported("continuing_subword_prefix", "a BPE continuing-subword prefix is");
    read_dict_vocab(node["vocab"], vocab_, max_ids);
    unk_ = node.optional_string("unk_token").value_or("");
    std::int32_t rank = 0;
    for (const auto& merge : node["merges"].elements()) {
      std::string key;
      if (merge.json().is_string()) {
        key = merge.string();
        const auto space = key.find(' ');
        if (space == std::string::npos || space == 0 || space + 1 == key.size() || key.find(' ', space + 1) != std::string::npos)
          merge.fail_here("must be two tokens separated by one space");
      } else {
        const auto pair = merge.elements();
        if (pair.size() != 2) merge.fail_here("must be a pair of tokens");
        key = pair[0].string() + " " + pair[1].string();
      }
      ranks_.emplace(std::move(key), rank++);  // the first of repeated merges keeps its rank
    }
  }

  void tokenize(std::string_view word, std::vector<std::string>& out) const override {
    if (ignore_merges_ && vocab_.find(word)) {
      out.emplace_back(word);
      return;
    }
    const auto offsets = char_offsets(word);
    std::vector<std::string> symbols;
    bool previous_unknown = false;
    for (std::size_t c = 0; c + 1 < offsets.size(); ++c) {
      std::string symbol(word.substr(offsets[c], offsets[c + 1] - offsets[c]));
      if (c + 2 == offsets.size()) symbol += suffix_;
      if (vocab_.find(symbol)) {
        symbols.push_back(std::move(symbol));
        previous_unknown = false;
        continue;
      }
      auto bytes = byte_fallback_ ? byte_tokens(word.substr(offsets[c], offsets[c + 1] - offsets[c]), vocab_) : std::nullopt;
      if (bytes) {
        symbols.insert(symbols.end(), bytes->begin(), bytes->end());
        previous_unknown = false;
      } else if (!unk_.empty()) {
        if (!(fuse_unk_ && previous_unknown)) symbols.push_back(unk_);
        previous_unknown = true;
      }
    }
    auto merged = apply_bpe_merges(std::move(symbols), ranks_);
    out.insert(out.end(), std::make_move_iterator(merged.begin()), std::make_move_iterator(merged.end()));
  }

 private:
  std::string suffix_;
  bool byte_fallback_, fuse_unk_, ignore_merges_;
  BpeRanks ranks_;
};

}  // namespace

std::unique_ptr<Model> make_model(const Node& node, std::int64_t max_ids) {
  if (node.is_null()) node.fail_here("is missing");
  // Older files name no type; the fields tell the model apart as `tokenizers` does.
  std::string type;
  if (node.has("type"))
    type = node.type();
  else if (node.has("merges"))
    type = "BPE";
  else if (node.has("continuing_subword_prefix"))
    type = "WordPiece";
  else if (node.has("unk_id"))
    type = "Unigram";
  if (type == "WordPiece") return std::make_unique<WordPiece>(node, max_ids);
  if (type == "Unigram") return std::make_unique<Unigram>(node, max_ids);
  if (type == "BPE") return std::make_unique<Bpe>(node, max_ids);
  if (type.empty()) node.fail_here("names no type");
  node.unsupported_type();
}

}  // namespace invar::tokenizer_json
