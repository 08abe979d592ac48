#include "engine/encoder_run.hpp"

#include <span>

#include "core/error.hpp"

namespace invar {

EncoderRun::EncoderRun(std::unique_ptr<ModelSource> source, std::unique_ptr<Backend> backend, EncoderRunOptions options)
    : options_(std::move(options)), source_(std::move(source)), backend_(std::move(backend)), encoder_(*source_, *backend_) {
  if (options_.max_length > 0) encoder_.cap_length(options_.max_length);
}

std::int64_t resolve_layer(std::int64_t layers, std::int64_t layer, std::string_view name) {
  if (layer > layers || layer < -(layers + 1))
    fail("{} {} does not exist: the model has layers 0 (embeddings) to {}", name, layer, layers);
  return layer < 0 ? layers + 1 + layer : layer;
}

std::int64_t EncoderRun::layer() { return resolve_layer(model().spec().layers, options_.layer, "--layer"); }

std::size_t EncoderRun::line(std::size_t index) const {
  return options_.lines.empty() ? index + 1 : options_.lines.at(index);
}

void EncoderRun::check(const Encoding& encoding, std::size_t index, bool any_length) {
  try {
    if (any_length) model().check_tokens(encoding);
    else model().check_inputs(std::span(&encoding, 1));
  } catch (const Error& e) {
    fail("{}:{}: {}", options_.input == "-" ? "<stdin>" : options_.input, line(index), e.what());
  }
}

std::vector<Encoding> EncoderRun::encode(const std::vector<TextInput>& lines, std::size_t begin, std::size_t end,
                                         bool pairs) {
  auto out = encoder_.encode({lines.begin() + begin, lines.begin() + end}, pairs, cut_);
  for (std::size_t i = 0; i < out.size(); ++i) check(out[i], begin + i);
  return out;
}

std::vector<Encoding> EncoderRun::encode_premises(const std::vector<TextInput>& lines, std::size_t begin,
                                                  std::size_t end, const std::vector<std::string>& hypotheses) {
  std::vector<TextInput> pairs;
  pairs.reserve((end - begin) * hypotheses.size());
  for (std::size_t i = begin; i < end; ++i)
    for (const auto& hypothesis : hypotheses) pairs.push_back({lines[i].first, hypothesis});
  auto out = encoder_.encode(pairs, true, cut_);
  for (std::size_t k = 0; k < out.size(); ++k) check(out[k], begin + k / hypotheses.size());
  return out;
}

BatchOptions EncoderRun::batches(std::function<void(std::size_t)> progress) const {
  return {options_.batch_size, std::move(progress), options_.batch_tokens};
}

}  // namespace invar
