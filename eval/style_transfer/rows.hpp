#pragma once
// The per-segment work of `invar st-eval` as one row run (run/row_run.hpp): a row is one system
// output, its record every metric's value on it. Split over the --shard parts or the mpirun ranks
// and resumable beside --output; the meta-evaluation is then made from every row by the process that
// writes the output.
//
// The rows are the segments system by system, each system's padded with empty rows to a whole
// number of BERTScore batches (--bertscore-batch-size), and a chunk is eight such batches: a chunk
// then holds whole matching batches of each system, so bert_score's batch-padding floor falls as in
// one call over the system, whichever process computes it.
#include <memory>
#include <vector>

#include "eval/style_transfer/scores.hpp"
#include "run/row_run.hpp"

namespace invar::style_transfer {

// Computes the rows this process owns (spec.rows, spec.chunk and the segments' content in the
// fingerprint are set here). Null when this process's part went elsewhere; otherwise `out` holds
// every segment's scores, and the run is closed once the output is written.
std::unique_ptr<run::RowRun> run_segment_rows(run::RowRunSpec spec, const std::vector<Segment>& segments,
                                              Models& models, Scores& out);

}  // namespace invar::style_transfer
