#include "eval/robustness/templates.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>

#include "core/error.hpp"
#include "core/io.hpp"
#include "eval/stats/random.hpp"

namespace invar::robustness {

namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// Calls `on_slot(begin, end, NAME)` for each @NAME@ in `text`; an '@' not opening a slot is text.
template <typename OnSlot>
void for_each_slot(const std::string& text, OnSlot on_slot) {
  for (std::size_t at = text.find('@'); at != std::string::npos; at = text.find('@', at + 1)) {
    std::size_t end = at + 1;
    while (end < text.size() && is_name_char(text[end])) ++end;
    if (end == at + 1 || end >= text.size() || text[end] != '@') continue;
    on_slot(at, end + 1, slot_key(text.substr(at + 1, end - at - 1)));
    at = end;
  }
}

struct Reader {
  TemplateSet set;
  std::map<std::string, std::size_t> templates_per_phenomenon;
  std::string labels_where;

  void line(const std::vector<std::string>& fields, const std::string& where) {
    const std::string& kind = fields[0];
    if (kind == "labels") return labels(fields, where);
    if (kind == "slot" || kind == "flip") return slot(fields, where, kind == "flip");
    if (kind == "template") return add_template(fields, where);
    fail("{}: unknown line kind '{}' (expected labels, slot, flip or template, then tab-separated fields)", where,
         kind);
  }

  void labels(const std::vector<std::string>& fields, const std::string& where) {
    if (!labels_where.empty()) fail("{}: labels declared twice (first at {})", where, labels_where);
    std::set<std::string> seen;
    for (std::size_t i = 1; i < fields.size(); ++i) {
      if (is_blank(fields[i])) fail("{}: label {} is empty", where, i);
      if (!seen.insert(fields[i]).second) fail("{}: label '{}' listed twice", where, fields[i]);
      set.labels.push_back(fields[i]);
    }
    if (set.labels.size() < 2) fail("{}: a task needs at least two labels", where);
    labels_where = where;
  }

  void slot(const std::vector<std::string>& fields, const std::string& where, bool label_changing) {
    if (fields.size() < 2 || is_blank(fields[1])) fail("{}: slot line without a slot name", where);
    Slot slot{slot_key(fields[1]), {fields.begin() + 2, fields.end()}, label_changing, where};
    if (!std::all_of(slot.name.begin(), slot.name.end(), is_name_char))
      fail("{}: slot name '{}' may hold only letters, digits, '_' and '-'", where, fields[1]);
    if (slot.replacements.empty()) fail("{}: slot @{}@ has no replacement list", where, slot.name);
    if (label_changing && slot.replacements.size() < 2)
      fail("{}: label-changing slot @{}@ needs a default and at least one replacement that flips the label", where,
           slot.name);
    if (auto it = set.slots.find(slot.name); it != set.slots.end())
      fail("{}: slot @{}@ is already defined at {} (slot names are case-insensitive)", where, slot.name,
           it->second.where);
    set.slots.emplace(slot.name, std::move(slot));
  }

  void add_template(const std::vector<std::string>& fields, const std::string& where) {
    if (fields.size() == 3)
      fail("{}: template without a label: expected template<TAB>PHENOMENON<TAB>LABEL<TAB>TEXT", where);
    if (fields.size() != 4)
      fail("{}: a template line has 4 tab-separated fields (template, PHENOMENON, LABEL, TEXT), got {}", where,
           fields.size());
    if (is_blank(fields[1])) fail("{}: template without a phenomenon", where);
    if (is_blank(fields[2])) fail("{}: template without a label", where);
    if (is_blank(fields[3])) fail("{}: template without a text", where);
    const std::size_t n = ++templates_per_phenomenon[fields[1]];
    set.templates.push_back({fields[1], fields[2], fields[3], fmt::format("{}-{}", fields[1], n), where});
  }

  // Checks that need every file read: slots exist, labels agree, label-changing slots are binary.
  void finish(std::vector<std::string>& warnings) {
    if (set.templates.empty()) fail("no templates in the template files (lines 'template<TAB>PHENOMENON<TAB>LABEL<TAB>TEXT')");
    std::set<std::string> used, template_labels;
    for (const auto& t : set.templates) {
      template_labels.insert(t.label);
      if (!set.labels.empty() && std::find(set.labels.begin(), set.labels.end(), t.label) == set.labels.end())
        fail("{}: label '{}' is not one of the task's labels ({}) declared at {}", t.where, t.label,
             fmt::join(set.labels, ", "), labels_where);
      for (const auto& name : slot_names(t.text)) {
        if (!set.slots.count(name)) fail("{}: slot @{}@ has no replacement list (no 'slot' line defines it)", t.where, name);
        used.insert(name);
      }
    }
    if (set.labels.empty()) set.labels.assign(template_labels.begin(), template_labels.end());
    for (const auto& [name, slot] : set.slots) {
      if (!used.count(name)) warnings.push_back(fmt::format("{}: slot @{}@ is used by no template", slot.where, name));
      if (slot.label_changing && used.count(name) && set.labels.size() != 2)
        fail("{}: label-changing slot @{}@ needs a binary task, but the labels are {} ({})", slot.where, name,
             set.labels.size(), fmt::join(set.labels, ", "));
    }
  }
};

// `count` distinct indices below `total`, ascending (Floyd's algorithm).
std::vector<std::uint64_t> sample_indices(std::uint64_t total, std::uint64_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<std::uint64_t> chosen;
  for (std::uint64_t j = total - count; j < total; ++j) {
    std::uint64_t pick = stats::uniform_below(rng, j + 1);
    if (!chosen.insert(pick).second) chosen.insert(j);
  }
  return {chosen.begin(), chosen.end()};
}

// Runs of spaces become one, none at either end, and (`punctuation`, invar's format; the authors'
// generator keeps them) none before , . ; : ! ?
std::string collapse_spaces(const std::string& text, bool punctuation) {
  std::string out;
  for (char c : text) {
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    if (punctuation && std::string_view(",.;:!?").find(c) != std::string_view::npos && !out.empty() && out.back() == ' ')
      out.pop_back();
    out += c;
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

const std::string& other_label(const std::vector<std::string>& labels, const std::string& label) {
  return labels[0] == label ? labels[1] : labels[0];
}

// One replacement index per slot.
using Combination = std::vector<std::size_t>;

// Combination `index` of the product (mixed radix, the last slot fastest).
Combination combination(const std::vector<const Slot*>& slots, std::uint64_t index) {
  Combination out(slots.size());
  for (std::size_t k = slots.size(); k-- > 0;) {
    out[k] = index % slots[k]->replacements.size();
    index /= slots[k]->replacements.size();
  }
  return out;
}

// `count` distinct combinations of a product too large to index in 64 bits, each slot drawn
// uniformly, in product order (the lexicographic order of the choices). count is far below the
// product, so a repeated draw is rare and drawn again.
std::vector<Combination> sample_combinations(const std::vector<const Slot*>& slots, std::uint64_t count,
                                             std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<Combination> chosen;
  while (chosen.size() < count) {
    Combination draw(slots.size());
    for (std::size_t k = 0; k < slots.size(); ++k) draw[k] = stats::uniform_below(rng, slots[k]->replacements.size());
    chosen.insert(std::move(draw));
  }
  return {chosen.begin(), chosen.end()};
}

// What a template's product runs over: its draws (a slot each, or one per occurrence), the name each
// is recorded under, which draw fills each occurrence, and how many occurrences each fills.
struct Draw {
  const Slot* slot = nullptr;
  std::string name;
  std::size_t occurrences = 0;
};

struct DrawPlan {
  std::vector<const Slot*> slots;  // per draw
  std::vector<Draw> draws;
  std::vector<std::size_t> occurrence_draw;
};

DrawPlan draw_plan(const TemplateSet& set, const Template& tmpl, Draws draws) {
  const bool independent = draws == Draws::Independent || (draws == Draws::Default && tmpl.paper);
  DrawPlan out;
  std::map<std::string, std::size_t> seen;  // name → occurrences so far (independent) or draw (shared)
  for_each_slot(tmpl.text, [&](std::size_t, std::size_t, const std::string& name) {
    const Slot* slot = &set.slots.at(name);
    if (independent) {
      const std::size_t k = ++seen[name];
      out.occurrence_draw.push_back(out.draws.size());
      out.draws.push_back({slot, k == 1 ? name : fmt::format("{}#{}", name, k), 1});
    } else {
      auto [it, inserted] = seen.emplace(name, out.draws.size());
      if (inserted) out.draws.push_back({slot, name, 0});
      out.occurrence_draw.push_back(it->second);
      out.draws[it->second].occurrences++;
    }
  });
  for (const auto& d : out.draws) out.slots.push_back(d.slot);
  return out;
}

// The text, label and replacements of one combination.
GeneratedText fill(const Template& t, const DrawPlan& plan, const Combination& choices,
                   const std::vector<std::string>& labels) {
  GeneratedText out{"", t.label, t.phenomenon, t.id, {}};
  for (std::size_t k = 0; k < plan.draws.size(); ++k) {
    const Slot& slot = *plan.draws[k].slot;
    if (!slot.literal) out.replacements.emplace_back(plan.draws[k].name, slot.replacements[choices[k]]);
    if (slot.label_changing && choices[k] != 0) out.label = other_label(labels, out.label);
  }
  std::size_t copied = 0, occurrence = 0;
  for_each_slot(t.text, [&](std::size_t begin, std::size_t end, const std::string&) {
    const std::size_t k = plan.occurrence_draw[occurrence++];
    out.text += t.text.substr(copied, begin - copied) + plan.draws[k].slot->replacements[choices[k]];
    copied = end;
  });
  out.text += t.text.substr(copied);
  out.text = collapse_spaces(out.text, !t.paper);
  return out;
}

}  // namespace

std::vector<std::string> split_fields(const std::string& text, char separator) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (std::size_t at; (at = text.find(separator, start)) != std::string::npos; start = at + 1)
    fields.push_back(text.substr(start, at - start));
  fields.push_back(text.substr(start));
  return fields;
}

std::string slot_key(std::string name) {
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

Draws parse_draws(const std::string& name) {
  if (name == "default") return Draws::Default;
  if (name == "shared") return Draws::Shared;
  if (name == "independent") return Draws::Independent;
  fail("unknown slot draws '{}' (expected default, shared or independent)", name);
}

std::vector<std::string> slot_names(const std::string& text) {
  std::vector<std::string> names;
  for_each_slot(text, [&](std::size_t, std::size_t, const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  });
  return names;
}

TemplateSet read_templates(const std::vector<std::string>& paths, std::vector<std::string>& warnings) {
  if (paths.empty()) fail("no template files given");
  Reader reader;
  for (const auto& path : paths) {
    LineReader lines(path);
    std::string line;
    while (lines.next(line)) {
      if (is_blank(line) || line.front() == '#') continue;
      reader.line(split_fields(line, '\t'), lines.where());
    }
  }
  reader.finish(warnings);
  return std::move(reader.set);
}

namespace {

// What a template makes: its slots, its product (nullopt beyond 2^64), how many texts it keeps and
// the most memory they can take.
struct TemplatePlan {
  DrawPlan draws;
  std::optional<std::uint64_t> total;
  std::uint64_t texts = 0;
  std::uint64_t bytes = 0;
};

TemplatePlan plan(const TemplateSet& set, const Template& tmpl, const ExpandOptions& options) {
  TemplatePlan out;
  out.total = 1;
  out.draws = draw_plan(set, tmpl, options.draws);
  // A text's strings at their longest (the text twice: in the record and in expand()'s map of seen
  // texts), its record and the map's entry.
  std::uint64_t per_text = sizeof(GeneratedText) + 2 * (tmpl.text.size() + tmpl.phenomenon.size()) + tmpl.label.size() +
                           tmpl.id.size() + 64;
  for (const auto& draw : out.draws.draws) {
    const Slot& slot = *draw.slot;
    std::size_t longest = 0;
    for (const auto& r : slot.replacements) longest = std::max(longest, r.size());
    per_text += 2 * draw.occurrences * longest + sizeof(std::pair<std::string, std::string>) + draw.name.size() + longest;
    const auto size = slot.replacements.size();
    if (out.total && *out.total > std::numeric_limits<std::uint64_t>::max() / size) out.total.reset();
    if (out.total) *out.total *= size;
  }
  if (options.max_per_template > 0 && (!out.total || *out.total > options.max_per_template)) {
    out.texts = options.max_per_template;
  } else if (out.total) {
    out.texts = *out.total;
  } else {
    fail("{}: template {} has more than 2^64 combinations: sample them with --max-per-template N", tmpl.where, tmpl.id);
  }
  out.bytes = out.texts > std::numeric_limits<std::uint64_t>::max() / per_text ? std::numeric_limits<std::uint64_t>::max()
                                                                               : out.texts * per_text;
  return out;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

}  // namespace

std::vector<GeneratedText> expand(const TemplateSet& set, const ExpandOptions& options) {
  std::vector<TemplatePlan> plans;
  std::uint64_t texts = 0, bytes = 0;
  std::size_t largest = 0;
  for (const auto& tmpl : set.templates) {
    plans.push_back(plan(set, tmpl, options));
    texts = saturating_add(texts, plans.back().texts);
    bytes = saturating_add(bytes, plans.back().bytes);
    if (plans.back().bytes > plans[largest].bytes) largest = plans.size() - 1;
  }
  if (texts > options.max_texts || bytes > options.max_bytes) {
    const Template& big = set.templates[largest];
    const std::string total = plans[largest].total ? std::to_string(*plans[largest].total) : "more than 2^64";
    fail("{}: the templates would make {} texts (up to {} MB; the bounds are {} texts and {} MB), template {} alone {} "
         "of {} combinations: sample with --max-per-template N",
         big.where, texts, bytes >> 20, options.max_texts, options.max_bytes >> 20, big.id, plans[largest].texts, total);
  }

  std::vector<GeneratedText> out;
  std::unordered_map<std::string, std::size_t> seen;  // phenomenon + '\t' + text → index in out
  for (std::size_t t = 0; t < set.templates.size(); ++t) {
    const Template& tmpl = set.templates[t];
    const auto& slots = plans[t].draws.slots;
    auto add = [&](const Combination& choices) {
      GeneratedText text = fill(tmpl, plans[t].draws, choices, set.labels);
      auto [it, inserted] = seen.emplace(text.phenomenon + '\t' + text.text, out.size());
      if (inserted) {
        out.push_back(std::move(text));
      } else if (out[it->second].label != text.label) {
        fail("{}: '{}' is generated with label '{}' here and with label '{}' by template {}", tmpl.where, text.text,
             text.label, out[it->second].label, out[it->second].template_id);
      }
    };
    if (!plans[t].total) {
      for (const auto& choices : sample_combinations(slots, options.max_per_template, options.seed + t)) add(choices);
    } else if (options.max_per_template > 0 && *plans[t].total > options.max_per_template) {
      for (std::uint64_t index : sample_indices(*plans[t].total, options.max_per_template, options.seed + t))
        add(combination(slots, index));
    } else {
      for (std::uint64_t i = 0; i < *plans[t].total; ++i) add(combination(slots, i));
    }
  }
  if (out.empty()) fail("the templates generate no texts");
  return out;
}

std::vector<std::string> phenomena(const std::vector<GeneratedText>& texts) {
  std::vector<std::string> names;
  for (const auto& t : texts)
    if (std::find(names.begin(), names.end(), t.phenomenon) == names.end()) names.push_back(t.phenomenon);
  return names;
}

}  // namespace invar::robustness
