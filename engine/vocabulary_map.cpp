#include "engine/vocabulary_map.hpp"

#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "core/io.hpp"

namespace invar {

VocabularyMap::VocabularyMap(const std::string& path, const Tokenizer& tokenizer) : tokenizer_(tokenizer) {
  LineReader reader(path);
  std::string line;
  while (reader.next(line)) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos) fail("{}: no tab between the source n-gram and its target tokens", reader.where());
    const std::string key = line.substr(0, tab);
    std::vector<std::int32_t> targets;
    std::istringstream tokens(line.substr(tab + 1));
    for (std::string token; tokens >> token;) {
      const auto id = tokenizer.find_token(token, Side::Target);
      if (!id) fail("{}: target token '{}' is not in the model's vocabulary", reader.where(), token);
      targets.push_back(*id);
    }
    if (key.empty()) {
      always_.insert(always_.end(), targets.begin(), targets.end());
      continue;
    }
    const std::size_t n = static_cast<std::size_t>(std::count(key.begin(), key.end(), ' ')) + 1;
    if (rules_.size() < n) rules_.resize(n);
    rules_[n - 1][key] = std::move(targets);  // a repeated n-gram: the last line holds, as in CTranslate2
  }
}

std::vector<std::int32_t> VocabularyMap::candidates(const std::vector<std::vector<std::int32_t>>& sources) const {
  std::vector<std::int32_t> ids = always_;
  for (const auto special : {tokenizer_.unk_id(), tokenizer_.bos_id(), tokenizer_.eos_id()})
    if (special) ids.push_back(*special);
  for (const auto& source : sources) {
    std::vector<std::string> tokens;
    for (std::int32_t id : source) tokens.push_back(tokenizer_.id_to_token(id, Side::Source));
    for (std::size_t start = 0; start < tokens.size(); ++start) {
      std::string key;
      for (std::size_t n = 1; n <= rules_.size() && start + n <= tokens.size(); ++n) {
        key += (n > 1 ? " " : "") + tokens[start + n - 1];
        const auto rule = rules_[n - 1].find(key);
        if (rule != rules_[n - 1].end()) ids.insert(ids.end(), rule->second.begin(), rule->second.end());
      }
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace invar
