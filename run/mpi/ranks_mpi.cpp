// Builds with INVAR_MPI: the ranks of `mpirun -n N invar ...`, installed (run/ranks.hpp) when the
// binary that links this file starts. MPI starts only when a launcher started this process, so a
// plain `invar ...` of an MPI build stays one process and never loads the launcher's environment.
// The C API only: Open MPI's mpi.h would otherwise pull in its deprecated C++ bindings, which
// live in a library this build does not link.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cstdint>

#include "core/error.hpp"
#include "run/ranks.hpp"

namespace invar::run {
namespace {

class Mpi {
 public:
  Mpi() {
    if (!started_by_mpi_launcher()) return;
    int provided = 0;
    // Only the main thread calls MPI; the compute threads never do.
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) fail("MPI_Init failed");
    started_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &ranks_.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks_.size);
  }
  ~Mpi() {
    if (started_) MPI_Finalize();
  }
  Mpi(const Mpi&) = delete;
  Mpi& operator=(const Mpi&) = delete;

  const Ranks& ranks() const { return ranks_; }
  bool started() const { return started_; }

 private:
  Ranks ranks_;
  bool started_ = false;
};

Mpi& mpi() {
  static Mpi instance;
  return instance;
}

// Messages are counted in ints: bytes go in pieces of at most 1 GiB.
constexpr std::size_t kPiece = std::size_t{1} << 30;

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) fail("MPI: {} failed", what);
}

void send(const std::string& bytes, int to) {
  const std::uint64_t size = bytes.size();
  check(MPI_Send(&size, 1, MPI_UINT64_T, to, 0, MPI_COMM_WORLD), "MPI_Send");
  for (std::size_t at = 0; at < bytes.size(); at += kPiece)
    check(MPI_Send(bytes.data() + at, static_cast<int>(std::min(kPiece, bytes.size() - at)), MPI_BYTE, to, 0,
                   MPI_COMM_WORLD),
          "MPI_Send");
}

std::string receive(int from) {
  std::uint64_t size = 0;
  check(MPI_Recv(&size, 1, MPI_UINT64_T, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  std::string bytes(size, '\0');
  for (std::size_t at = 0; at < bytes.size(); at += kPiece)
    check(MPI_Recv(bytes.data() + at, static_cast<int>(std::min(kPiece, bytes.size() - at)), MPI_BYTE, from, 0,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Recv");
  return bytes;
}

class MpiRanks final : public RankGroup {
 public:
  Ranks ranks() override { return mpi().ranks(); }

  std::vector<std::string> gather_on_first(const std::string& mine) override {
    const Ranks& r = mpi().ranks();
    if (r.rank != 0) {
      send(mine, 0);
      return {};
    }
    std::vector<std::string> all{mine};
    for (int from = 1; from < r.size; ++from) all.push_back(receive(from));
    return all;
  }

  void wait_for_every_rank() override {
    if (mpi().started()) check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  }

  void abort_every_rank() override {
    if (mpi().started() && mpi().ranks().size > 1) MPI_Abort(MPI_COMM_WORLD, 1);
  }
};

[[maybe_unused]] const bool installed = [] {
  static MpiRanks group;
  use_rank_group(group);
  return true;
}();

}  // namespace

}  // namespace invar::run
