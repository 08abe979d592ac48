#include "eval/metrics/tokenizers/registry.hpp"

#include <fmt/format.h>

#include <functional>

#include "eval/metrics/tokenizers/mecab.hpp"
#include "eval/metrics/tokenizers/mt_tokenize.hpp"

namespace invar::metrics {

namespace {

// A tokenizer that is one function of the line.
class FunctionTokenizer : public Tokenizer {
 public:
  FunctionTokenizer(std::string name, std::string (*tokenize)(std::string_view))
      : name_(std::move(name)), tokenize_(tokenize) {}
  std::string tokenize(std::string_view line) const override { return tokenize_(line); }
  std::string signature() const override { return name_; }

 private:
  std::string name_;
  std::string (*tokenize_)(std::string_view);
};

class Mecab : public Tokenizer {
 public:
  explicit Mecab(MecabTokenizer::Language language) : mecab_(MecabTokenizer::get(language)) {}
  std::string tokenize(std::string_view line) const override { return mecab_->tokenize(line); }
  std::string signature() const override { return mecab_->signature(); }

 private:
  std::shared_ptr<const MecabTokenizer> mecab_;
};

std::string no_tokenization(std::string_view line) { return std::string(line); }

struct Entry {
  std::string name;
  std::function<std::shared_ptr<const Tokenizer>()> make;
};

std::shared_ptr<const Tokenizer> function_tokenizer(std::string name, std::string (*tokenize)(std::string_view)) {
  return std::make_shared<FunctionTokenizer>(std::move(name), tokenize);
}

// The rows, in the order sacrebleu's --help lists them.
const std::vector<Entry>& entries() {
  static const std::vector<Entry> rows{
      {"13a", [] { return function_tokenizer("13a", tokenize_13a); }},
      {"intl", [] { return function_tokenizer("intl", tokenize_intl); }},
      {"zh", [] { return function_tokenizer("zh", tokenize_zh); }},
      {"char", [] { return function_tokenizer("char", tokenize_char); }},
      {"ja-mecab", [] { return std::make_shared<Mecab>(MecabTokenizer::Language::Japanese); }},
      {"ko-mecab", [] { return std::make_shared<Mecab>(MecabTokenizer::Language::Korean); }},
      {"none", [] { return function_tokenizer("none", no_tokenization); }},
  };
  return rows;
}

}  // namespace

const std::vector<std::string>& tokenizer_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& e : entries()) out.push_back(e.name);
    return out;
  }();
  return names;
}

std::string tokenizer_choices() {
  const auto& names = tokenizer_names();
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

bool has_tokenizer(std::string_view name) {
  for (const auto& e : entries())
    if (e.name == name) return true;
  return false;
}

std::shared_ptr<const Tokenizer> find_tokenizer(std::string_view name) {
  for (const auto& e : entries())
    if (e.name == name) return e.make();
  return nullptr;
}

std::string tokenizer_for_language(std::string_view target_language) {
  if (target_language == "zh") return "zh";
  if (target_language == "ja") return "ja-mecab";
  if (target_language == "ko") return "ko-mecab";
  return "13a";
}

}  // namespace invar::metrics
