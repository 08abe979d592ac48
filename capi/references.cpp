#include "capi/references.hpp"

#include <optional>

#include "capi/guard.hpp"
#include "eval/metrics/corpus/common.hpp"

namespace invar::capi {

std::vector<std::vector<std::string>> segment_references(const char* const* references, std::size_t count,
                                                         std::size_t num_references) {
  if (num_references == 0) throw ArgumentError("num_references must be at least 1");
  require(references, "references");
  std::vector<std::vector<std::optional<std::string>>> streams(num_references);
  for (std::size_t r = 0; r < num_references; ++r)
    for (std::size_t i = 0; i < count; ++i) {
      const char* reference = references[r * count + i];
      streams[r].push_back(reference ? std::optional<std::string>(reference) : std::nullopt);
    }
  return metrics::references_by_segment(streams);
}

}  // namespace invar::capi
