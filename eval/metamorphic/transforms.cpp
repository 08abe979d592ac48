#include "eval/metamorphic/transforms.hpp"

#include <cctype>
#include <random>

#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/stats/random.hpp"

namespace invar::metamorphic {

namespace {

bool word_byte(unsigned char c) { return std::isalnum(c) || c == '-' || c == '\'' || c >= 0x80; }

// Keys next to each lowercase letter on a QWERTY keyboard (same row and the rows above/below).
const char* neighbours(char letter) {
  static const char* const table[26] = {
      "qwsz", "vghn", "xdfv", "serfcx", "wsdr", "drtgvc", "ftyhbv", "gyujnb", "ujko", "huikmn", "jiolm", "kop",
      "njk", "bhjm", "iklp", "ol", "wa", "edft", "awedxz", "rfgy", "yhji", "cfgb", "qase", "zsdc", "tghu", "asx"};
  return table[letter - 'a'];
}

std::string join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + " " + b;
}

std::pair<std::string, std::string> split_name(const std::string& argument) {
  const auto equals = argument.find('=');
  const auto colon = argument.find(':');
  if (equals != std::string::npos && equals > 0 && equals < colon) return {argument.substr(0, equals), argument.substr(equals + 1)};
  return {"", argument};
}

}  // namespace

const std::vector<std::string>& neutral_sentences() {
  static const std::vector<std::string> sentences{
      "I read this on a Tuesday afternoon.",
      "What follows was written some time ago.",
      "Here is the text in full.",
      "That is all there is to say.",
      "The paragraph above was copied without changes.",
      "Thank you for reading to the end.",
  };
  return sentences;
}

std::vector<Transformation> neutral_transformations() {
  const auto& sentences = neutral_sentences();
  std::vector<Transformation> out;
  for (int k = 0; k < 3; ++k) out.push_back(prefix_transformation(fmt::format("prefix-{}", k + 1), sentences[k]));
  for (int k = 0; k < 3; ++k) out.push_back(suffix_transformation(fmt::format("suffix-{}", k + 1), sentences[3 + k]));
  return out;
}

Transformation prefix_transformation(std::string name, std::string sentence) {
  return {std::move(name), fmt::format("“{}” before the text", sentence),
          [sentence](const std::string& text, std::size_t) { return join(sentence, text); }};
}

Transformation suffix_transformation(std::string name, std::string sentence) {
  return {std::move(name), fmt::format("“{}” after the text", sentence),
          [sentence](const std::string& text, std::size_t) { return join(text, sentence); }};
}

Lexicon read_lexicon(const std::string& path) {
  const auto table = read_table(path, {.format = TableFormat::Tsv, .expected_columns = 2});
  Lexicon lexicon;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& word = table.rows[r][0];
    if (word.empty() || table.rows[r][1].empty()) fail("{}: empty word or replacement", table.where(r));
    for (unsigned char c : word)
      if (!word_byte(c)) fail("{}: column 1 '{}' is not a single word", table.where(r), word);
    if (!lexicon.emplace(word, table.rows[r][1]).second) fail("{}: '{}' is listed twice", table.where(r), word);
  }
  if (lexicon.empty()) fail("{}: the lexicon is empty", path);
  return lexicon;
}

Transformation substitution_transformation(std::string name, Lexicon lexicon) {
  const auto description = fmt::format("{} word substitutions", lexicon.size());
  return {std::move(name), description, [lexicon = std::move(lexicon)](const std::string& text, std::size_t) {
            std::string out;
            for (std::size_t i = 0; i < text.size();) {
              if (!word_byte(static_cast<unsigned char>(text[i]))) {
                out += text[i++];
                continue;
              }
              std::size_t end = i;
              while (end < text.size() && word_byte(static_cast<unsigned char>(text[end]))) ++end;
              std::string word = text.substr(i, end - i);
              if (auto found = lexicon.find(word); found != lexicon.end()) {
                word = found->second;
              } else if (std::isupper(static_cast<unsigned char>(word[0]))) {
                std::string lower = word;
                lower[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(lower[0])));
                if (auto low = lexicon.find(lower); low != lexicon.end()) {
                  word = low->second;
                  word[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(word[0])));
                }
              }
              out += word;
              i = end;
            }
            return out;
          }};
}

Transformation noise_transformation(std::string name, double rate, std::uint64_t seed) {
  if (!(rate > 0 && rate <= 1)) fail("the character noise rate must be in (0, 1], got {}", rate);
  return {std::move(name), fmt::format("keyboard typos, rate {}, seed {}", rate, seed), [rate, seed](const std::string& text, std::size_t row) {
            std::mt19937_64 rng(seed + row);
            const auto threshold = static_cast<std::uint64_t>(rate * 1e9);
            std::string out = text;
            for (std::size_t i = 0; i < out.size(); ++i) {
              const auto c = static_cast<unsigned char>(out[i]);
              if (!std::isalpha(c) || c >= 0x80 || stats::uniform_below(rng, 1000000000) >= threshold) continue;
              const bool swap = stats::uniform_below(rng, 2) == 1 && i + 1 < out.size() && std::isalpha(static_cast<unsigned char>(out[i + 1]));
              if (swap) {
                std::swap(out[i], out[i + 1]);
                ++i;
                continue;
              }
              const char* keys = neighbours(static_cast<char>(std::tolower(c)));
              char key = keys[stats::uniform_below(rng, std::char_traits<char>::length(keys))];
              out[i] = std::isupper(c) ? static_cast<char>(std::toupper(static_cast<unsigned char>(key))) : key;
            }
            return out;
          }};
}

std::vector<Transformation> parse_transformation(const std::string& argument, std::uint64_t seed) {
  auto [name, spec] = split_name(argument);
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string value = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (kind == "neutral" && colon == std::string::npos) {
    if (!name.empty()) fail("--transform neutral stands for six transformations and takes no name");
    return neutral_transformations();
  }
  if (colon == std::string::npos || value.empty())
    fail("--transform '{}': expected neutral, prefix:TEXT, suffix:TEXT, lexicon:FILE or noise:RATE", argument);
  if (kind == "prefix") return {prefix_transformation(name.empty() ? "prefix" : name, value)};
  if (kind == "suffix") return {suffix_transformation(name.empty() ? "suffix" : name, value)};
  if (kind == "lexicon") {
    auto t = substitution_transformation(name.empty() ? "lexicon" : name, read_lexicon(value));
    t.description += " from " + value;
    return {std::move(t)};
  }
  if (kind == "noise") {
    double rate = 0;
    try {
      std::size_t used = 0;
      rate = std::stod(value, &used);
      if (used != value.size()) throw std::invalid_argument(value);
    } catch (const std::logic_error&) {
      fail("--transform '{}': the noise rate '{}' is not a number", argument, value);
    }
    return {noise_transformation(name.empty() ? "noise" : name, rate, seed)};
  }
  fail("--transform '{}': unknown kind '{}' (neutral, prefix, suffix, lexicon, noise)", argument, kind);
}

}  // namespace invar::metamorphic
