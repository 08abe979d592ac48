#include "engine/text/tokenizer_json/decoders.hpp"

#include <cctype>
#include <unordered_map>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "engine/text/tokenizer.hpp"
#include "engine/text/tokenizer_json/pattern.hpp"
#include "engine/text/tokenizer_json/pre_tokenizers.hpp"

namespace invar::tokenizer_json {
namespace {

// Invalid UTF-8 replaced by U+FFFD, as Rust's String::from_utf8_lossy does.
std::string lossy_utf8(std::string_view bytes) {
  if (is_valid_utf8(bytes)) return std::string(bytes);
  return encode_utf8(decode_utf8(bytes));
}

class WordPiece final : public Decoder {
 public:
  explicit WordPiece(const Node& node)
      : prefix_(node.optional_string("prefix").value_or("##")), cleanup_(node.boolean("cleanup", true)) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      auto& token = tokens[i];
      if (i > 0) {
        if (token.starts_with(prefix_))
          token.erase(0, prefix_.size());
        else
          token = " " + token;
      }
      if (cleanup_) {
        token = clean_up_tokenization(std::move(token));
        python_replace(token, " do not", " don't");  // `tokenizers`' cleanup() has this rule too
      }
    }
    return tokens;
  }

 private:
  std::string prefix_;
  bool cleanup_;
};

class Metaspace final : public Decoder {
 public:
  explicit Metaspace(const Node& node) : replacement_(node.string("replacement")) {
    if (node.has("prepend_scheme"))
      strip_first_ = node.string("prepend_scheme") != "never";
    else
      strip_first_ = node.boolean("add_prefix_space", true);
  }
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      python_replace(tokens[i], replacement_, " ");
      if (i == 0 && strip_first_ && tokens[i].starts_with(' ')) tokens[i].erase(0, 1);
    }
    return tokens;
  }

 private:
  std::string replacement_;
  bool strip_first_ = true;
};

class ByteLevel final : public Decoder {
 public:
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    static const auto inverse = [] {
      std::unordered_map<char32_t, char> map;
      const auto& chars = byte_level_chars();
      for (std::size_t byte = 0; byte < chars.size(); ++byte)
        map.emplace(decode_utf8(chars[byte])[0], static_cast<char>(byte));
      return map;
    }();
    std::string bytes;
    for (const auto& token : tokens)
      for (char32_t c : decode_utf8(token)) {
        auto it = inverse.find(c);
        if (it != inverse.end())
          bytes.push_back(it->second);
        else
          append_utf8(bytes, c);  // not a byte-level character: kept, as `tokenizers` does
      }
    return {lossy_utf8(bytes)};
  }
};

// Runs of <0xAB> tokens become the text their bytes spell.
class ByteFallback final : public Decoder {
 public:
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    std::vector<std::string> out;
    std::string bytes;
    std::size_t run = 0;
    auto flush = [&] {
      if (run == 0) return;
      if (is_valid_utf8(bytes))
        out.push_back(bytes);
      else
        for (std::size_t i = 0; i < run; ++i) out.emplace_back("\xEF\xBF\xBD");
      bytes.clear();
      run = 0;
    };
    for (auto& token : tokens) {
      if (token.size() == 6 && token.starts_with("<0x") && token.ends_with(">") && std::isxdigit(token[3]) &&
          std::isxdigit(token[4])) {
        bytes.push_back(static_cast<char>(std::stoi(token.substr(3, 2), nullptr, 16)));
        ++run;
      } else {
        flush();
        out.push_back(std::move(token));
      }
    }
    flush();
    return out;
  }
};

class Fuse final : public Decoder {
 public:
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    std::string joined;
    for (const auto& token : tokens) joined += token;
    return {joined};
  }
};

// Strip: up to `start` leading and `stop` trailing copies of `content` removed from each token.
class Strip final : public Decoder {
 public:
  explicit Strip(const Node& node)
      : content_(node.string("content")),
        start_(static_cast<std::size_t>(node["start"].integer(0, 1 << 20))),
        stop_(static_cast<std::size_t>(node["stop"].integer(0, 1 << 20))) {
    if (content_.empty()) node.fail_here("content must not be empty");
  }
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (auto& token : tokens) {
      for (std::size_t i = 0; i < start_ && token.starts_with(content_); ++i) token.erase(0, content_.size());
      for (std::size_t i = 0; i < stop_ && token.ends_with(content_); ++i) token.resize(token.size() - content_.size());
    }
    return tokens;
  }

 private:
  std::string content_;
  std::size_t start_, stop_;
};

class Replace final : public Decoder {
 public:
  explicit Replace(const Node& node) : pattern_(node["pattern"]), content_(node.string("content")) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (auto& token : tokens) token = pattern_.replace_all(token, content_);
    return tokens;
  }

 private:
  Pattern pattern_;
  std::string content_;
};

// BPEDecoder: the end-of-word suffix becomes a space (none after the last token).
class BpeDecoder final : public Decoder {
 public:
  explicit BpeDecoder(const Node& node) : suffix_(node.optional_string("suffix").value_or("</w>")) {}
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) python_replace(tokens[i], suffix_, i + 1 == tokens.size() ? "" : " ");
    return tokens;
  }

 private:
  std::string suffix_;
};

class Sequence final : public Decoder {
 public:
  explicit Sequence(const Node& node) {
    for (const auto& element : node["decoders"].elements())
      if (auto step = make_decoder(element)) steps_.push_back(std::move(step));
  }
  std::vector<std::string> decode_chain(std::vector<std::string> tokens) const override {
    for (const auto& step : steps_) tokens = step->decode_chain(std::move(tokens));
    return tokens;
  }

 private:
  std::vector<std::unique_ptr<Decoder>> steps_;
};

}  // namespace

std::unique_ptr<Decoder> make_decoder(const Node& node) {
  if (node.is_null()) return nullptr;
  const auto type = node.type();
  if (type == "WordPiece") return std::make_unique<WordPiece>(node);
  if (type == "Metaspace") return std::make_unique<Metaspace>(node);
  if (type == "ByteLevel") return std::make_unique<ByteLevel>();
  if (type == "ByteFallback") return std::make_unique<ByteFallback>();
  if (type == "Fuse") return std::make_unique<Fuse>();
  if (type == "Strip") return std::make_unique<Strip>(node);
  if (type == "Replace") return std::make_unique<Replace>(node);
  if (type == "BPEDecoder") return std::make_unique<BpeDecoder>(node);
  if (type == "Sequence") return std::make_unique<Sequence>(node);
  node.unsupported_type();
}

}  // namespace invar::tokenizer_json
