#pragma once
// The model work of `invar metamorphic single|pairwise` as one row run (run/row_run.hpp): row i is
// source i, its record the model's outputs on it and on its follow-up under every transformation
// (score and class, or with --embeddings the sentence embedding). Split over the --shard parts or
// the mpirun ranks and resumable beside --output; the relations are then checked on every row at
// once by the process that writes the output.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "eval/metamorphic/models.hpp"
#include "run/row_run.hpp"

namespace invar::metamorphic {

struct SuiteRowWork {
  const std::vector<std::string>* sources = nullptr;
  const std::vector<std::vector<std::string>>* follow_ups = nullptr;  // one set per transformation
  bool embeddings = false;                                            // embed instead of classify
  std::function<ModelUnderTest&()> model;                             // opened when a chunk first needs it
};

// Computes the rows this process owns (spec.rows is set here). Null when this process's part went
// elsewhere (--shard, a rank other than 0); otherwise `source` and `follow_ups` hold every row's
// outputs, and the run is closed once the output is written.
std::unique_ptr<run::RowRun> run_suite_rows(run::RowRunSpec spec, const SuiteRowWork& work, Outputs& source,
                                            std::vector<Outputs>& follow_ups);

}  // namespace invar::metamorphic
