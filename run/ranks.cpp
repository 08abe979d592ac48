#include "run/ranks.hpp"

namespace invar::run {
namespace {

class OneProcess final : public RankGroup {
 public:
  Ranks ranks() override { return {}; }
  std::vector<std::string> gather_on_first(const std::string& mine) override { return {mine}; }
  void wait_for_every_rank() override {}
  void abort_every_rank() override {}
};

// A function's static: ranks_mpi.cpp installs its group during static initialisation.
RankGroup*& current() {
  static OneProcess one;
  static RankGroup* group = &one;
  return group;
}

}  // namespace

void use_rank_group(RankGroup& group) { current() = &group; }
Ranks ranks() { return current()->ranks(); }
std::vector<std::string> gather_on_first(const std::string& mine) { return current()->gather_on_first(mine); }
void wait_for_every_rank() { current()->wait_for_every_rank(); }
void abort_every_rank() { current()->abort_every_rank(); }

}  // namespace invar::run
