#pragma once
// The per-row work of `invar lip` (tools/cmd_lip.cpp) as one row run (run/row_run.hpp): split over
// the --shard parts or the mpirun ranks, resumable beside --output. It is what costs: with
// --transform, t(A_i) for every text of A; with --classifier se, the sentence embedding of every
// text the classifiers read, so that their fits and predictions find them computed. (The TF-IDF
// classifier's fits and predictions are not per row, and cheap: they run where the report is made.)
// The rows: one per text of A with --transform (its output, and with se the output's embedding),
// then one per text to embed that is known before the run (se).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "eval/lip/models.hpp"
#include "eval/lip/property_classifier.hpp"
#include "run/row_run.hpp"

namespace invar::lip {

struct LipRowWork {
  const LabelledTexts* original = nullptr;  // A
  std::string transform_model;              // --transform; empty: B is given
  TransformOptions transform;
  std::function<Backend&()> backend;              // opened when a chunk first needs it
  SentenceEmbeddings* embeddings = nullptr;  // --classifier se; null: tf
  std::vector<std::string> to_embed;              // se: the distinct texts to embed known before the run
};

struct LipRows {
  std::unique_ptr<run::RowRun> run;  // null when nothing is computed per row; closed once the outputs are written
  bool writes = true;           // false: this process's part went elsewhere and it writes nothing more
  std::vector<TransformedText> transformed;  // --transform: t(A_i) per text of A
};

// Computes the rows this process owns (spec.rows is set here). Where the process writes the
// output, the embeddings of every row are then in work.embeddings.
LipRows run_lip_rows(run::RowRunSpec spec, const LipRowWork& work);

}  // namespace invar::lip
