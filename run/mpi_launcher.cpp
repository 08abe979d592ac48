#include <cstdlib>

#include "run/ranks.hpp"

namespace invar::run {

bool started_by_mpi_launcher() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr ||
         std::getenv("PMI_SIZE") != nullptr;
}

}  // namespace invar::run
