#pragma once
// Loading an encoder-decoder's weights into the layout engine/seq2seq runs: both stacks with their
// embeddings, positions (stored, or computed sinusoidal tables) and norms, the LM head and its bias.
#include "engine/model_weights.hpp"
#include "engine/seq2seq/layers.hpp"
#include "models/hf_config.hpp"
#include "models/seq2seq_spec.hpp"

namespace invar::seq2seq {

struct Weights {
  Stack encoder, decoder;
  Tensor lm_head;      // [target vocab, d_model]
  Tensor logits_bias;  // [target vocab], or empty
  Linear classifier_dense, classifier_out;  // a sequence classifier's head: [d, d], [num_labels, d]
};

// Fails naming the file for a weight missing or misshapen.
Weights load_weights(ModelWeights& weights, const ModelConfig& config, const Seq2SeqSpec& spec);

}  // namespace invar::seq2seq
