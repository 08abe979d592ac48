#pragma once
// The encoder-decoder families as specs: what differs between Marian, BART, mBART, Pegasus,
// M2M100/NLLB, FSMT and T5 is data (norm placement, positions, scaling, tying), read from
// config.json (models/hf_config) and the family table (models/family), plus a table from Hugging
// Face weight names to the engine's canonical names. One implementation (engine/seq2seq.cpp) runs
// them all.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/activation.hpp"
#include "models/family.hpp"
#include "models/hf_config.hpp"
#include "models/weight_name.hpp"

namespace invar {

// The sizes of one stack. Hugging Face sizes the encoder and the decoder independently (the BART
// family's encoder_*/decoder_* fields, FSMT's src/tgt vocabularies, Marian's decoder_vocab_size,
// T5's num_decoder_layers), so nothing about one stack is assumed of the other. The decoder's
// cross-attention has the decoder's heads.
struct StackSizes {
  std::int64_t layers = 0;
  std::int64_t heads = 0;
  std::int64_t head_dim = 0;  // d_model / heads; T5's d_kv
  std::int64_t ffn = 0;
  std::int64_t vocab = 0;     // the embedding rows (the decoder's: the LM head's too)
  std::int64_t attention_width() const { return heads * head_dim; }  // d_model except for T5
};

struct Seq2SeqSpec {
  ModelFamily family = ModelFamily::Marian;
  std::string model_type;  // as config.json says: "marian", "bart", "mbart", "pegasus", "m2m_100", "fsmt", "t5"
  std::int64_t d_model = 0;
  StackSizes encoder, decoder;
  std::int64_t max_positions = 0;  // longest sequence; 0 = no limit (T5)

  PositionKind positions = PositionKind::Learned;
  std::int64_t position_offset = 0;  // table row of position 0
  bool pre_norm = false;             // normalise before each sublayer (else after the residual add)
  bool rms_norm = false;             // T5LayerNorm instead of LayerNorm
  float norm_eps = 1e-5f;
  bool layernorm_embedding = false;  // LayerNorm right after the embeddings (BART, mBART)
  bool final_norm = false;           // a norm after the last layer of each stack
  float embed_scale = 1.0f;          // sqrt(d_model) with scale_embedding
  bool attention_scaling = true;     // q·k scaled by head_dim^-0.5 (T5: not scaled)
  bool gated_ffn = false;            // T5 v1.1 "gated-gelu": act(x·wi_0) * (x·wi_1)
  Activation activation = Activation::GeluErf;
  bool final_logits_bias = false;
  bool beam_masks_pad = false;       // Marian: the pad token is never predicted in beam search
  float lm_input_scale = 1.0f;       // T5 with tied embeddings: d_model^-0.5 before the LM head
  std::int64_t relative_buckets = 0, relative_max_distance = 0;

  std::int32_t pad_token_id = 0;
  std::int32_t eos_token_id = 0;
  std::int32_t decoder_start_token_id = 0;

  // BartForSequenceClassification / MBartForSequenceClassification (config.json's architectures):
  // a head, dense → tanh → out_proj, on the decoder's state at each input's last EOS.
  bool sequence_classifier = false;
  std::int64_t num_labels = 0;
};

// The spec of a parsed config.json; fails naming the file for a model that is not an
// encoder-decoder (e.g. "bert is an encoder-only model") or whose sizes do not fit together.
Seq2SeqSpec seq2seq_spec(const ModelConfig& config);

// Canonical names: "{enc,dec}.embed_tokens", "{enc,dec}.embed_positions", "{enc,dec}.embed_norm.{weight,bias}",
// "{enc,dec}.final_norm.{weight,bias}", "{enc,dec}.relative_attention_bias",
// "{enc,dec}.layers.N.{self_attn,cross_attn}.{q,k,v,o}.{weight,bias}",
// "{enc,dec}.layers.N.{self_attn_norm,cross_attn_norm,ffn_norm}.{weight,bias}",
// "{enc,dec}.layers.N.ffn.{in,gate,out}.{weight,bias}", "lm_head", "final_logits_bias",
// "classifier.{dense,out_proj}.{weight,bias}" for a sequence classifier.
std::vector<WeightName> seq2seq_weight_names(const Seq2SeqSpec& spec, const ModelConfig& config);

}  // namespace invar
