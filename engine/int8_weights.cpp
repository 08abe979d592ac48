#include "engine/int8_weights.hpp"

#include "backends/registry.hpp"
#include "engine/encoder.hpp"
#include "engine/seq2seq.hpp"
#include "models/family.hpp"
#include "models/hf_config.hpp"

namespace invar {

std::set<std::string> int8_weight_names(const ModelSource& source) {
  // Deterministic: F32 weights stay zero-copy views of the file rather than being packed.
  auto backend = make_backend("cpu", {.threads = 1, .deterministic = true});
  const auto names = [](const WeightUses& uses) {
    std::set<std::string> matrices;
    for (const auto& [name, how] : uses)
      if (how == std::set{WeightUse::Matrix}) matrices.insert(name);
    return matrices;
  };
  if (family(load_model_config(source).family).kind == ModelKind::Encoder)
    return names(EncoderModel(source, *backend).weight_uses());
  return names(Seq2SeqModel(source, *backend).weight_uses());
}

}  // namespace invar
