#include "engine/text/moses.hpp"

#include <fmt/ranges.h>
#include <utf8proc.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <memory>
#include <utility>

#include "core/error.hpp"
#include "core/utf8.hpp"
#include "engine/text/regex.hpp"

namespace invar {

// A sequence of re.sub(pattern, replacement, text) steps (PCRE2 replacement syntax: $1).
class RuleList {
 public:
  RuleList(std::initializer_list<std::pair<std::string, std::string>> rules) {
    for (const auto& [pattern, replacement] : rules)
      rules_.emplace_back(std::make_unique<Regex>(pattern), replacement);
  }
  std::string apply(std::string text) const {
    for (const auto& [regex, replacement] : rules_) text = regex->replace_all(text, replacement);
    return text;
  }

 private:
  std::vector<std::pair<std::unique_ptr<Regex>, std::string>> rules_;
};

namespace {

// Character-class contents standing for Python's \s on str and sacremoses' Perl sets.
const std::string kSpace = R"(\t\n\x{0B}\f\r\x{1C}-\x{20}\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000})";
const std::string kAlpha = R"(\p{Alphabetic})";
const std::string kAlnum = R"(\p{Alphabetic}\p{Nd})";
const std::string kNumber = R"(\p{N})";

// ---------------------------------------------------------------------------------------------
// Punctuation normalization (normalize-punctuation.perl as sacremoses orders it)

const RuleList& unicode_punctuation_rules() {
  static const RuleList rules{
      {"，", ","}, {"。[" + kSpace + "]*", ". "}, {"、", ","}, {"”", "\""}, {"“", "\""}, {"∶", ":"}, {"：", ":"},
      {"？", "?"}, {"《", "\""}, {"》", "\""}, {"）", ")"}, {"！", "!"}, {"（", "("}, {"；", ";"}, {"１", "1"},
      {"」", "\""}, {"「", "\""}, {"０", "0"}, {"３", "3"}, {"２", "2"}, {"５", "5"}, {"６", "6"}, {"９", "9"},
      {"７", "7"}, {"８", "8"}, {"４", "4"}, {"．[" + kSpace + "]*", ". "}, {"～", "~"}, {"’", "'"}, {"…", "..."},
      {"━", "-"}, {"〈", "<"}, {"〉", ">"}, {"【", "["}, {"】", "]"}, {"％", "%"}};
  return rules;
}

const RuleList& extra_whitespace_rules() {
  static const RuleList rules{{R"(\r)", ""},     {R"(\()", " ("},       {R"(\))", ") "},
                              {" +", " "},       {R"(\) ([.!:?;,]))", ")$1"}, {R"(\( )", "("},
                              {R"( \))", ")"},   {R"((\d) %)", "$1%"},  {" :", ":"},
                              {" ;", ";"}};
  return rules;
}

// Applied when penn=True (sacremoses' default), despite the name.
const RuleList& penn_quote_rules() {
  static const RuleList rules{{"`", "'"}, {"''", " \" "}};
  return rules;
}

const RuleList& unicode_quote_rules() {
  static const RuleList rules{{"„", "\""},
                              {"“", "\""},
                              {"”", "\""},
                              {"–", "-"},
                              {"—", " - "},
                              {" +", " "},
                              {"´", "'"},
                              {"([a-zA-Z])‘([a-zA-Z])", "$1'$2"},
                              {"([a-zA-Z])’([a-zA-Z])", "$1'$2"},
                              {"‘", "'"},
                              {"‚", "'"},
                              {"’", "'"},
                              {"''", "\""},
                              {"´´", "\""},
                              {"…", "..."}};
  return rules;
}

const RuleList& french_quote_rules() {
  static const RuleList rules{{R"(\x{A0}«\x{A0})", "\""}, {R"(«\x{A0})", "\""}, {"«", "\""},
                              {R"(\x{A0}»\x{A0})", "\""}, {R"(\x{A0}»)", "\""}, {"»", "\""}};
  return rules;
}

const RuleList& pseudo_space_rules() {
  static const RuleList rules{{R"(\x{A0}%)", "%"},  {R"(nº\x{A0})", "nº "}, {R"(\x{A0}:)", ":"},
                              {R"(\x{A0}ºC)", " ºC"}, {R"(\x{A0}cm)", " cm"}, {R"(\x{A0}\?)", "?"},
                              {R"(\x{A0}\!)", "!"}, {R"(\x{A0};)", ";"},    {R"(,\x{A0})", ", "},
                              {" +", " "}};
  return rules;
}

const RuleList& english_quote_comma_rules() {
  static const RuleList rules{{R"re("([,.]+))re", "$1\""}};
  return rules;
}

// German, Spanish, French: the comma goes outside the quote; a period before a closing quote
// moves out unless the sentence ends there.
const RuleList& continental_quote_comma_rules() {
  static const RuleList rules{{",\"", "\","}, {R"re((\.+)"([)re" + kSpace + "]*[^<])", "\"$1$2"}};
  return rules;
}

// A no-break space between digits is a thousands separator: "," in German, Spanish, Czech,
// French; "." elsewhere.
const RuleList& decimal_comma_rules() {
  static const RuleList rules{{R"((\d)\x{A0}(\d))", "$1,$2"}};
  return rules;
}

const RuleList& decimal_point_rules() {
  static const RuleList rules{{R"((\d)\x{A0}(\d))", "$1.$2"}};
  return rules;
}

bool is_one_of(std::string_view language, std::initializer_list<std::string_view> languages) {
  return std::find(languages.begin(), languages.end(), language) != languages.end();
}

// ---------------------------------------------------------------------------------------------
// Tokenization (tokenizer.perl as sacremoses ports it)

struct TokenizerRules {
  Regex spaces{"[" + kSpace + "]+"};
  Regex ascii_junk{R"([\x{00}-\x{1F}])"};
  Regex pad_not_alnum{"([^" + kAlnum + kSpace + R"(.'`,\-]))"};
  Regex aggressive_hyphen{"([" + kAlnum + R"(])\-(?=[)" + kAlnum + "])"};
  Regex multidot{R"(\.([.]+))"};
  Regex dotmulti_dot{R"(DOTMULTI\.)"};
  Regex dotmulti_dot_other{R"(DOTMULTI\.([^.]))"};
  RuleList commas{{"([^" + kNumber + "]),", "$1 , "}, {",([^" + kNumber + "])", " , $1"}, {"([" + kNumber + "]),$", "$1 , "}};
  RuleList english_apostrophes{{"([^" + kAlpha + "])'([^" + kAlpha + "])", "$1 ' $2"},
                               {"([^" + kAlpha + kNumber + "])'([" + kAlpha + "])", "$1 ' $2"},
                               {"([" + kAlpha + "])'([^" + kAlpha + "])", "$1 ' $2"},
                               {"([" + kAlpha + "])'([" + kAlpha + "])", "$1 '$2"},
                               {"([" + kNumber + "])'([s])", "$1 '$2"}};
  RuleList french_apostrophes{{"([^" + kAlpha + "])'([^" + kAlpha + "])", "$1 ' $2"},
                              {"([^" + kAlpha + "])'([" + kAlpha + "])", "$1 ' $2"},
                              {"([" + kAlpha + "])'([^" + kAlpha + "])", "$1 ' $2"},
                              {"([" + kAlpha + "])'([" + kAlpha + "])", "$1' $2"}};
  RuleList other_apostrophes{{"'", " ' "}};
  RuleList trailing_dot_apostrophe{{R"(\.' ?$)", " . ' "}};
  RuleList escape{{"&", "&amp;"},  {R"(\|)", "&#124;"}, {"<", "&lt;"},   {">", "&gt;"},
                  {"'", "&apos;"}, {"\"", "&quot;"},    {R"(\[)", "&#91;"}, {"]", "&#93;"}};
  Regex alpha{"[" + kAlpha + "]"};
  Regex lowercase_start{R"(^\p{Lowercase})"};
  Regex digit_start{"^[0-9]"};
  Regex numeric_only_line{R"((.*)[)" + kSpace + R"(]+(\#NUMERIC_ONLY\#))"};
};

const TokenizerRules& tokenizer_rules() {
  static const TokenizerRules rules;
  return rules;
}

// replace_multidots: "..." and longer become DOTMULTI markers so that later rules leave them whole.
std::string replace_multidots(std::string text) {
  const auto& rules = tokenizer_rules();
  text = rules.multidot.replace_all(text, " DOTMULTI$1");
  while (rules.dotmulti_dot.found_in(text)) {
    text = rules.dotmulti_dot_other.replace_all(text, "DOTDOTMULTI $1");
    text = rules.dotmulti_dot.replace_all(text, "DOTDOTMULTI");
  }
  return text;
}

std::string restore_multidots(std::string text) {
  while (text.find("DOTDOTMULTI") != std::string::npos) python_replace(text, "DOTDOTMULTI", "DOTMULTI.");
  python_replace(text, "DOTMULTI", ".");
  return text;
}

}  // namespace

std::string replace_unicode_punctuation(std::string_view text) { return unicode_punctuation_rules().apply(std::string(text)); }

std::string remove_non_printing(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : decode_utf8(text)) {
    switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
      case UTF8PROC_CATEGORY_CN:
      case UTF8PROC_CATEGORY_CC:
      case UTF8PROC_CATEGORY_CF:
      case UTF8PROC_CATEGORY_CS:
      case UTF8PROC_CATEGORY_CO:
        break;
      default:
        append_utf8(out, c);
    }
  }
  return out;
}

MosesPunctNormalizer::MosesPunctNormalizer(std::string_view language) {
  groups_ = {&extra_whitespace_rules(), &penn_quote_rules(), &unicode_quote_rules(), &french_quote_rules(),
             &pseudo_space_rules()};
  if (language == "en")
    groups_.push_back(&english_quote_comma_rules());
  else if (is_one_of(language, {"de", "es", "fr"}))
    groups_.push_back(&continental_quote_comma_rules());
  groups_.push_back(is_one_of(language, {"de", "es", "cz", "cs", "fr"}) ? &decimal_comma_rules() : &decimal_point_rules());
}

std::string MosesPunctNormalizer::normalize(std::string_view text) const {
  std::string out(text);
  for (const auto* group : groups_) out = group->apply(std::move(out));
  return std::string(python_strip(out));
}

MosesTokenizer::MosesTokenizer(std::string_view language) : language_(language) {
  auto list = embedded_nonbreaking_prefixes(language);
  if (!list) fail("the Moses tokenizer has no nonbreaking prefixes for language '{}' (it has de, en, ru)", language);
  std::string_view rest = *list;
  while (!rest.empty()) {
    auto end = rest.find('\n');
    auto line = python_strip(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (line.empty() || line.starts_with('#')) continue;
    nonbreaking_.emplace_back(line);
    // "No #NUMERIC_ONLY#": "No" is nonbreaking only before a number (w.rpartition(" ")[0]).
    if (tokenizer_rules().numeric_only_line.found_in(line)) {
      auto space = line.rfind(' ');
      numeric_only_.emplace_back(space == std::string_view::npos ? std::string_view() : line.substr(0, space));
    }
  }
}

std::string MosesTokenizer::protect_nonbreaking_prefixes(std::string_view text) const {
  const auto& rules = tokenizer_rules();
  auto contains = [](const std::vector<std::string>& list, std::string_view word) {
    return std::find(list.begin(), list.end(), word) != list.end();
  };
  auto words = python_split(text);
  std::vector<std::string> split_off;  // "prefix ." replacements, kept alive for the string_views
  split_off.reserve(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    auto word = words[i];
    if (word.size() < 2 || word.back() != '.') continue;
    auto prefix = word.substr(0, word.size() - 1);
    bool numeric_only = contains(numeric_only_, prefix);
    bool next_lowercase = i + 1 < words.size() && rules.lowercase_start.found_in(words[i + 1]);
    // A period stays attached after an abbreviation with inner periods (U.S.), a listed prefix,
    // a word followed by a lowercase word, or a numeric-only prefix followed by a number.
    if ((prefix.find('.') != std::string_view::npos && rules.alpha.found_in(prefix)) ||
        (contains(nonbreaking_, prefix) && !numeric_only) || next_lowercase)
      continue;
    if (numeric_only && i + 1 < words.size() && rules.digit_start.found_in(words[i + 1])) continue;
    split_off.push_back(std::string(prefix) + " .");
    words[i] = split_off.back();
  }
  return fmt::format("{}", fmt::join(words, " "));
}

std::vector<std::string> MosesTokenizer::tokenize(std::string_view input, bool aggressive_dash_splits,
                                                  bool escape) const {
  const auto& rules = tokenizer_rules();
  std::string text = rules.spaces.replace_all(input, " ");
  text = std::string(python_strip(rules.ascii_junk.replace_all(text, "")));
  text = rules.pad_not_alnum.replace_all(text, " $1 ");
  if (aggressive_dash_splits) text = rules.aggressive_hyphen.replace_all(text, "$1 @-@ ");
  text = replace_multidots(std::move(text));
  text = rules.commas.apply(std::move(text));
  if (language_ == "en")
    text = rules.english_apostrophes.apply(std::move(text));
  else if (is_one_of(language_, {"fr", "it"}))
    text = rules.french_apostrophes.apply(std::move(text));
  else
    text = rules.other_apostrophes.apply(std::move(text));
  text = protect_nonbreaking_prefixes(text);
  text = std::string(python_strip(rules.spaces.replace_all(text, " ")));
  text = rules.trailing_dot_apostrophe.apply(std::move(text));
  text = restore_multidots(std::move(text));
  if (escape) text = rules.escape.apply(std::move(text));
  std::vector<std::string> tokens;
  for (auto word : python_split(text)) tokens.emplace_back(word);
  return tokens;
}

// ---------------------------------------------------------------------------------------------
// Detokenization (detokenizer.perl as sacremoses ports it)

namespace {

struct DetokenizerRules {
  RuleList unescape{{"&bar;", "|"},  {"&#124;", "|"}, {"&lt;", "<"},  {"&gt;", ">"},  {"&bra;", "["}, {"&ket;", "]"},
                    {"&quot;", "\""}, {"&apos;", "'"}, {"&#91;", "["}, {"&#93;", "]"}, {"&amp;", "&"}};
  Regex opening{R"(^[\p{Sc}([{¿¡]+$)"};
  Regex closing{R"(^[,.?!:;\\%}\])]+$)"};
  Regex french_spaced{R"(^[?!:;\\%]$)"};
  Regex contraction{"^'[" + kAlpha + "]"};
  Regex elided{"[" + kAlpha + "]'$"};
  Regex alpha_start{"^[" + kAlpha + "]"};
  Regex quotes{R"(^['"„“`]+$)"};
  Regex double_quotes{R"(^[„“”]+$)"};
  Regex spaces{" {2,}"};
};

const DetokenizerRules& detokenizer_rules() {
  static const DetokenizerRules rules;
  return rules;
}

// sacremoses' is_cjk: Hangul Jamo, CJK radicals to Yi, Phags-pa, Hangul syllables, CJK
// compatibility ideographs and forms, halfwidth Katakana/Hangul, the supplementary ideographic plane.
bool is_cjk(char32_t c) {
  static constexpr std::pair<char32_t, char32_t> kRanges[] = {
      {0x1100, 0x11FF}, {0x2E80, 0xA4CF}, {0xA840, 0xA87F}, {0xAC00, 0xD7AF},
      {0xF900, 0xFAFF}, {0xFE30, 0xFE4F}, {0xFF65, 0xFFDC}, {0x20000, 0x2FFFF}};
  return std::any_of(std::begin(kRanges), std::end(kRanges),
                     [&](const auto& range) { return c >= range.first && c <= range.second; });
}

char32_t first_code_point(std::string_view word) { return decode_utf8(word.substr(0, std::min<std::size_t>(4, word.size())))[0]; }

char32_t last_code_point(std::string_view word) {
  std::size_t start = word.size() - 1;
  while (start > 0 && (static_cast<unsigned char>(word[start]) & 0xC0) == 0x80) --start;
  return decode_utf8(word.substr(start))[0];
}

}  // namespace

MosesDetokenizer::MosesDetokenizer(std::string_view language) : language_(language) {
  if (is_one_of(language, {"cs", "fi"}))
    fail("the Moses detokenizer's rules for language '{}' are not implemented", language);
}

std::string MosesDetokenizer::detokenize(std::span<const std::string> input) const {
  const auto& rules = detokenizer_rules();
  std::string text = fmt::format(" {} ", fmt::join(input, " "));
  python_replace(text, " @-@ ", "-");
  text = rules.unescape.apply(std::move(text));
  auto tokens = python_split(text);
  std::map<std::string, int, std::less<>> quote_counts;
  std::string out;
  std::string_view prepend = " ";
  bool english = language_ == "en";
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    auto token = tokens[i];
    if (is_cjk(first_code_point(token)) && language_ != "ko") {
      // A CJK word right after another CJK word attaches to it.
      if (i > 0 && is_cjk(last_code_point(tokens[i - 1])))
        out.append(token);
      else
        out.append(prepend).append(token);
      prepend = " ";
    } else if (rules.opening.found_in(token)) {  // currency and opening brackets attach to the right
      out.append(prepend).append(token);
      prepend = "";
    } else if (rules.closing.found_in(token)) {  // closing punctuation attaches to the left
      if (language_ == "fr" && rules.french_spaced.found_in(token)) out.append(" ");
      out.append(token);
      prepend = " ";
    } else if (english && i > 0 && rules.contraction.found_in(token)) {  // 's, 're
      out.append(token);
      prepend = " ";
    } else if (is_one_of(language_, {"fr", "it", "ga"}) && i + 2 <= tokens.size() && rules.elided.found_in(token) &&
               rules.alpha_start.found_in(tokens[i + 1])) {  // l' homme -> l'homme
      out.append(prepend).append(token);
      prepend = "";
    } else if (rules.quotes.found_in(token)) {
      // Quotes alternate: an even count opens (attaches right), an odd one closes (attaches left).
      std::string kind = rules.double_quotes.found_in(token) ? "\"" : std::string(token);
      int& count = quote_counts[kind];
      if (count % 2 == 0) {
        if (english && token == "'" && i > 0 && tokens[i - 1].ends_with('s')) {  // the Jones' house
          out.append(token);
          prepend = " ";
        } else {
          out.append(prepend).append(token);
          prepend = "";
          ++count;
        }
      } else {
        out.append(token);
        prepend = " ";
        ++count;
      }
    } else {
      out.append(prepend).append(token);
      prepend = " ";
    }
  }
  return std::string(python_strip(rules.spaces.replace_all(out, " ")));
}

MosesPipeline::MosesPipeline(std::string_view language)
    : normalizer_(language), tokenizer_(language), detokenizer_(language) {}

std::vector<std::string> MosesPipeline::tokenize(std::string_view text) const {
  return tokenizer_.tokenize(remove_non_printing(normalizer_.normalize(replace_unicode_punctuation(text))), true, true);
}

}  // namespace invar
