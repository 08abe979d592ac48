#pragma once
// References as the C API takes them (invar_corpus_score, invar_bertscore): sacrebleu's stream
// layout, stream r's segment i at references[r * count + i], NULL where a stream has none.
#include <cstddef>
#include <string>
#include <vector>

namespace invar::capi {

// Segment-major lists of the references; fails (ArgumentError) on num_references 0 or a NULL array.
std::vector<std::vector<std::string>> segment_references(const char* const* references, std::size_t count,
                                                         std::size_t num_references);

}  // namespace invar::capi
