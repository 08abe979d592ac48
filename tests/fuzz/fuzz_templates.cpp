// libFuzzer target: the template files of `invar robustness` (eval/robustness/templates): labels,
// slot and flip lines, templates, and their expansion, with the expansion's bounds set low so that
// every input runs quickly; the same bytes read as the authors' layout (paper_templates) and
// expanded with independent draws. Any bytes must be expanded or refused with an invar::Error: never a
// crash, hang, leak, or another exception.
#include <string>
#include <vector>

#include "core/error.hpp"
#include "eval/robustness/paper_templates.hpp"
#include "eval/robustness/templates.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = invar::fuzz::scratch() + "/templates.tsv";
  invar::fuzz::write_file(path, invar::fuzz::as_text(data, size));
  try {
    std::vector<std::string> warnings;
    const auto set = invar::robustness::read_templates({path}, warnings);
    const auto texts = invar::robustness::expand(set, {.max_per_template = size % 7, .seed = size,
                                                       .max_texts = 10000, .max_bytes = 16 << 20});
    invar::robustness::phenomena(texts);
  } catch (const invar::Error&) {
  }
  try {
    std::vector<std::string> warnings;
    const auto set = invar::robustness::read_paper_templates({path}, {"negative", "positive"}, warnings);
    invar::robustness::expand(set, {.max_per_template = size % 5, .seed = size, .max_texts = 10000,
                                    .max_bytes = 16 << 20, .draws = invar::robustness::Draws::Independent});
  } catch (const invar::Error&) {
  }
  return 0;
}
