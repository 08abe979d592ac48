// Builds without INVAR_MPI: a run is one process.
#include "run/ranks.hpp"

namespace invar::cli {

Ranks ranks() { return {}; }
std::vector<std::string> gather_on_first(const std::string& mine) { return {mine}; }
void wait_for_every_rank() {}
void abort_every_rank() {}

}  // namespace invar::cli
