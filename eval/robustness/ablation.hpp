#pragma once
// Layer ablation (La Malfa & Kwiatkowska 2022, Figure 3): how much of a phenomenon each layer of an
// encoder already separates. For every layer 0 (embeddings) .. L, a head is trained on the frozen
// states of the training texts after that many layers, and its accuracy measured on the task's test
// set and on each phenomenon set. Two heads: Linear, an L2 logistic-regression probe on the pooled
// states (eval/learn, liblinear as scikit-learn calls it); Mlp, the paper's head, a one-hidden-layer
// ReLU network on the token states of the first `head_tokens` positions flattened (texts cut to that
// many tokens, shorter ones padded with zero vectors; eval/learn/mlp.hpp).
// The features are computed as one row run (run/row_run.hpp: --resume, --shard, mpirun), the probes
// fitted afterwards on every row by the process that writes the output.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/text_encoder.hpp"
#include "eval/learn/logreg.hpp"
#include "eval/learn/mlp.hpp"
#include "eval/robustness/scoring.hpp"
#include "run/row_run.hpp"

namespace invar::robustness {

enum class Head { Linear, Mlp };
Head parse_head(const std::string& name);  // "linear", "mlp"

struct AblationOptions {
  Head head = Head::Linear;
  std::vector<Pooling> pooling;  // Linear: empty = the model's own (modules.json, else mean)
  learn::LogisticRegressionOptions regression;
  std::size_t head_tokens = 50;  // Mlp: the positions kept (the authors' ablation uses 50)
  learn::MlpOptions mlp;
  std::size_t batch_size = 32;
};

struct LayerResult {
  std::int64_t layer = 0;
  Accuracy train;
  Accuracy task;
  std::vector<Accuracy> phenomena;  // per Bed::phenomena
};

struct Ablation {
  std::string model;
  std::string head;                  // what was trained, in words
  std::string pooling;               // e.g. "mean"; "tokens" for the MLP head
  std::vector<std::string> classes;  // the probe's classes: the training labels, sorted
  std::size_t train_texts = 0;
  std::vector<LayerResult> layers;   // 0 .. L
};

// The head's features of every layer 0 .. L (each layer re-runs the encoder up to it): a row is
// one text under one layer, layer by layer, each over the training texts and then the bed's
// (all_texts order); its record the text's features, exactly. spec.rows is set here. Null when this
// process's part went elsewhere; otherwise `features` holds them by layer and text, and the run is
// closed once the output is written. Fails first, before any model work, as ablate() does.
std::unique_ptr<run::RowRun> run_layer_rows(run::RowRunSpec spec, TextEncoder& encoder, const LabelledSet& train,
                                            const Bed& bed, const AblationOptions& options,
                                            std::vector<PerInput>& features);

// The probes on `features` (from run_layer_rows). Fails when the training set has fewer than two
// labels, or a task or phenomenon label never occurs in it.
Ablation ablate(TextEncoder& encoder, const LabelledSet& train, const Bed& bed, const AblationOptions& options,
                const std::vector<PerInput>& features);

}  // namespace invar::robustness
