#pragma once
// Template-based test beds for semantic robustness (La Malfa & Kwiatkowska, "The King is Naked",
// AAAI 2022, Section 5): a template is a text with slots written @NAME@ and a label; each slot has a
// replacement list whose first entry is the default; expanding a template fills its slots with
// every combination of replacements. The file format is documented in docs/robustness.md.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace invar::robustness {

struct Slot {
  std::string name;                       // upper case: slot names are case-insensitive
  std::vector<std::string> replacements;  // the first is the default; "" is allowed
  bool label_changing = false;            // a non-default replacement flips the (binary) label
  std::string where;                      // FILE:LINE of its definition
  bool literal = false;  // text the authors' generator leaves as it is (one replacement, not recorded)
};

struct Template {
  std::string phenomenon;
  std::string label;
  std::string text;
  std::string id;     // "PHENOMENON-N", N counting the phenomenon's templates from 1 in file order
  std::string where;  // FILE:LINE
  // From the authors' generator (paper_templates.hpp): each occurrence of a slot drawn on its own
  // by default, and spaces only collapsed (runs to one, none at either end).
  bool paper = false;
};

struct TemplateSet {
  std::vector<std::string> labels;  // the task's labels, from `labels` lines (empty when undeclared)
  std::map<std::string, Slot> slots;
  std::vector<Template> templates;
};

// Reads and checks template files (slots may live in any of them: a shared slot table beside one
// file per phenomenon). Fails naming FILE:LINE on a malformed line, a template without a label or
// text, a slot defined twice or without replacements, a template slot with no replacement list, a
// label-changing slot on a task whose labels are not exactly two, a template label outside the
// declared labels. `warnings` receives one line per slot no template uses.
TemplateSet read_templates(const std::vector<std::string>& paths, std::vector<std::string>& warnings);

// `text` cut at every `separator` (empty fields kept: n separators give n + 1 fields).
std::vector<std::string> split_fields(const std::string& text, char separator);

// A slot's name as stored: upper case, as slot names are case-insensitive.
std::string slot_key(std::string name);

// The slot names of a template's text in order of first appearance, upper-cased.
std::vector<std::string> slot_names(const std::string& text);

// One generated text and where it came from.
struct GeneratedText {
  std::string text;
  std::string label;
  std::string phenomenon;
  std::string template_id;
  std::vector<std::pair<std::string, std::string>> replacements;  // slot → value, in slot order
};

// How the occurrences of a slot used twice in one template are filled: Shared, one replacement for
// all (invar's format); Independent, each its own (the authors' generator, whose product runs over
// occurrences); Default, each template as its format does.
enum class Draws { Default, Shared, Independent };
Draws parse_draws(const std::string& name);  // "default", "shared", "independent"

struct ExpandOptions {
  std::size_t max_per_template = 0;  // 0 = every combination; else a seeded sample of this many
  std::uint64_t seed = 0;
  // Bounds checked before anything is expanded: the texts all templates make together, and the
  // memory they take at most (texts, labels, names and replacements, from the longest replacements).
  std::uint64_t max_texts = 1'000'000;
  std::uint64_t max_bytes = std::uint64_t{2} << 30;
  Draws draws = Draws::Default;
};

// The cartesian product of each template's slot replacements (the last slot varying fastest; with
// independent draws every occurrence is a slot of the product, and a repeated slot's k-th occurrence
// is recorded as NAME#k), or
// a sample of combinations drawn without replacement (seed + template index, the same on every
// platform) kept in product order; a sample never enumerates the product, which may exceed 2^64
// combinations. Spaces left by empty replacements are collapsed (runs of spaces become one, none at
// either end or before , . ; : ! ?). A text generated twice within a phenomenon is kept once (the
// first); the same text with two labels is an error. Fails before expanding, naming the largest
// template, when the texts would exceed max_texts or max_bytes.
std::vector<GeneratedText> expand(const TemplateSet& set, const ExpandOptions& options = {});

// Texts grouped by phenomenon, in order of first appearance.
std::vector<std::string> phenomena(const std::vector<GeneratedText>& texts);

}  // namespace invar::robustness
