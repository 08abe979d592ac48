#include "eval/metrics/lexical/porter_stemmer.hpp"

#include <functional>
#include <unordered_map>
#include <vector>

#include "core/utf8.hpp"

namespace invar::metrics {
namespace {

using Word = std::u32string;
using Condition = std::function<bool(const Word& stem)>;

// A rule replaces `suffix` by `replacement` when the condition holds for what precedes the suffix.
// The first rule whose suffix matches decides, whether or not its condition holds. The suffix "*d"
// stands for a double consonant, as in the paper.
struct Rule {
  std::u32string_view suffix;
  Word replacement;
  Condition condition;
};

bool ends_with(const Word& word, std::u32string_view suffix) {
  return word.size() >= suffix.size() && std::u32string_view(word).substr(word.size() - suffix.size()) == suffix;
}

Word without_suffix(const Word& word, std::size_t length) { return word.substr(0, word.size() - length); }

bool is_vowel_letter(char32_t c) { return c == U'a' || c == U'e' || c == U'i' || c == U'o' || c == U'u'; }

// The paper's consonant test for every position: y is a consonant at the start or after a vowel.
std::vector<bool> consonants(const Word& word) {
  std::vector<bool> out(word.size());
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (is_vowel_letter(word[i]))
      out[i] = false;
    else if (word[i] == U'y')
      out[i] = i == 0 || !out[i - 1];
    else
      out[i] = true;
  }
  return out;
}

// m in the paper's [C](VC)^m[V]: the number of vowel-to-consonant transitions.
int measure(const Word& stem) {
  const auto c = consonants(stem);
  int m = 0;
  for (std::size_t i = 1; i < c.size(); ++i) m += !c[i - 1] && c[i];
  return m;
}

bool contains_vowel(const Word& stem) {
  for (bool consonant : consonants(stem))
    if (!consonant) return true;
  return false;
}

bool ends_double_consonant(const Word& word) {
  return word.size() >= 2 && word.back() == word[word.size() - 2] && consonants(word).back();
}

// *o in the paper (consonant, vowel, consonant other than w, x, y); NLTK also counts a two-letter
// vowel-consonant word.
bool ends_cvc(const Word& word) {
  const auto c = consonants(word);
  const std::size_t n = word.size();
  if (n >= 3 && c[n - 3] && !c[n - 2] && c[n - 1] && word.back() != U'w' && word.back() != U'x' &&
      word.back() != U'y')
    return true;
  return n == 2 && !c[0] && c[1];
}

bool positive_measure(const Word& stem) { return measure(stem) > 0; }
bool measure_above_one(const Word& stem) { return measure(stem) > 1; }

Word apply_rules(const Word& word, const std::vector<Rule>& rules) {
  for (const auto& rule : rules) {
    std::size_t length = 0;
    if (rule.suffix == U"*d" && ends_double_consonant(word))
      length = 2;
    else if (ends_with(word, rule.suffix))
      length = rule.suffix.size();
    else
      continue;
    Word stem = without_suffix(word, length);
    if (rule.condition && !rule.condition(stem)) return word;
    return stem + rule.replacement;
  }
  return word;
}

Word step1a(const Word& word) {
  if (word.size() == 4 && ends_with(word, U"ies")) return without_suffix(word, 3) + U"ie";
  return apply_rules(word, {{U"sses", U"ss", {}}, {U"ies", U"i", {}}, {U"ss", U"ss", {}}, {U"s", U"", {}}});
}

Word step1b(const Word& word) {
  if (ends_with(word, U"ied")) return without_suffix(word, 3) + (word.size() == 4 ? U"ie" : U"i");
  if (ends_with(word, U"eed")) {
    Word stem = without_suffix(word, 3);
    return measure(stem) > 0 ? stem + U"ee" : word;
  }
  Word stem;
  bool removed = false;
  for (std::u32string_view suffix : {U"ed", U"ing"}) {
    if (!ends_with(word, suffix)) continue;
    stem = without_suffix(word, suffix.size());
    if (contains_vowel(stem)) {
      removed = true;
      break;
    }
  }
  if (!removed) return word;
  const char32_t last = stem.back();
  return apply_rules(stem, {{U"at", U"ate", {}},
                            {U"bl", U"ble", {}},
                            {U"iz", U"ize", {}},
                            {U"*d", Word(1, last), [last](const Word&) { return last != U'l' && last != U's' && last != U'z'; }},
                            {U"", U"e", [](const Word& s) { return measure(s) == 1 && ends_cvc(s); }}});
}

Word step1c(const Word& word) {
  return apply_rules(word, {{U"y", U"i", [](const Word& s) { return s.size() > 1 && consonants(s).back(); }}});
}

Word step2(const Word& word) {
  if (ends_with(word, U"alli") && positive_measure(without_suffix(word, 4)))
    return step2(without_suffix(word, 4) + U"al");
  const Condition m = positive_measure;
  // logi -> log tests the measure of the word without "ogi", keeping the l.
  const Word before_ogi = word.size() >= 3 ? without_suffix(word, 3) : Word();
  return apply_rules(word, {{U"ational", U"ate", m}, {U"tional", U"tion", m}, {U"enci", U"ence", m},
                            {U"anci", U"ance", m},   {U"izer", U"ize", m},    {U"bli", U"ble", m},
                            {U"alli", U"al", m},     {U"entli", U"ent", m},   {U"eli", U"e", m},
                            {U"ousli", U"ous", m},   {U"ization", U"ize", m}, {U"ation", U"ate", m},
                            {U"ator", U"ate", m},    {U"alism", U"al", m},    {U"iveness", U"ive", m},
                            {U"fulness", U"ful", m}, {U"ousness", U"ous", m}, {U"aliti", U"al", m},
                            {U"iviti", U"ive", m},   {U"biliti", U"ble", m},  {U"fulli", U"ful", m},
                            {U"logi", U"log", [&](const Word&) { return positive_measure(before_ogi); }}});
}

Word step3(const Word& word) {
  const Condition m = positive_measure;
  return apply_rules(word, {{U"icate", U"ic", m}, {U"ative", U"", m}, {U"alize", U"al", m}, {U"iciti", U"ic", m},
                            {U"ical", U"ic", m}, {U"ful", U"", m}, {U"ness", U"", m}});
}

Word step4(const Word& word) {
  const Condition m = measure_above_one;
  return apply_rules(word, {{U"al", U"", m},   {U"ance", U"", m}, {U"ence", U"", m}, {U"er", U"", m},
                            {U"ic", U"", m},   {U"able", U"", m}, {U"ible", U"", m}, {U"ant", U"", m},
                            {U"ement", U"", m}, {U"ment", U"", m}, {U"ent", U"", m},
                            {U"ion", U"", [](const Word& s) { return measure(s) > 1 && (s.back() == U's' || s.back() == U't'); }},
                            {U"ou", U"", m},   {U"ism", U"", m},  {U"ate", U"", m},  {U"iti", U"", m},
                            {U"ous", U"", m},  {U"ive", U"", m},  {U"ize", U"", m}});
}

Word step5a(const Word& word) {
  if (!ends_with(word, U"e")) return word;
  Word stem = without_suffix(word, 1);
  const int m = measure(stem);
  if (m > 1 || (m == 1 && !ends_cvc(stem))) return stem;
  return word;
}

Word step5b(const Word& word) {
  return apply_rules(word, {{U"ll", U"l", [&](const Word&) { return measure(without_suffix(word, 1)) > 1; }}});
}

const std::unordered_map<Word, Word>& irregular_forms() {
  static const std::unordered_map<Word, Word> forms{
      {U"sky", U"sky"},         {U"skies", U"sky"},     {U"dying", U"die"},       {U"lying", U"lie"},
      {U"tying", U"tie"},       {U"news", U"news"},     {U"innings", U"inning"},  {U"inning", U"inning"},
      {U"outings", U"outing"},  {U"outing", U"outing"}, {U"cannings", U"canning"}, {U"canning", U"canning"},
      {U"howe", U"howe"},       {U"proceed", U"proceed"}, {U"exceed", U"exceed"}, {U"succeed", U"succeed"}};
  return forms;
}

}  // namespace

std::string porter_stem(std::string_view word) {
  const Word original = decode_utf8(word);
  // NLTK looks the irregular forms up before lowercasing, and measures the length before too.
  const auto& forms = irregular_forms();
  if (const auto it = forms.find(original); it != forms.end()) return encode_utf8(it->second);
  Word stem = python_lower(std::u32string_view(original));
  if (original.size() <= 2) return encode_utf8(stem);
  stem = step5b(step5a(step4(step3(step2(step1c(step1b(step1a(stem))))))));
  return encode_utf8(stem);
}

}  // namespace invar::metrics
