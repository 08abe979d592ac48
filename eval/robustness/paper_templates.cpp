#include "eval/robustness/paper_templates.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <filesystem>
#include <map>
#include <set>

#include "core/error.hpp"
#include "core/io.hpp"

namespace invar::robustness {

namespace {

// A cursor over a file's text that knows its line.
struct Source {
  std::string path;
  std::string text;
  std::size_t at = 0;
  std::size_t line = 1;

  std::string where() const { return fmt::format("{}:{}", path, line); }
  bool done() const { return at >= text.size(); }
  char peek() const { return text[at]; }
  void advance() {
    if (text[at] == '\n') ++line;
    ++at;
  }
  // Spaces, newlines and # comments, as between the items of a Python list.
  void skip_blank() {
    while (!done()) {
      if (peek() == '#') {
        while (!done() && peek() != '\n') advance();
      } else if (std::isspace(static_cast<unsigned char>(peek()))) {
        advance();
      } else {
        return;
      }
    }
  }

  std::string string_literal() {
    skip_blank();
    if (done() || (peek() != '\'' && peek() != '"'))
      fail("{}: expected a string literal (only literal lists of strings are read)", where());
    const char quote = peek();
    advance();
    std::string out;
    while (true) {
      if (done() || peek() == '\n') fail("{}: unterminated string literal", where());
      const char c = peek();
      advance();
      if (c == quote) return out;
      if (c != '\\' || done()) {
        out += c;
        continue;
      }
      const char escaped = peek();
      advance();
      switch (escaped) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case '\\': case '\'': case '"': out += escaped; break;
        default: out += '\\'; out += escaped;  // Python keeps unknown escapes as written
      }
    }
  }

  long integer_literal() {
    skip_blank();
    std::size_t end = at;
    if (end < text.size() && text[end] == '-') ++end;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == at || (end == at + 1 && text[at] == '-'))
      fail("{}: expected an integer label (Y holds indices of the labels)", where());
    if (end - at > 9) fail("{}: label index {} is out of range", where(), text.substr(at, end - at));
    const long value = std::stol(text.substr(at, end - at));
    at = end;
    return value;
  }

  // A literal list from its '[' (at the cursor) to its ']', each item read by `item`.
  template <typename Item>
  void list(Item item) {
    skip_blank();
    if (done() || peek() != '[') fail("{}: expected a literal list '[…]'", where());
    advance();
    while (true) {
      skip_blank();
      if (done()) fail("{}: unterminated list", where());
      if (peek() == ']') {
        advance();
        return;
      }
      item();
      skip_blank();
      if (!done() && peek() == ',') advance();
      else if (done() || peek() != ']') fail("{}: expected ',' or ']' in a literal list", where());
    }
  }
};

struct Located {
  std::string value;
  std::string where;
};

// What one phenomenon (a function, or the file's top level) assigns.
struct Group {
  std::string name;
  std::vector<Located> templates;
  std::string templates_where, labels_where;
  std::vector<long> labels;
  std::vector<std::pair<std::string, std::vector<std::string>>> replace;  // in order; a later one wins
  std::vector<std::string> replace_where;
  std::vector<std::string> label_changing;
};

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// After optional spaces at the cursor, `word` as a whole identifier, then optional spaces.
bool accept(Source& s, std::string_view word) {
  std::size_t at = s.at;
  while (at < s.text.size() && (s.text[at] == ' ' || s.text[at] == '\t')) ++at;
  if (s.text.compare(at, word.size(), word) != 0) return false;
  at += word.size();
  if (is_identifier_char(word.back()) && at < s.text.size() && is_identifier_char(s.text[at])) return false;
  while (at < s.text.size() && (s.text[at] == ' ' || s.text[at] == '\t')) ++at;
  s.at = at;
  return true;
}

void read_file(const std::string& path, std::deque<Group>& groups) {
  Source s{path, read_whole_file(path)};
  const std::string top = std::filesystem::path(path).stem().string();
  Group* group = nullptr;
  auto open = [&](const std::string& name) {
    groups.push_back({name, {}, "", "", {}, {}, {}, {}});
    group = &groups.back();
  };
  while (!s.done()) {
    const std::size_t line_start = s.at;
    const bool indented = s.peek() == ' ' || s.peek() == '\t';
    if (!indented && accept(s, "def")) {
      std::string name;
      while (!s.done() && is_identifier_char(s.peek())) {
        name += s.peek();
        s.advance();
      }
      open(name);
    } else if (s.at = line_start; accept(s, "X") && accept(s, "=")) {
      if (!group || (!indented && group->name != top)) open(top);
      group->templates_where = s.where();
      group->templates.clear();
      s.list([&] {
        const std::string where = s.where();
        group->templates.push_back({s.string_literal(), where});
      });
    } else if (s.at = line_start; accept(s, "Y") && accept(s, "=")) {
      if (!group || (!indented && group->name != top)) open(top);
      group->labels_where = s.where();
      group->labels.clear();
      s.list([&] { group->labels.push_back(s.integer_literal()); });
    } else if (s.at = line_start; accept(s, "replace") && accept(s, "[")) {
      if (!group || (!indented && group->name != top)) open(top);
      const std::string where = s.where();
      const std::string key = s.string_literal();
      if (!accept(s, "]") || !accept(s, "=")) fail("{}: expected replace['@key@'] = [...]", where);
      std::vector<std::string> values;
      s.list([&] { values.push_back(s.string_literal()); });
      std::erase_if(group->replace, [&](const auto& entry) { return entry.first == key; });
      group->replace.emplace_back(key, std::move(values));
      group->replace_where.push_back(where);
    } else if (s.at = line_start; accept(s, "label_changing_replacements") && accept(s, "=")) {
      if (!group || (!indented && group->name != top)) open(top);
      group->label_changing.clear();
      s.list([&] { group->label_changing.push_back(s.string_literal()); });
    } else {
      s.at = line_start;
    }
    while (!s.done() && s.peek() != '\n') s.advance();
    if (!s.done()) s.advance();
  }
}

bool is_key(const std::string& token) {
  return token.size() > 2 && token.front() == '@' && token.back() == '@' &&
         token.find('@', 1) == token.size() - 1;
}

// Turns the groups into invar's templates: slot tokens become @NAME@ slots (named after the key, or
// GROUP-KEY when another group gives the key other replacements), other tokens that invar would
// read as slots become one-replacement literal slots.
struct Converter {
  const std::vector<std::string>& labels;
  std::vector<std::string>& warnings;
  TemplateSet set;
  std::size_t literals = 0;

  std::string slot_for(const Group& g, const std::string& key, const std::vector<std::string>& values, bool flips,
                       const std::string& where) {
    const std::string inner = key.substr(1, key.size() - 2);
    if (!std::all_of(inner.begin(), inner.end(), [](char c) { return is_identifier_char(c) || c == '-'; }))
      fail("{}: key '{}' holds characters invar's slot names cannot (letters, digits, '_' and '-')", where, key);
    if (values.empty()) fail("{}: slot {} has no replacements", where, key);
    if (flips && values.size() < 2)
      fail("{}: label-changing slot {} needs a default and at least one replacement that flips the label", where, key);
    for (const std::string& name : {slot_key(inner), slot_key(g.name + "-" + inner)}) {
      auto it = set.slots.find(name);
      if (it == set.slots.end()) {
        set.slots.emplace(name, Slot{name, values, flips, where, false});
        return name;
      }
      if (it->second.replacements == values && it->second.label_changing == flips) return name;
    }
    fail("{}: slot {} of {} is defined twice with different replacements", where, key, g.name);
  }

  std::string literal(const std::string& token, const std::string& where) {
    const std::string name = fmt::format("LITERAL-{}", ++literals);
    set.slots.emplace(name, Slot{name, {token}, false, where, true});
    return fmt::format("@{}@", name);
  }

  void add(const Group& g) {
    if (g.templates.empty()) return;
    if (g.labels_where.empty()) fail("{}: {} has templates (X) but no labels (Y)", g.templates_where, g.name);
    if (g.labels.size() != g.templates.size())
      fail("{}: {} has {} labels (Y) for {} templates (X at {})", g.labels_where, g.name, g.labels.size(),
           g.templates.size(), g.templates_where);
    std::map<std::string, std::size_t> keys;
    for (std::size_t i = 0; i < g.replace.size(); ++i) keys[g.replace[i].first] = i;
    for (const auto& key : g.label_changing)
      if (!keys.count(key)) fail("{}: label-changing slot {} of {} has no replace entry", g.templates_where, key, g.name);
    std::set<std::string> used;
    for (std::size_t t = 0; t < g.templates.size(); ++t) {
      const auto& [text, where] = g.templates[t];
      if (is_blank(text)) fail("{}: template {} of {} is empty", where, t + 1, g.name);
      const long y = g.labels[t];
      if (y < 0 || static_cast<std::size_t>(y) >= labels.size())
        fail("{}: label {} of template {} of {} is not an index of the labels ({})", g.labels_where, y, t + 1, g.name,
             fmt::join(labels, ", "));
      std::string converted;
      bool first = true;
      for (const auto& token : split_fields(text, ' ')) {
        if (!first) converted += ' ';
        first = false;
        if (auto k = keys.find(token); k != keys.end()) {
          const auto& [key, values] = g.replace[k->second];
          const bool flips = std::find(g.label_changing.begin(), g.label_changing.end(), key) != g.label_changing.end();
          converted += fmt::format("@{}@", slot_for(g, key, values, flips, g.replace_where[k->second]));
          used.insert(key);
        } else if (!slot_names(token).empty()) {
          if (is_key(token))
            warnings.push_back(fmt::format("{}: {} has no replace entry in {}: kept as text, as the authors' generator "
                                           "does", where, token, g.name));
          converted += literal(token, where);
        } else {
          converted += token;
        }
      }
      const std::size_t n = 1 + static_cast<std::size_t>(std::count_if(
                                    set.templates.begin(), set.templates.end(),
                                    [&](const Template& other) { return other.phenomenon == g.name; }));
      set.templates.push_back({g.name, labels[static_cast<std::size_t>(y)], converted, fmt::format("{}-{}", g.name, n),
                               where, true});
    }
    for (std::size_t i = 0; i < g.replace.size(); ++i)
      if (!used.count(g.replace[i].first))
        warnings.push_back(fmt::format("{}: slot {} is used by no template of {}", g.replace_where[i], g.replace[i].first,
                                       g.name));
  }
};

}  // namespace

TemplateSet read_paper_templates(const std::vector<std::string>& paths, const std::vector<std::string>& labels,
                                 std::vector<std::string>& warnings) {
  if (paths.empty()) fail("no template files given");
  if (labels.size() < 2) fail("the authors' templates need at least two label names (Y indexes them)");
  std::deque<Group> groups;  // stable addresses while read_file appends
  for (const auto& path : paths) read_file(path, groups);
  Converter converter{labels, warnings, {}, 0};
  converter.set.labels = labels;
  for (const auto& g : groups) converter.add(g);
  if (converter.set.templates.empty())
    fail("{}: no templates: expected literal assignments X = [...], Y = [...] and replace['@key@'] = [...]",
         fmt::join(paths, ", "));
  for (const auto& [name, slot] : converter.set.slots)
    if (slot.label_changing && labels.size() != 2)
      fail("{}: label-changing slot @{}@ needs a binary task, but the labels are {}", slot.where, name, labels.size());
  return std::move(converter.set);
}

}  // namespace invar::robustness
