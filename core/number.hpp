#pragma once
// Numbers read from text files (judgements, scores), with errors that name where they stand.
#include <string>

namespace invar {

// A finite decimal number, or an error naming `where` (FILE:LINE) and the offending text.
double parse_number(const std::string& text, const std::string& where);

}  // namespace invar
