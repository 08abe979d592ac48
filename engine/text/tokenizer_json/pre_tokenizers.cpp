#include "engine/text/tokenizer_json/pre_tokenizers.hpp"

#include <algorithm>
#include <functional>
#include <utility>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "engine/text/char_classes.hpp"
#include "engine/text/regex.hpp"
#include "engine/text/tokenizer_json/pattern.hpp"

namespace invar::tokenizer_json {
namespace {

using Ranges = std::vector<std::pair<std::size_t, std::size_t>>;

// `tokenizers`' SplitDelimiterBehavior.
enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

Behavior read_behavior(const Node& node) {
  const auto name = node.string("behavior");
  if (name == "Removed") return Behavior::Removed;
  if (name == "Isolated") return Behavior::Isolated;
  if (name == "MergedWithPrevious") return Behavior::MergedWithPrevious;
  if (name == "MergedWithNext") return Behavior::MergedWithNext;
  if (name == "Contiguous") return Behavior::Contiguous;
  node.unsupported("behavior", "Removed, Isolated, MergedWithPrevious, MergedWithNext and Contiguous are");
}

// NormalizedString::split: the text cut into delimiters (`matches`) and the stretches between
// them, combined as the behaviour says; empty pieces are dropped.
void split_by(std::string_view text, const Ranges& matches, Behavior behavior, bool invert,
              std::vector<std::string>& out) {
  struct Part {
    std::size_t start, end;
    bool match;
  };
  std::vector<Part> parts;
  std::size_t last = 0;
  for (auto [start, end] : matches) {
    if (start > last) parts.push_back({last, start, invert});
    parts.push_back({start, end, !invert});
    last = end;
  }
  if (last < text.size()) parts.push_back({last, text.size(), invert});

  std::vector<Part> kept;
  kept.reserve(parts.size());
  bool previous_match = false;
  switch (behavior) {
    case Behavior::Removed:
      for (const auto& part : parts)
        if (!part.match) kept.push_back(part);
      break;
    case Behavior::Isolated:
      kept = parts;
      break;
    case Behavior::MergedWithPrevious:
      for (const auto& part : parts) {
        if (part.match && !previous_match && !kept.empty())
          kept.back().end = part.end;
        else
          kept.push_back(part);
        previous_match = part.match;
      }
      break;
    case Behavior::MergedWithNext:
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (it->match && !previous_match && !kept.empty())
          kept.back().start = it->start;
        else
          kept.push_back(*it);
        previous_match = it->match;
      }
      std::reverse(kept.begin(), kept.end());
      break;
    case Behavior::Contiguous:
      for (const auto& part : parts) {
        if (!kept.empty() && part.match == previous_match)
          kept.back().end = part.end;
        else
          kept.push_back(part);
        previous_match = part.match;
      }
      break;
  }
  for (const auto& part : kept)
    if (part.end > part.start) out.emplace_back(text.substr(part.start, part.end - part.start));
}

// Each character for which `is_delimiter` holds is a match of its own.
Ranges char_matches(std::string_view text, const std::function<bool(char32_t)>& is_delimiter) {
  Ranges out;
  std::size_t pos = 0;
  for (char32_t c : decode_utf8(text)) {
    std::string bytes;
    append_utf8(bytes, c);
    if (is_delimiter(c)) out.emplace_back(pos, pos + bytes.size());
    pos += bytes.size();
  }
  return out;
}

bool is_bert_punctuation(char32_t c) { return is_punctuation(c); }

class BertPre final : public PreTokenizer {
 public:
  void split(std::string_view piece, bool, std::vector<std::string>& out) const override {
    std::vector<std::string> words;
    split_by(piece, char_matches(piece, is_unicode_whitespace), Behavior::Removed, false, words);
    for (const auto& word : words) split_by(word, char_matches(word, is_bert_punctuation), Behavior::Isolated, false, out);
  }
};

class WhitespaceSplit final : public PreTokenizer {
 public:
  void split(std::string_view piece, bool, std::vector<std::string>& out) const override {
    split_by(piece, char_matches(piece, is_unicode_whitespace), Behavior::Removed, false, out);
  }
};

// Whitespace: the regex \w+|[^\w\s]+ (Rust's regex crate: Unicode \w and \s).
class Whitespace final : public PreTokenizer {
 public:
  void split(std::string_view piece, bool, std::vector<std::string>& out) const override {
    for (auto word : regex_.find_all(piece)) out.emplace_back(word);
  }

 private:
  Regex regex_{R"(\w+|[^\w\s]+)"};
};

class Punctuation final : public PreTokenizer {
 public:
  explicit Punctuation(const Node& node)
      : behavior_(node.has("behavior") ? read_behavior(node) : Behavior::Isolated) {}
  void split(std::string_view piece, bool, std::vector<std::string>& out) const override {
    split_by(piece, char_matches(piece, is_bert_punctuation), behavior_, false, out);
  }

 private:
  Behavior behavior_;
};

class Split final : public PreTokenizer {
 public:
  explicit Split(const Node& node)
      : pattern_(node["pattern"]), behavior_(read_behavior(node)), invert_(node.boolean("invert", false)) {}
  void split(std::string_view piece, bool, std::vector<std::string>& out) const override {
    split_by(piece, pattern_.matches(piece), behavior_, invert_, out);
  }

 private:
  Pattern pattern_;
  Behavior behavior_;
  bool invert_;
};

// Metaspace: spaces become the replacement character, which is prepended (prepend_scheme
// "always", or "first" on the text's first piece; older files: add_prefix_space) and, with split,
// starts each word.
class Metaspace final : public PreTokenizer {
 public:
  explicit Metaspace(const Node& node) : replacement_(node.string("replacement")), split_(node.boolean("split", true)) {
    if (decode_utf8(replacement_).size() != 1) node.fail_here("replacement must be one character");
    if (node.has("prepend_scheme")) {
      const auto scheme = node.string("prepend_scheme");
      if (scheme == "always") always_ = true;
      else if (scheme == "first") first_ = true;
      else if (scheme != "never") node.unsupported("prepend_scheme", "always, first and never are");
    } else {
      always_ = node.boolean("add_prefix_space", true);
    }
  }

  void split(std::string_view piece, bool at_start, std::vector<std::string>& out) const override {
    std::string text(piece);
    python_replace(text, " ", replacement_);
    if ((always_ || (first_ && at_start)) && !text.starts_with(replacement_)) text = replacement_ + text;
    if (!split_) {
      out.push_back(std::move(text));
      return;
    }
    Ranges matches;
    for (auto at = text.find(replacement_); at != std::string::npos; at = text.find(replacement_, at + replacement_.size()))
      matches.emplace_back(at, at + replacement_.size());
    split_by(text, matches, Behavior::MergedWithNext, false, out);
  }

 private:
  std::string replacement_;
  bool split_;
  bool always_ = false, first_ = false;
};

// ByteLevel: optionally a space prepended, GPT-2's regex split, then every byte written as the
// character bytes_to_unicode gives it.
class ByteLevel final : public PreTokenizer {
 public:
  explicit ByteLevel(const Node& node)
      : add_prefix_space_(node.boolean("add_prefix_space", true)), use_regex_(node.boolean("use_regex", true)) {}

  void split(std::string_view piece, bool, std::vector<std::string>& out) const override {
    std::string text(piece);
    if (add_prefix_space_ && !text.starts_with(' ')) text = " " + text;
    std::vector<std::string_view> words;
    if (use_regex_)
      words = regex_.find_all(text);
    else
      words = {text};
    const auto& chars = byte_level_chars();
    for (auto word : words) {
      std::string mapped;
      for (char byte : word) mapped += chars[static_cast<unsigned char>(byte)];
      out.push_back(std::move(mapped));
    }
  }

 private:
  bool add_prefix_space_, use_regex_;
  Regex regex_{R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)"};
};

class Sequence final : public PreTokenizer {
 public:
  explicit Sequence(const Node& node) {
    for (const auto& element : node["pretokenizers"].elements())
      if (auto step = make_pre_tokenizer(element)) steps_.push_back(std::move(step));
  }
  void split(std::string_view piece, bool at_start, std::vector<std::string>& out) const override {
    std::vector<std::string> pieces{std::string(piece)};
    for (const auto& step : steps_) {
      std::vector<std::string> next;
      for (std::size_t i = 0; i < pieces.size(); ++i) step->split(pieces[i], at_start && i == 0, next);
      pieces = std::move(next);
    }
    out.insert(out.end(), std::make_move_iterator(pieces.begin()), std::make_move_iterator(pieces.end()));
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

}  // namespace

const std::vector<std::string>& byte_level_chars() {
  static const std::vector<std::string> table = [] {
    std::vector<std::string> out(256);
    int extra = 0;
    for (int byte = 0; byte < 256; ++byte) {
      const bool printable = (byte >= '!' && byte <= '~') || (byte >= 0xA1 && byte <= 0xAC) || (byte >= 0xAE && byte <= 0xFF);
      append_utf8(out[static_cast<std::size_t>(byte)], static_cast<char32_t>(printable ? byte : 256 + extra++));
    }
    return out;
  }();
  return table;
}

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const Node& node) {
  if (node.is_null()) return nullptr;
  const auto type = node.type();
  if (type == "BertPreTokenizer") return std::make_unique<BertPre>();
  if (type == "Whitespace") return std::make_unique<Whitespace>();
  if (type == "WhitespaceSplit") return std::make_unique<WhitespaceSplit>();
  if (type == "Punctuation") return std::make_unique<Punctuation>(node);
  if (type == "Split") return std::make_unique<Split>(node);
  if (type == "Metaspace") return std::make_unique<Metaspace>(node);
  if (type == "ByteLevel") return std::make_unique<ByteLevel>(node);
  if (type == "Sequence") return std::make_unique<Sequence>(node);
  node.unsupported_type();
}

}  // namespace invar::tokenizer_json
