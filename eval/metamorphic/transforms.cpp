#include "eval/metamorphic/transforms.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <random>
#include <string_view>
#include <unordered_set>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/utf8.hpp"
#include "eval/metrics/lexical/wordnet.hpp"
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

bool ascii_letter(unsigned char c) { return c < 0x80 && std::isalpha(c); }

// The text with each word (a maximal run of word bytes) replaced by replace(word), in order.
template <typename Replace>
std::string map_words(const std::string& text, Replace replace) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (!word_byte(static_cast<unsigned char>(text[i]))) {
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && word_byte(static_cast<unsigned char>(text[end]))) ++end;
    out += replace(text.substr(i, end - i));
    i = end;
  }
  return out;
}

// `replacement`, capitalised when `word` is.
std::string capitalised_like(const std::string& word, std::string replacement) {
  if (std::isupper(static_cast<unsigned char>(word[0])) && !replacement.empty())
    replacement[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(replacement[0])));
  return replacement;
}

void check_rate(double rate, const char* what) {
  if (!(rate > 0 && rate <= 1)) fail("the {} rate must be in (0, 1], got {}", what, rate);
}

// True with probability rate: a draw below 10⁹ under rate × 10⁹ (the same on every platform).
struct Chance {
  std::uint64_t threshold;
  explicit Chance(double rate) : threshold(static_cast<std::uint64_t>(rate * 1e9)) {}
  bool operator()(std::mt19937_64& rng) const { return stats::uniform_below(rng, 1000000000) < threshold; }
};

// Fisher–Yates with platform-independent draws (std::shuffle's algorithm is left open).
template <typename It>
void shuffle(It first, It last, std::mt19937_64& rng) {
  for (auto n = static_cast<std::uint64_t>(last - first); n > 1; --n)
    std::iter_swap(first + static_cast<std::ptrdiff_t>(n - 1), first + static_cast<std::ptrdiff_t>(stats::uniform_below(rng, n)));
}

// A random transformation: checks its rate, describes itself with it and the seed, and edits the
// text of source `row` with draws from mt19937_64(seed + row).
template <typename Edit>
Transformation seeded(std::string name, const char* kind, const std::string& what, double rate, std::uint64_t seed, Edit edit) {
  check_rate(rate, kind);
  return {std::move(name), fmt::format("{}, rate {}, seed {}", what, rate, seed),
          [chance = Chance(rate), seed, edit = std::move(edit)](const std::string& text, std::size_t row) {
            std::mt19937_64 rng(seed + row);
            return edit(text, rng, chance);
          }};
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
            return map_words(text, [&lexicon](const std::string& word) {
              if (auto found = lexicon.find(word); found != lexicon.end()) return found->second;
              if (!std::isupper(static_cast<unsigned char>(word[0]))) return word;
              std::string lower = word;
              lower[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(lower[0])));
              const auto low = lexicon.find(lower);
              return low == lexicon.end() ? word : capitalised_like(word, low->second);
            });
          }};
}

Transformation noise_transformation(std::string name, double rate, std::uint64_t seed) {
  return seeded(std::move(name), "noise", "keyboard typos", rate, seed,
                [](const std::string& text, std::mt19937_64& rng, const Chance& chance) {
                  std::string out = text;
                  for (std::size_t i = 0; i < out.size(); ++i) {
                    const auto c = static_cast<unsigned char>(out[i]);
                    if (!ascii_letter(c) || !chance(rng)) continue;
                    const bool swap = stats::uniform_below(rng, 2) == 1 && i + 1 < out.size() &&
                                      std::isalpha(static_cast<unsigned char>(out[i + 1]));
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
                });
}

Transformation char_insert_transformation(std::string name, double rate, std::uint64_t seed) {
  return seeded(std::move(name), "char-insert", "random letters inserted", rate, seed,
                [](const std::string& text, std::mt19937_64& rng, const Chance& chance) {
                  std::string out;
                  for (char c : text) {
                    out += c;
                    const auto byte = static_cast<unsigned char>(c);
                    if (!ascii_letter(byte) || !chance(rng)) continue;
                    const auto letter = static_cast<char>('a' + stats::uniform_below(rng, 26));
                    out += std::isupper(byte) ? static_cast<char>(std::toupper(static_cast<unsigned char>(letter)))
                                              : letter;
                  }
                  return out;
                });
}

Transformation char_delete_transformation(std::string name, double rate, std::uint64_t seed) {
  return seeded(std::move(name), "char-delete", "random letters deleted", rate, seed,
                [](const std::string& text, std::mt19937_64& rng, const Chance& chance) {
                  std::string out;
                  for (char c : text)
                    if (!ascii_letter(static_cast<unsigned char>(c)) || !chance(rng)) out += c;
                  return out;
                });
}

Transformation char_shuffle_transformation(std::string name, double rate, std::uint64_t seed) {
  return seeded(std::move(name), "char-shuffle", "inner letters of words shuffled", rate, seed,
                [](const std::string& text, std::mt19937_64& rng, const Chance& chance) {
                  std::string out = text;
                  for (std::size_t i = 0; i < out.size();) {
                    if (!ascii_letter(static_cast<unsigned char>(out[i]))) {
                      ++i;
                      continue;
                    }
                    std::size_t end = i;
                    while (end < out.size() && ascii_letter(static_cast<unsigned char>(out[end]))) ++end;
                    if (end - i >= 4 && chance(rng))
                      shuffle(out.begin() + static_cast<std::ptrdiff_t>(i + 1),
                              out.begin() + static_cast<std::ptrdiff_t>(end - 1), rng);
                    i = end;
                  }
                  return out;
                });
}

const std::vector<std::string>& function_words() {
  static const std::vector<std::string> words{
      // articles and determiners
      "a", "an", "the", "this", "that", "these", "those", "some", "any", "each", "every", "all", "both", "no", "one",
      // pronouns
      "i", "me", "my", "mine", "we", "us", "our", "ours", "you", "your", "yours", "he", "him", "his", "she", "her",
      "hers", "it", "its", "they", "them", "their", "theirs", "who", "whom", "whose", "which", "what",
      // prepositions
      "about", "above", "across", "after", "against", "along", "among", "around", "as", "at", "before", "behind",
      "below", "beside", "between", "beyond", "by", "down", "during", "except", "for", "from", "in", "inside", "into",
      "like", "near", "of", "off", "on", "onto", "out", "outside", "over", "past", "since", "through", "till", "to",
      "toward", "towards", "under", "until", "up", "upon", "with", "within", "without",
      // conjunctions
      "and", "but", "or", "nor", "so", "yet", "if", "because", "although", "though", "while", "whether", "than",
      // auxiliaries and modals
      "am", "is", "are", "was", "were", "be", "been", "being", "do", "does", "did", "have", "has", "had", "can",
      "could", "may", "might", "must", "shall", "should", "will", "would",
      // adverbs of negation, place and degree
      "not", "there", "here", "very", "too", "also", "just", "then"};
  return words;
}

Transformation wordnet_transformation(std::string name, WordRelation relation,
                                      std::shared_ptr<const metrics::WordNet> wordnet, double rate,
                                      std::uint64_t seed) {
  const char* kind = relation == WordRelation::Synonym ? "synonym" : "antonym";
  const auto candidates = [relation, wordnet](const std::string& word) {
    static const std::unordered_set<std::string> skipped(function_words().begin(), function_words().end());
    std::vector<std::string> out;
    const auto lemma = python_lower(word);
    if (skipped.contains(lemma)) return out;
    for (const auto& sense : wordnet->senses(lemma))
      for (auto name : relation == WordRelation::Synonym ? sense.lemma_names : sense.antonyms) {
        std::replace(name.begin(), name.end(), '_', ' ');
        if (python_lower(name) != lemma && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
      }
    return out;
  };
  return seeded(std::move(name), kind, fmt::format("WordNet {}s", kind), rate, seed,
                [candidates](const std::string& text, std::mt19937_64& rng, const Chance& chance) {
                  return map_words(text, [&](const std::string& word) {
                    const bool letters = std::all_of(word.begin(), word.end(), [](char c) {
                      return ascii_letter(static_cast<unsigned char>(c)) || c == '-';
                    });
                    const auto options = letters ? candidates(word) : std::vector<std::string>{};
                    if (options.empty() || !chance(rng)) return word;
                    return capitalised_like(word, options[stats::uniform_below(rng, options.size())]);
                  });
                });
}

namespace {

// Where the sentence that starts at `begin` ends: after a run of . ! ? and closing quotes or
// brackets that white space or the end of the text follows; npos when it runs to the end.
std::size_t sentence_end(std::string_view text, std::size_t begin) {
  static constexpr std::array<std::string_view, 6> kClosing{"\"", "'", ")", "]", "\u2019", "\u201d"};
  for (std::size_t i = begin; i < text.size(); ++i) {
    if (text[i] != '.' && text[i] != '!' && text[i] != '?') continue;
    std::size_t j = i;
    while (j < text.size() && (text[j] == '.' || text[j] == '!' || text[j] == '?')) ++j;
    for (bool more = true; more && j < text.size();) {
      more = false;
      for (auto closing : kClosing)
        if (text.substr(j).starts_with(closing)) {
          j += closing.size();
          more = true;
          break;
        }
    }
    if (j == text.size() || is_python_space(static_cast<unsigned char>(text[j]))) return j;
    i = j - 1;
  }
  return std::string_view::npos;
}

}  // namespace

Transformation sentence_shuffle_transformation(std::string name, std::uint64_t seed) {
  return {std::move(name), fmt::format("sentences shuffled, seed {}", seed), [seed](const std::string& text, std::size_t row) {
            std::vector<std::string> sentences;
            for (std::size_t begin = 0; begin < text.size();) {
              const auto end = sentence_end(text, begin);
              const auto sentence = python_strip(std::string_view(text).substr(begin, end == std::string::npos ? std::string::npos : end - begin));
              if (!sentence.empty()) sentences.emplace_back(sentence);
              if (end == std::string::npos) break;
              begin = end;
            }
            if (sentences.size() < 2) return text;
            std::mt19937_64 rng(seed + row);
            shuffle(sentences.begin(), sentences.end(), rng);
            std::string out = sentences[0];
            for (std::size_t k = 1; k < sentences.size(); ++k) out += " " + sentences[k];
            return out;
          }};
}

Transformation paraphrase_transformation(std::string name, std::string model, TextMap generate) {
  return {std::move(name), "paraphrase by " + model,
          [generate](const std::string& text, std::size_t) { return generate({text}).at(0); }, generate};
}

std::vector<std::string> follow_up_texts(const Transformation& t, const std::vector<std::string>& texts) {
  std::vector<std::string> out;
  if (t.batch) {
    out = t.batch(texts);
    if (out.size() != texts.size())
      fail("transformation '{}' gave {} follow-ups for {} sources", t.name, out.size(), texts.size());
    return out;
  }
  for (std::size_t i = 0; i < texts.size(); ++i) out.push_back(t.apply(texts[i], i));
  return out;
}

std::vector<Transformation> parse_transformation(const std::string& argument, const TransformTools& tools) {
  auto [name, spec] = split_name(argument);
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string value = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const auto named = [&name](const char* fallback) { return name.empty() ? std::string(fallback) : name; };
  if (kind == "neutral" && colon == std::string::npos) {
    if (!name.empty()) fail("--transform neutral stands for six transformations and takes no name");
    return neutral_transformations();
  }
  if (kind == "sentence-shuffle" && colon == std::string::npos) return {sentence_shuffle_transformation(named("sentence-shuffle"), tools.seed)};
  if (colon == std::string::npos || value.empty())
    fail("--transform '{}': expected neutral, sentence-shuffle or KIND:VALUE (prefix:TEXT, suffix:TEXT, lexicon:FILE, noise:RATE, "
         "char-insert:RATE, char-delete:RATE, char-shuffle:RATE, synonym:RATE, antonym:RATE, paraphrase:MODEL)",
         argument);
  const auto rate = [&] {
    try {
      std::size_t used = 0;
      const double parsed = std::stod(value, &used);
      if (used == value.size()) return parsed;
    } catch (const std::logic_error&) {
    }
    fail("--transform '{}': the {} rate '{}' is not a number", argument, kind, value);
  };
  if (kind == "prefix") return {prefix_transformation(named("prefix"), value)};
  if (kind == "suffix") return {suffix_transformation(named("suffix"), value)};
  if (kind == "lexicon") {
    auto t = substitution_transformation(named("lexicon"), read_lexicon(value));
    t.description += " from " + value;
    return {std::move(t)};
  }
  if (kind == "noise") return {noise_transformation(named("noise"), rate(), tools.seed)};
  if (kind == "char-insert") return {char_insert_transformation(named("char-insert"), rate(), tools.seed)};
  if (kind == "char-delete") return {char_delete_transformation(named("char-delete"), rate(), tools.seed)};
  if (kind == "char-shuffle") return {char_shuffle_transformation(named("char-shuffle"), rate(), tools.seed)};
  if (kind == "synonym" || kind == "antonym") {
    const double r = rate();
    auto wordnet = std::make_shared<const metrics::WordNet>(tools.wordnet.empty() ? metrics::WordNet::default_directory() : tools.wordnet);
    return {wordnet_transformation(named(kind == "synonym" ? "synonym" : "antonym"),
                                   kind == "synonym" ? WordRelation::Synonym : WordRelation::Antonym, std::move(wordnet), r, tools.seed)};
  }
  if (kind == "paraphrase") {
    if (!tools.seq2seq) fail("--transform '{}': paraphrase needs a seq2seq model, which this command cannot run", argument);
    return {paraphrase_transformation(named("paraphrase"), value, tools.seq2seq(value))};
  }
  fail("--transform '{}': unknown kind '{}' (neutral, prefix, suffix, lexicon, noise, char-insert, char-delete, char-shuffle, "
       "synonym, antonym, sentence-shuffle, paraphrase)",
       argument, kind);
}

}  // namespace invar::metamorphic
