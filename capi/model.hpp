#pragma once
// What an invar_model handle holds: the model's files, its backend and the engine facade of its
// kind (TextEncoder for encoders, Translator for seq2seq models), as the CLI's commands open them.
#include <cstddef>
#include <memory>

#include "engine/text_encoder.hpp"
#include "engine/translator.hpp"
#include "invar/invar.h"
#include "backends/backend.hpp"
#include "loaders/model_source.hpp"

struct invar_model {
  std::unique_ptr<invar::ModelSource> source;
  std::unique_ptr<invar::Backend> backend;
  std::unique_ptr<invar::TextEncoder> encoder;    // encoder models
  std::unique_ptr<invar::Translator> translator;  // seq2seq models
  std::size_t batch_size = 32;
  invar_progress_fn progress = nullptr;  // invar_model_set_progress: the in-memory calls' callback
  void* progress_user = nullptr;
};

namespace invar::capi {

// The model's encoder; fails with a KindError naming `call` for a seq2seq model.
TextEncoder& encoder_of(invar_model* model, const char* call);
// The model's translator; fails with a KindError naming `call` for an encoder.
Translator& translator_of(invar_model* model, const char* call);

// Hands `done` of `total` inputs to the model's progress callback, if any; throws Stopped when it
// returns nonzero.
void report_progress(const invar_model& model, std::size_t done, std::size_t total);
// Batches of the model's batch size whose progress goes to the model's callback, over `total` inputs.
BatchOptions reporting_batches(const invar_model& model, std::size_t total);

}  // namespace invar::capi
