#pragma once
// The model work of `invar robustness score` as one row run (run/row_run.hpp): a row is one text of
// the bed under one model, the models of both populations one after the other, each over every
// text; a record holds the predicted task label. Split over the --shard parts or the mpirun ranks
// and resumable beside --output; the accuracies and verdicts are then computed from every row by
// the process that writes the output.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "eval/robustness/models.hpp"
#include "run/row_run.hpp"

namespace invar::robustness {

struct PredictionRowWork {
  std::vector<std::string> models;        // every model, in order
  const std::vector<std::string>* texts = nullptr;
  const LabelMap* map = nullptr;
  const std::vector<std::string>* task_labels = nullptr;
  std::size_t batch_size = 32;
  std::function<Backend&()> backend;      // opened when a chunk first needs a model
};

struct ModelPredictions {
  std::vector<std::string> labels;  // one per text
  std::size_t truncated = 0;        // texts cut to the model's length
  std::size_t max_length = 0;       // that length
};

// Computes the rows this process owns (spec.rows is set here). Null when this process's part went
// elsewhere; otherwise `out` holds every model's predictions, and the run is closed once the output
// is written.
std::unique_ptr<run::RowRun> run_prediction_rows(run::RowRunSpec spec, const PredictionRowWork& work,
                                                 std::vector<ModelPredictions>& out);

}  // namespace invar::robustness
