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

#include "eval/metamorphic/compositionality.hpp"
#include "eval/metamorphic/models.hpp"
#include "eval/metamorphic/transitivity.hpp"
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

// `invar metamorphic transitivity -m MODEL` likewise: row k is triplet k, its record the judge's
// R(a, b), R(b, c), R(a, c) for every relation; `judge` runs the model (opened when a chunk first
// needs it). spec.rows is set here.
std::unique_ptr<run::RowRun> run_triplet_rows(run::RowRunSpec spec, const std::vector<Triplet>& triplets,
                                              std::size_t relations, const std::function<PairJudge()>& judge,
                                              TripletJudgements& out);

// `invar metamorphic compositionality` likewise: row i is input i of the contexts × insertions grid,
// its record the entailment score and the probe's features (probe_inputs); the probe is fitted on
// every row by the process that writes the output. spec.rows is set here.
std::unique_ptr<run::RowRun> run_probe_rows(run::RowRunSpec spec, const std::vector<Context>& contexts,
                                            const std::vector<Insertion>& insertions,
                                            const std::function<ModelUnderTest&()>& model, std::vector<ProbeInput>& out);

}  // namespace invar::metamorphic
