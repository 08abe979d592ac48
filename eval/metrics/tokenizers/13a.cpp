// sacrebleu's `13a` tokenizer (mteval-v13a).
#include "eval/metrics/tokenizers/mt_tokenize.hpp"

#include "core/utf8.hpp"
#include "eval/metrics/tokenizers/mteval.hpp"

namespace invar::metrics {

std::string tokenize_13a(std::string_view line) {
  // The replacements see the padding spaces too; none of their patterns holds a space, so that
  // changes nothing. A per-thread buffer: no allocation per line once it has grown.
  thread_local std::string s;
  s.assign(1, ' ').append(line).append(1, ' ');
  python_replace(s, "<skipped>", "");
  python_replace(s, "-\n", "");
  python_replace(s, "\n", " ");
  if (s.find('&') != std::string::npos) mteval::unescape_xml(s);
  return mteval::mteval_regexp(s);
}

}  // namespace invar::metrics
