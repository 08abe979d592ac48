#pragma once
// mteval's punctuation rules (sacrebleu.tokenizers.tokenizer_re.TokenizerRegexp and the XML
// un-escaping), shared by the 13a, zh and Tercom tokenizers of this folder.
#include <string>
#include <string_view>

namespace invar::metrics::mteval {

// Spaces around mteval's `[\{-\~\[-\` -\&\(-\+\:-\@\/]` (ASCII punctuation and symbols except
// apostrophe, comma, hyphen and period).
std::string pad_mteval_punct(std::string_view s);
// The period/comma/dash rules; the result lives in a per-thread buffer, valid until the thread's
// next call.
std::string_view split_periods_commas_dashes(std::string_view s);
// The punctuation padding, the period/comma/dash rules, then ' '.join(split()).
std::string mteval_regexp(std::string_view line);
// &quot; &amp; &lt; &gt;, in that order (Python str.replace).
void unescape_xml(std::string& s);

}  // namespace invar::metrics::mteval
