#include "eval/metrics/lexical/wordnet.hpp"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unordered_set>
#include <utility>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/utf8.hpp"

namespace invar::metrics {
namespace {

constexpr std::array<const char*, 4> kFileSuffix{"noun", "verb", "adj", "adv"};

// NLTK's MORPHOLOGICAL_SUBSTITUTIONS (WordNet's morph(7WN) detachment rules); adverbs have none.
using Substitutions = std::vector<std::pair<std::string_view, std::string_view>>;
const std::array<Substitutions, 4> kSubstitutions{
    Substitutions{{"s", ""}, {"ses", "s"}, {"ves", "f"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"},
                  {"shes", "sh"}, {"men", "man"}, {"ies", "y"}},
    Substitutions{{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"},
                  {"ing", ""}},
    Substitutions{{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
    Substitutions{}};

std::string checked_path(const std::string& directory, const std::string& name) {
  const auto path = (std::filesystem::path(directory) / name).string();
  if (!std::filesystem::is_regular_file(path))
    fail("{}: WordNet database file not found; install Debian's wordnet-base package (apt install wordnet-base) "
         "or point --wordnet (or $WNSEARCHDIR) at a WordNet 3.0 dict folder",
         path);
  return path;
}

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot open", path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::size_t parse_count(std::string_view token, const std::string& where, const char* field, int base = 10) {
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value, base);
  if (error != std::errc() || end != token.data() + token.size())
    fail("{}: {} must be a number, got '{}'", where, field, token);
  return value;
}

// One index.* line: lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt offsets...
void read_index_line(const std::vector<std::string_view>& tokens, const std::string& where,
                     std::unordered_map<std::string, std::vector<std::size_t>>& offsets) {
  auto need = [&](std::size_t i, const char* field) {
    if (i >= tokens.size()) fail("{}: line ends before its {}", where, field);
    return tokens[i];
  };
  const std::size_t synsets = parse_count(need(2, "synset_cnt"), where, "synset_cnt");
  const std::size_t pointers = parse_count(need(3, "p_cnt"), where, "p_cnt");
  const std::size_t first = 4 + pointers + 2;
  std::vector<std::size_t> found;
  for (std::size_t k = 0; k < synsets; ++k) found.push_back(parse_count(need(first + k, "synset_offset"), where, "synset_offset"));
  offsets[std::string(tokens[0])] = std::move(found);
}

}  // namespace

std::string WordNet::default_directory() {
  if (const char* dir = std::getenv("WNSEARCHDIR"); dir && *dir) return dir;
  return "/usr/share/wordnet";
}

WordNet::WordNet(const std::string& directory) : directory_(directory) {
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    auto& part = parts_[p];
    const std::string suffix = kFileSuffix[p];
    part.data_path = checked_path(directory, "data." + suffix);
    part.data = read_whole(part.data_path);
    // The license header lines start with a space (wndb(5WN)).
    LineReader index(checked_path(directory, "index." + suffix));
    for (std::string line; index.next(line);)
      if (!line.empty() && line[0] != ' ') read_index_line(python_split(line), index.where(), part.offsets);
    LineReader exceptions(checked_path(directory, suffix + ".exc"));
    for (std::string line; exceptions.next(line);) {
      const auto tokens = python_split(line);
      if (tokens.empty()) continue;
      part.exceptions[std::string(tokens[0])] = std::vector<std::string>(tokens.begin() + 1, tokens.end());
    }
  }
}

std::vector<std::string> WordNet::morphy(const std::string& form, int pos) const {
  const auto& part = parts_.at(pos);
  const auto keep_indexed = [&](const std::vector<std::string>& forms) {
    std::vector<std::string> out;
    std::unordered_set<std::string> seen;
    for (const auto& f : forms)
      if (part.offsets.contains(f) && seen.insert(f).second) out.push_back(f);
    return out;
  };
  const auto apply_rules = [&](const std::vector<std::string>& forms) {
    std::vector<std::string> out;
    for (const auto& f : forms)
      for (const auto& [old, replacement] : kSubstitutions[pos])
        if (f.ends_with(old)) out.push_back(f.substr(0, f.size() - old.size()) + std::string(replacement));
    return out;
  };
  if (const auto it = part.exceptions.find(form); it != part.exceptions.end()) {
    std::vector<std::string> forms{form};
    forms.insert(forms.end(), it->second.begin(), it->second.end());
    return keep_indexed(forms);
  }
  auto forms = apply_rules({form});
  std::vector<std::string> first{form};
  first.insert(first.end(), forms.begin(), forms.end());
  if (auto found = keep_indexed(first); !found.empty()) return found;
  // Every rule shortens the form, so this ends.
  while (!forms.empty()) {
    forms = apply_rules(forms);
    if (auto found = keep_indexed(forms); !found.empty()) return found;
  }
  return {};
}

// A data.* line: offset lex_filenum ss_type w_cnt(hex) then w_cnt × (word lex_id), p_cnt, then
// p_cnt × (symbol offset pos source/target) ...; adjective words may carry a syntactic marker "(a)",
// "(p)", "(ip)", which NLTK strips from the name.
WordNet::Synset WordNet::synset_at(const PartOfSpeech& part, std::size_t offset) const {
  if (offset >= part.data.size()) fail("{}: synset offset {} is beyond the end of the file", part.data_path, offset);
  const auto end = part.data.find('\n', offset);
  const std::string_view line(part.data.data() + offset, (end == std::string::npos ? part.data.size() : end) - offset);
  const auto tokens = python_split(line);
  const auto where = fmt::format("{}: synset at byte {}", part.data_path, offset);
  if (tokens.size() < 4 || parse_count(tokens[0], where, "synset_offset") != offset)
    fail("{}: no synset starts there", where);
  const std::size_t words = parse_count(tokens[3], where, "w_cnt", 16);
  if (tokens.size() < 5 + 2 * words) fail("{}: line ends before its {} words and p_cnt", where, words);
  Synset synset;
  for (std::size_t k = 0; k < words; ++k) {
    std::string_view name = tokens[4 + 2 * k];
    if (const auto paren = name.find('('); name.ends_with(')') && paren != std::string_view::npos)
      name = name.substr(0, paren);
    synset.names.emplace_back(name);
  }
  const std::size_t first = 5 + 2 * words;
  const std::size_t pointers = parse_count(tokens[first - 1], where, "p_cnt");
  if (tokens.size() < first + 4 * pointers) fail("{}: line ends before its {} pointers", where, pointers);
  for (std::size_t k = 0; k < pointers; ++k) {
    const auto* pointer = &tokens[first + 4 * k];
    const std::string_view pos = pointer[2], words_field = pointer[3];
    const auto part_of = std::string_view("nvasr").find(pos);
    if (pos.size() != 1 || part_of == std::string_view::npos) fail("{}: pointer {} has an unknown pos '{}'", where, k + 1, pos);
    if (words_field.size() != 4) fail("{}: pointer {}'s source/target must be 4 hex digits, got '{}'", where, k + 1, words_field);
    // n, v, a, s, r: 's' (adjective satellite) synsets are in data.adj.
    constexpr std::array<int, 5> kPart{0, 1, 2, 2, 3};
    synset.pointers.push_back({pointer[0], parse_count(pointer[1], where, "pointer offset"), kPart[part_of],
                               parse_count(words_field.substr(0, 2), where, "pointer source", 16),
                               parse_count(words_field.substr(2, 2), where, "pointer target", 16)});
  }
  return synset;
}

std::vector<std::string> WordNet::lemma_names_at(const PartOfSpeech& part, std::size_t offset) const {
  return synset_at(part, offset).names;
}

std::vector<WordNet::Sense> WordNet::senses(std::string_view lemma) const {
  const std::string key = python_lower(lemma);
  std::vector<Sense> out;
  for (const auto& part : parts_) {
    const auto found = part.offsets.find(key);
    if (found == part.offsets.end()) continue;
    for (std::size_t offset : found->second) {
      auto synset = synset_at(part, offset);
      Sense sense{synset.names, {}};
      for (std::size_t w = 0; w < synset.names.size(); ++w) {
        if (python_lower(synset.names[w]) != key) continue;
        for (const auto& pointer : synset.pointers) {
          if (pointer.symbol != "!" || pointer.source != w + 1) continue;
          const auto target = synset_at(parts_[pointer.pos], pointer.offset);
          if (pointer.target == 0 || pointer.target > target.names.size())
            fail("{}: synset at byte {}: antonym pointer to word {} of a synset of {} words", part.data_path, offset,
                 pointer.target, target.names.size());
          sense.antonyms.push_back(target.names[pointer.target - 1]);
        }
      }
      out.push_back(std::move(sense));
    }
  }
  return out;
}

std::vector<std::vector<std::string>> WordNet::synset_lemma_names(std::string_view word) const {
  const std::string lemma = python_lower(word);
  std::vector<std::vector<std::string>> out;
  for (int pos = 0; pos < 4; ++pos)
    for (const auto& form : morphy(lemma, pos))
      for (std::size_t offset : parts_[pos].offsets.at(form)) out.push_back(lemma_names_at(parts_[pos], offset));
  return out;
}

}  // namespace invar::metrics
