// Encoder calls: embed, classify and pseudo-log-likelihood, as `invar embed`, `classify` and `pll`
// compute them (tools/cmd_encode.cpp), on TextEncoder.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "capi/file_job.hpp"
#include "capi/guard.hpp"
#include "capi/model.hpp"
#include "capi/results.hpp"
#include "core/json_number.hpp"
#include "engine/encoder_run.hpp"

namespace invar::capi {
namespace {

std::vector<TextInput> text_inputs(const char* const* texts, const char* const* second_texts, std::size_t count) {
  std::vector<TextInput> inputs;
  inputs.reserve(count);
  for (std::size_t i = 0; i < count; ++i) inputs.push_back({texts[i], second_texts ? second_texts[i] : ""});
  return inputs;
}

std::string text_index(std::size_t i) { return fmt::format("texts[{}]", i); }

// Tokenized inputs truncated to `limit` (counted in `truncated`); fails naming (by `where`) the
// text whose ids the model cannot take.
std::vector<Encoding> encode(TextEncoder& encoder, const std::vector<TextInput>& inputs, bool pairs,
                             std::size_t limit, std::size_t& truncated,
                             const std::function<std::string(std::size_t)>& where = text_index) {
  auto encodings = encoder.encode(inputs, pairs, truncated, limit);
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    try {
      encoder.model().check_inputs(std::span(&encodings[i], 1));
    } catch (const Error& e) {
      fail("{}: {}", where(i), e.what());
    }
  }
  return encodings;
}

BatchOptions batches(const invar_model& model) { return {.batch_size = model.batch_size}; }

// `require` (EncoderModel::require_classifier, require_mlm) failing is a KindError: the model lacks the head.
template <typename Require>
void require_head(const EncoderModel& model, Require require) {
  try {
    (model.*require)();
  } catch (const Error& e) {
    throw KindError(e.what());
  }
}

void fill(invar_classification& out, const EncoderSpec& spec, const PerInput& logits) {
  out.count = logits.size();
  out.labels = static_cast<std::size_t>(spec.num_labels);
  out.regression = spec.regression ? 1 : 0;
  std::vector<std::string> names = spec.labels;
  names.resize(out.labels);  // one name per logit, whatever config.json held
  out.label_names = new_strings(names);
  out.logits = new float[out.count * out.labels];
  out.best = new std::int64_t[out.count];
  if (!spec.regression) out.probabilities = new float[out.count * out.labels];
  for (std::size_t i = 0; i < logits.size(); ++i) {
    std::copy(logits[i].begin(), logits[i].end(), out.logits + i * out.labels);
    const auto best = spec.regression ? std::nullopt : best_label(logits[i]);
    out.best[i] = best ? static_cast<std::int64_t>(*best) : -1;
    if (spec.regression) continue;
    const auto probs = label_probabilities(logits[i], spec.multi_label);
    std::copy(probs.begin(), probs.end(), out.probabilities + i * out.labels);
  }
}

}  // namespace
}  // namespace invar::capi

using namespace invar::capi;

extern "C" {

invar_status invar_embed(invar_model* model, const char* const* texts, size_t count, invar_embeddings** embeddings) {
  if (embeddings != nullptr) *embeddings = nullptr;
  return guarded([&] {
    invar::TextEncoder& encoder = encoder_of(model, "embed");
    require_texts(texts, count, "texts");
    require(embeddings, "embeddings");
    const invar::EmbeddingSettings settings = encoder.default_embedding_settings();
    std::size_t truncated = 0;
    const auto inputs = encode(encoder, text_inputs(texts, nullptr, count), false, encoder.embedding_length(), truncated);
    const auto vectors = encoder.embed(inputs, settings, reporting_batches(*model, count));
    Result<invar_embeddings, invar_embeddings_free> out;
    out->count = count;
    out->truncated = truncated;
    out->dimension = encoder.embedding_width(settings);
    out->values = new float[count * out->dimension];
    for (std::size_t i = 0; i < count; ++i) std::copy(vectors[i].begin(), vectors[i].end(), out->values + i * out->dimension);
    *embeddings = out.release();
  });
}

invar_status invar_embed_file(invar_model* model, const char* input, const char* output,
                              const invar_run_options* run) {
  return guarded([&] {
    invar::TextEncoder& encoder = encoder_of(model, "embed_file");
    const invar::EmbeddingSettings settings = encoder.default_embedding_settings();
    run_file_job({.input = input,
                  .output = output,
                  .run = run,
                  .settings = {"embed", "--model", encoder.source().path(), "--batch-size",
                               std::to_string(model->batch_size)},
                  .chunk = 8 * model->batch_size,
                  .work = [&](std::span<const std::string> lines, std::size_t first) {
                    std::vector<invar::TextInput> inputs;
                    for (const auto& line : lines) inputs.push_back({line, ""});
                    std::size_t truncated = 0;
                    const auto encodings =
                        encode(encoder, inputs, false, encoder.embedding_length(), truncated,
                               [&](std::size_t i) { return fmt::format("{}:{}", input, first + i + 1); });
                    std::vector<std::string> records;
                    for (const auto& vector : encoder.embed(encodings, settings, batches(*model)))
                      records.push_back(R"({"embedding": )" + invar::json_array_text(vector) + "}");
                    return records;
                  }});
  });
}

void invar_embeddings_free(invar_embeddings* embeddings) {
  if (embeddings == nullptr) return;
  delete[] embeddings->values;
  delete embeddings;
}

invar_status invar_classify(invar_model* model, const char* const* texts, const char* const* second_texts,
                            size_t count, invar_classification** classification) {
  if (classification != nullptr) *classification = nullptr;
  return guarded([&] {
    invar::TextEncoder& encoder = encoder_of(model, "classify");
    require_texts(texts, count, "texts");
    if (second_texts != nullptr) require_texts(second_texts, count, "second_texts");
    require(classification, "classification");
    require_head(encoder.model(), &invar::EncoderModel::require_classifier);
    const bool pairs = second_texts != nullptr;
    std::size_t truncated = 0;
    const auto inputs = encode(encoder, text_inputs(texts, second_texts, count), pairs, encoder.max_length(), truncated);
    const auto logits = encoder.logits(inputs, reporting_batches(*model, count));
    Result<invar_classification, invar_classification_free> out;
    fill(*out, encoder.model().spec(), logits);
    out->truncated = truncated;
    *classification = out.release();
  });
}

void invar_classification_free(invar_classification* classification) {
  if (classification == nullptr) return;
  delete_strings(classification->label_names, classification->labels);
  delete[] classification->logits;
  delete[] classification->probabilities;
  delete[] classification->best;
  delete classification;
}

invar_status invar_pseudo_log_likelihood(invar_model* model, const char* text, invar_pll** pll) {
  if (pll != nullptr) *pll = nullptr;
  return guarded([&] {
    invar::TextEncoder& encoder = encoder_of(model, "pseudo_log_likelihood");
    require(text, "text");
    require(pll, "pll");
    require_head(encoder.model(), &invar::EncoderModel::require_mlm);
    const auto mask = encoder.tokenizer().mask_id();
    if (!mask) throw KindError(fmt::format("{}: the tokenizer has no mask token", encoder.source().path()));
    // Not truncated: a text longer than the model is scored in overlapping windows.
    const auto result = encoder.pll(encoder.tokenizer().encode(text), *mask);
    Result<invar_pll, invar_pll_free> out;
    out->tokens = result.per_token.size();
    out->per_token = new_array<double>(result.per_token);
    for (double v : result.per_token) out->total += v;
    out->windows = result.windows;
    *pll = out.release();
  });
}

void invar_pll_free(invar_pll* pll) {
  if (pll == nullptr) return;
  delete[] pll->per_token;
  delete pll;
}

invar_status invar_hidden_states(invar_model* model, const char* const* texts, size_t count, int64_t layer,
                                 invar_hidden** states) {
  if (states != nullptr) *states = nullptr;
  return guarded([&] {
    invar::TextEncoder& encoder = encoder_of(model, "hidden_states");
    require_texts(texts, count, "texts");
    require(states, "states");
    std::int64_t resolved = 0;
    try {
      resolved = invar::resolve_layer(encoder.model().spec().layers, layer, "layer");
    } catch (const invar::Error& e) {
      throw ArgumentError(e.what());
    }
    std::size_t truncated = 0;
    const auto inputs = encode(encoder, text_inputs(texts, nullptr, count), false, encoder.max_length(), truncated);
    const auto hidden = encoder.batched<std::vector<float>>(
        inputs, reporting_batches(*model, count),
        [&](std::span<const invar::Encoding> batch) { return encoder.model().hidden_states(batch, resolved); });
    Result<invar_hidden, invar_hidden_free> out;
    out->width = static_cast<std::size_t>(encoder.model().spec().hidden);
    out->truncated = truncated;
    out->lengths = new std::size_t[count]();
    out->ids = new std::int32_t*[count]();
    out->values = new float*[count]();
    out->count = count;
    for (std::size_t i = 0; i < count; ++i) {
      out->lengths[i] = inputs[i].ids.size();
      out->ids[i] = new_array<std::int32_t>(inputs[i].ids);
      out->values[i] = new_array<float>(hidden[i]);
    }
    *states = out.release();
  });
}

void invar_hidden_free(invar_hidden* states) {
  if (states == nullptr) return;
  for (std::size_t i = 0; i < states->count; ++i) {
    if (states->ids != nullptr) delete[] states->ids[i];
    if (states->values != nullptr) delete[] states->values[i];
  }
  delete[] states->lengths;
  delete[] states->ids;
  delete[] states->values;
  delete states;
}

}  // extern "C"
