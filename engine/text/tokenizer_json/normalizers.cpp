#include "engine/text/tokenizer_json/normalizers.hpp"

#include <utf8proc.h>

#include <cstdlib>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "engine/text/char_classes.hpp"
#include "engine/text/regex.hpp"
#include "engine/text/tokenizer_json/pattern.hpp"
#include "engine/text/tokenizer_json/precompiled.hpp"

namespace invar::tokenizer_json {
namespace {

class Bert final : public Normalizer {
 public:
  explicit Bert(const Node& node)
      : clean_text_(node.boolean("clean_text", true)),
        chinese_chars_(node.boolean("handle_chinese_chars", true)),
        lowercase_(node.boolean("lowercase", true)),
        // strip_accents null follows lowercase.
        strip_accents_(node.boolean("strip_accents", lowercase_)) {}

  std::string apply(std::string text) const override {
    std::u32string chars;
    for (char32_t c : decode_utf8(text)) {
      if (clean_text_) {
        if (c == 0 || c == 0xFFFD || is_control(c)) continue;
        if (c == U'\t' || c == U'\n' || c == U'\r' || is_unicode_whitespace(c)) c = U' ';
      }
      if (chinese_chars_ && is_cjk(c)) {
        chars += U' ';
        chars += c;
        chars += U' ';
      } else {
        chars += c;
      }
    }
    if (strip_accents_) chars = strip_accents(chars);
    if (lowercase_) chars = lower_each_char(chars);
    return encode_utf8(chars);
  }

 private:
  bool clean_text_, chinese_chars_, lowercase_, strip_accents_;
};

class UnicodeForm final : public Normalizer {
 public:
  explicit UnicodeForm(int options) : options_(options) {}
  std::string apply(std::string text) const override {
    utf8proc_uint8_t* mapped = nullptr;
    auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                          static_cast<utf8proc_ssize_t>(text.size()), &mapped,
                          static_cast<utf8proc_option_t>(UTF8PROC_STABLE | options_));
    if (n < 0) fail("cannot normalize text: {}", utf8proc_errmsg(n));
    std::string out(reinterpret_cast<const char*>(mapped), static_cast<std::size_t>(n));
    std::free(mapped);
    return out;
  }

 private:
  int options_;
};

class Lowercase final : public Normalizer {
 public:
  std::string apply(std::string text) const override { return encode_utf8(lower_each_char(decode_utf8(text))); }
};

class StripAccents final : public Normalizer {
 public:
  std::string apply(std::string text) const override {
    std::u32string chars = decode_utf8(text);
    std::erase_if(chars, is_nonspacing_mark);
    return encode_utf8(chars);
  }
};

class Strip final : public Normalizer {
 public:
  explicit Strip(const Node& node) : left_(node.boolean("strip_left", true)), right_(node.boolean("strip_right", true)) {}
  std::string apply(std::string text) const override {
    std::u32string chars = decode_utf8(text);
    std::size_t begin = 0, end = chars.size();
    if (left_)
      while (begin < end && is_unicode_whitespace(chars[begin])) ++begin;
    if (right_)
      while (end > begin && is_unicode_whitespace(chars[end - 1])) --end;
    return encode_utf8(std::u32string_view(chars).substr(begin, end - begin));
  }

 private:
  bool left_, right_;
};

class Replace final : public Normalizer {
 public:
  explicit Replace(const Node& node) : pattern_(node["pattern"]), content_(node.string("content")) {}
  std::string apply(std::string text) const override { return pattern_.replace_all(text, content_); }

 private:
  Pattern pattern_;
  std::string content_;
};

class Prepend final : public Normalizer {
 public:
  explicit Prepend(const Node& node) : prefix_(node.string("prepend")) {}
  std::string apply(std::string text) const override { return text.empty() ? text : prefix_ + text; }

 private:
  std::string prefix_;
};

class Precompiled final : public Normalizer {
 public:
  // A null or empty map (some Unigram conversions write one) leaves the text as it is.
  explicit Precompiled(const Node& node) {
    const auto field = node["precompiled_charsmap"];
    if (field.is_null() || field.string().empty()) return;
    const auto where = node.file() + ": " + field.path();
    map_.emplace(decode_base64(field.string(), where), where);
  }
  std::string apply(std::string text) const override { return map_ ? map_->normalize(text) : text; }

 private:
  std::optional<CharsMap> map_;
};

class Sequence final : public Normalizer {
 public:
  explicit Sequence(const Node& node) {
    for (const auto& element : node["normalizers"].elements())
      if (auto normalizer = make_normalizer(element)) steps_.push_back(std::move(normalizer));
  }
  std::string apply(std::string text) const override {
    for (const auto& step : steps_) text = step->apply(std::move(text));
    return text;
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace

std::unique_ptr<Normalizer> make_normalizer(const Node& node) {
  if (node.is_null()) return nullptr;
  const auto type = node.type();
  if (type == "BertNormalizer") return std::make_unique<Bert>(node);
  if (type == "NFC") return std::make_unique<UnicodeForm>(UTF8PROC_COMPOSE);
  if (type == "NFD") return std::make_unique<UnicodeForm>(UTF8PROC_DECOMPOSE);
  if (type == "NFKC") return std::make_unique<UnicodeForm>(UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
  if (type == "NFKD") return std::make_unique<UnicodeForm>(UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
  if (type == "Lowercase") return std::make_unique<Lowercase>();
  if (type == "StripAccents") return std::make_unique<StripAccents>();
  if (type == "Strip") return std::make_unique<Strip>(node);
  if (type == "Replace") return std::make_unique<Replace>(node);
  if (type == "Prepend") return std::make_unique<Prepend>(node);
  if (type == "Precompiled") return std::make_unique<Precompiled>(node);
  if (type == "Sequence") return std::make_unique<Sequence>(node);
  node.unsupported_type();
}

}  // namespace invar::tokenizer_json
