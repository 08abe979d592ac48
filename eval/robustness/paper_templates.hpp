#pragma once
// Template files in the layout of the authors' generator (La Malfa & Kwiatkowska's public
// the-king-is-naked, verify/linguistic_augmentation.py): Python source in which each phenomenon is a
// function assigning literal lists
//   X = ['text with @slot@ tokens', ...]        the templates
//   Y = [0, 1, ...]                              their labels, as indices into the task's labels
//   replace['@slot@'] = ['default', 'r2', ...]   a slot's replacements, the first the default
//   label_changing_replacements = ['@slot@']     slots whose non-default replacements flip the label
// (assignments before any `def` form a phenomenon named after the file). Nothing is executed: only
// these literal assignments are read, everything else is skipped. As the authors' generator does, a
// slot is a whole space-separated token equal to a key of `replace` (any other token, '@' or not, is
// text), each occurrence is drawn on its own, and spaces are only collapsed. docs/robustness.md has
// the format and a small example.
#include <string>
#include <vector>

#include "eval/robustness/templates.hpp"

namespace invar::robustness {

// `labels` names the label indices of Y (0 → labels[0], …). Fails naming FILE:LINE on a list that
// is not a literal list of strings (ints for Y), X and Y of different lengths, a label index outside
// `labels`, a label-changing key without a `replace` entry, a key whose name invar cannot hold
// (letters, digits, '_' and '-' between the two '@'). `warnings` receives the @name@ tokens that no
// `replace` entry defines (kept as text, as the authors' generator does) and the unused keys.
TemplateSet read_paper_templates(const std::vector<std::string>& paths, const std::vector<std::string>& labels,
                                 std::vector<std::string>& warnings);

}  // namespace invar::robustness
