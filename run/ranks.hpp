#pragma once
// The processes one run is split over: this one alone, or the ranks of `mpirun -n N invar ...`.
// The library runs one process; a binary built with INVAR_MPI links run/mpi/ranks_mpi.cpp, which
// installs MPI's ranks before main (the library itself never links MPI). MPI starts only under a
// launcher, so a plain `invar ...` never touches it.
#include <string>
#include <vector>

namespace invar::run {

// Whether a launcher such as mpirun started this process (Open MPI and PMIx set these variables).
bool started_by_mpi_launcher();

struct Ranks {
  int rank = 0;
  int size = 1;
};

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual Ranks ranks() = 0;
  virtual std::vector<std::string> gather_on_first(const std::string& mine) = 0;
  virtual void wait_for_every_rank() = 0;
  virtual void abort_every_rank() = 0;
};
// From now on runs split over `group` (which must outlive them).
void use_rank_group(RankGroup& group);

Ranks ranks();
// Rank 0 gets every rank's bytes in rank order (its own first); the others send theirs and get {}.
std::vector<std::string> gather_on_first(const std::string& mine);
// Returns when every rank has called it (rank 0 calls it once the output is committed).
void wait_for_every_rank();
// After an error on any rank: ends them all, so that none waits forever for this one.
void abort_every_rank();

}  // namespace invar::run
