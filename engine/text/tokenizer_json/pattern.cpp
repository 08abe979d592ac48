#include "engine/text/tokenizer_json/pattern.hpp"

#include "core/error.hpp"

namespace invar::tokenizer_json {

Pattern::Pattern(const Node& node) {
  if (node.has("String")) {
    literal_ = node.string("String");
    if (literal_.empty()) node.fail_here("String must not be empty");
  } else if (node.has("Regex")) {
    const auto pattern = node.string("Regex");
    try {
      regex_ = std::make_unique<Regex>(pattern);
    } catch (const Error& e) {
      node.fail_here(fmt::format("Regex is not a valid pattern: {}", e.what()));
    }
  } else {
    node.fail_here("must be {\"String\": ...} or {\"Regex\": ...}");
  }
}

std::vector<std::pair<std::size_t, std::size_t>> Pattern::matches(std::string_view text) const {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  if (regex_) {
    for (auto match : regex_->find_all(text)) {
      auto start = static_cast<std::size_t>(match.data() - text.data());
      out.emplace_back(start, start + match.size());
    }
    return out;
  }
  for (auto at = text.find(literal_); at != std::string_view::npos; at = text.find(literal_, at + literal_.size()))
    out.emplace_back(at, at + literal_.size());
  return out;
}

std::string Pattern::replace_all(std::string_view text, std::string_view content) const {
  std::string out;
  std::size_t last = 0;
  for (auto [start, end] : matches(text)) {
    out.append(text.substr(last, start - last));
    out.append(content);
    last = end;
  }
  out.append(text.substr(last));
  return out;
}

}  // namespace invar::tokenizer_json
