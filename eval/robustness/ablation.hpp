#pragma once
// Layer ablation (La Malfa & Kwiatkowska 2022, Figure 3): how much of a phenomenon each layer of an
// encoder already separates. For every layer 0 (embeddings) .. L, the pooled hidden states of the
// training texts train an L2 logistic-regression probe (eval/learn, liblinear as scikit-learn
// calls it), whose accuracy is then measured on the task's test set and on each phenomenon set.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/text_encoder.hpp"
#include "eval/learn/logreg.hpp"
#include "eval/robustness/scoring.hpp"

namespace invar::robustness {

struct AblationOptions {
  std::vector<Pooling> pooling;  // empty: the model's own (modules.json, else mean)
  learn::LogisticRegressionOptions regression;
  BatchOptions batches;
};

struct LayerResult {
  std::int64_t layer = 0;
  Accuracy train;
  Accuracy task;
  std::vector<Accuracy> phenomena;  // per Bed::phenomena
};

struct Ablation {
  std::string model;
  std::string pooling;               // e.g. "mean"
  std::vector<std::string> classes;  // the probe's classes: the training labels, sorted
  std::size_t train_texts = 0;
  std::vector<LayerResult> layers;   // 0 .. L
};

// Fails when the training set has fewer than two labels, or a task or phenomenon label never
// occurs in it. Each layer re-runs the encoder up to that layer.
Ablation ablate(TextEncoder& encoder, const LabelledSet& train, const Bed& bed, const AblationOptions& options);

}  // namespace invar::robustness
