#pragma once
// The processes one run is split over: this one alone, or the ranks of `mpirun -n N invar ...` in
// a build with INVAR_MPI (run/mpi/ranks_mpi.cpp; run/ranks_single.cpp otherwise). MPI starts
// only under a launcher, so a plain `invar ...` never touches it.
#include <string>
#include <vector>

namespace invar::cli {

// Whether a launcher such as mpirun started this process (Open MPI and PMIx set these variables).
bool started_by_mpi_launcher();

struct Ranks {
  int rank = 0;
  int size = 1;
};
Ranks ranks();

// Rank 0 gets every rank's bytes in rank order (its own first); the others send theirs and get {}.
std::vector<std::string> gather_on_first(const std::string& mine);
// Returns when every rank has called it (rank 0 calls it once the output is committed).
void wait_for_every_rank();
// After an error on any rank: ends them all, so that none waits forever for this one.
void abort_every_rank();

}  // namespace invar::cli
