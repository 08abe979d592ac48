// The model facade: wires the parts (engine/seq2seq/model.hpp) and runs the three entry points,
// teacher-forced logits, search and forced-decoding scores, on them.
#include "engine/seq2seq.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "engine/decode/logits_processors.hpp"
#include "engine/seq2seq/model.hpp"

namespace invar {

Seq2SeqModel::Impl::Impl(const ModelSource& source, Backend& backend_ref)
    : config(load_model_config(source)),
      spec(seq2seq_spec(config)),
      generation(load_generation_config(source, config)),
      backend(backend_ref),
      weights(source, backend_ref, seq2seq_weight_names(spec, config)),
      defaults(search_defaults(generation, config, spec)),
      stacks(seq2seq::load_weights(weights, config, spec)),
      layers(weights, backend_ref, spec),
      cache(backend_ref, static_cast<std::int64_t>(stacks.decoder.layers.size()), spec.decoder.attention_width()),
      head(weights, backend_ref, stacks.lm_head, stacks.logits_bias),
      encoder_arena_(backend_ref.make_arena()),
      step_arena_(backend_ref.make_arena()) {}

namespace {

// The search's view of the model: rows of one generate() call.
class ModelSteps final : public StepModel {
 public:
  explicit ModelSteps(Seq2SeqModel::Impl& model) : model_(model) {}
  std::int64_t vocab_size() const override { return model_.spec.decoder.vocab; }
  void step(std::span<const std::int32_t> tokens, std::vector<float>& logits) override {
    model_.decode(TokenIds(tokens.begin(), tokens.end()), 1, true, logits);
  }
  bool prefers_top_k() const override { return model_.backend.prefers_top_k_rows(); }
  void step_top_k(std::span<const std::int32_t> tokens, std::int64_t k, std::int32_t exclude, TopLogits& top) override {
    model_.decode_top_k(TokenIds(tokens.begin(), tokens.end()), k, exclude, top);
  }
  void select_rows(std::span<const std::int32_t> rows) override { model_.select_rows(rows); }
  void parallel_rows(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body) override {
    model_.backend.parallel_rows(n, body);
  }

 private:
  Seq2SeqModel::Impl& model_;
};

std::vector<TokenIds> padded(const std::vector<TokenIds>& sequences, std::int32_t pad, std::int64_t& length) {
  length = 0;
  for (const auto& s : sequences) length = std::max<std::int64_t>(length, static_cast<std::int64_t>(s.size()));
  std::vector<TokenIds> out = sequences;
  for (auto& s : out) s.resize(static_cast<std::size_t>(length), pad);
  return out;
}

}  // namespace

Seq2SeqModel::Seq2SeqModel(const ModelSource& source, Backend& backend)
    : impl_(std::make_unique<Impl>(source, backend)) {}
Seq2SeqModel::~Seq2SeqModel() = default;

const Seq2SeqSpec& Seq2SeqModel::spec() const { return impl_->spec; }
const ModelConfig& Seq2SeqModel::config() const { return impl_->config; }
std::size_t Seq2SeqModel::weight_bytes() const { return impl_->weights.bytes(); }
const WeightUses& Seq2SeqModel::weight_uses() const { return impl_->weights.uses(); }
const SearchSettings& Seq2SeqModel::default_settings() const { return impl_->defaults; }
void Seq2SeqModel::check_sources(const std::vector<TokenIds>& sources) const { impl_->check_sources(sources); }

std::vector<float> Seq2SeqModel::encode(const std::vector<TokenIds>& sources) {
  std::vector<float> hidden;
  impl_->encode(sources, &hidden);
  return hidden;
}

std::vector<float> Seq2SeqModel::decoder_logits(const std::vector<TokenIds>& sources,
                                                const std::vector<TokenIds>& decoder_inputs) {
  if (sources.size() != decoder_inputs.size()) fail("{} sources but {} decoder inputs", sources.size(), decoder_inputs.size());
  if (sources.empty()) return {};
  impl_->encode(sources, nullptr);
  std::int64_t length = 0;
  const auto inputs = padded(decoder_inputs, impl_->spec.pad_token_id, length);
  if (length == 0) fail("decoder inputs are empty");
  impl_->head.restrict({});
  impl_->cache.start(static_cast<std::int64_t>(sources.size()), 1, length);
  TokenIds flat;
  for (const auto& s : inputs) flat.insert(flat.end(), s.begin(), s.end());
  std::vector<float> logits;
  impl_->decode(flat, length, false, logits);
  return logits;
}

std::vector<std::vector<Hypothesis>> Seq2SeqModel::generate(const std::vector<TokenIds>& sources,
                                                            const SearchSettings& settings,
                                                            std::vector<std::int32_t> shortlist) {
  settings.validate(impl_->spec.decoder.vocab);
  if (impl_->spec.max_positions > 0 && settings.max_length > impl_->spec.max_positions)
    fail("max_length {} exceeds the model's {} positions (max_position_embeddings)", settings.max_length,
         impl_->spec.max_positions);
  if (sources.empty()) return {};
  impl_->encode(sources, nullptr);
  const std::int64_t batch = static_cast<std::int64_t>(sources.size());
  const std::int64_t per_source = rows_per_source(settings);
  const bool beams = settings.num_beams > 1;
  // Beams of a source share its cross-attention group; sampled rows finish one by one, so each
  // gets a group of its own.
  impl_->cache.start(batch, beams ? per_source : 1, std::min<std::int64_t>(settings.max_length, 64));
  if (!beams) impl_->expand_groups(per_source);
  ModelSteps steps(*impl_);
  if (shortlist.empty()) {
    impl_->head.restrict({});
    return invar::generate(steps, static_cast<int>(batch), settings, sources);
  }
  return seq2seq::generate_shortlisted(steps, impl_->head, static_cast<int>(batch), settings, sources,
                                       std::move(shortlist), impl_->spec.decoder.vocab);
}

std::vector<std::vector<float>> Seq2SeqModel::classify(const std::vector<TokenIds>& inputs) {
  return impl_->classify(inputs);
}

std::vector<double> Seq2SeqModel::score(const std::vector<TokenIds>& sources, const std::vector<TokenIds>& targets,
                                        std::size_t given) {
  if (sources.size() != targets.size()) fail("{} sources but {} targets", sources.size(), targets.size());
  std::vector<TokenIds> inputs;
  for (const auto& target : targets) {
    if (target.size() <= given) fail("a target to score has no tokens after the {} given", given);
    for (std::int32_t id : target)
      if (id < 0 || id >= impl_->spec.decoder.vocab)
        fail("target token id {} is outside the vocabulary ({})", id, impl_->spec.decoder.vocab);
    TokenIds input{impl_->spec.decoder_start_token_id};
    input.insert(input.end(), target.begin(), target.end() - 1);
    inputs.push_back(std::move(input));
  }
  const auto logits = decoder_logits(sources, inputs);
  std::int64_t length = 0;
  for (const auto& s : inputs) length = std::max<std::int64_t>(length, static_cast<std::int64_t>(s.size()));
  const std::size_t vocab = static_cast<std::size_t>(impl_->spec.decoder.vocab);
  std::vector<double> scores;
  for (std::size_t b = 0; b < targets.size(); ++b) {
    double total = 0.0;
    for (std::size_t t = given; t < targets[b].size(); ++t) {
      const std::span<const float> row(logits.data() + (b * static_cast<std::size_t>(length) + t) * vocab, vocab);
      total += log_softmax_terms(row)(row[static_cast<std::size_t>(targets[b][t])]);
    }
    scores.push_back(total);
  }
  return scores;
}

}  // namespace invar
