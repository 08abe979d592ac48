#pragma once
// An encoder model opened for a run over line-aligned inputs (`invar embed`, `similarity`, `hidden`,
// `classify`, `pll`): the model file, its backend and the TextEncoder, with the length cap applied,
// --layer resolved, every input checked against the model (errors name the input line) and the
// truncated inputs counted.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/text_encoder.hpp"
#include "backends/backend.hpp"
#include "loaders/model_source.hpp"

namespace invar {

// `layer` as a count of layers run of a model of `layers` layers: 0 = the embeddings, negative
// counts from the end (-1 = the last); fails naming the setting (`name`) when there is no such layer.
std::int64_t resolve_layer(std::int64_t layers, std::int64_t layer, std::string_view name);

struct EncoderRunOptions {
  std::size_t max_length = 0;   // 0 = the model's limit
  std::int64_t layer = -1;      // hidden states after this layer; negative counts from the end
  std::string input = "-";      // the input file, for messages ("-" = standard input)
  std::vector<std::size_t> lines;  // the input line of each text (a header or CSV record shifts them); empty = text i is line i + 1
  std::size_t batch_size = 32;
  std::size_t batch_tokens = 0;  // 0 = batches cut by batch_size only
};

class EncoderRun {
 public:
  EncoderRun(std::unique_ptr<ModelSource> source, std::unique_ptr<Backend> backend, EncoderRunOptions options);

  EncoderRun(const EncoderRun&) = delete;
  EncoderRun& operator=(const EncoderRun&) = delete;

  TextEncoder& encoder() { return encoder_; }
  const TextEncoder& encoder() const { return encoder_; }
  EncoderModel& model() { return encoder_.model(); }

  // The layer options.layer names, as a count of layers run.
  std::int64_t layer();

  // The input line of text `index`, for messages.
  std::size_t line(std::size_t index) const;

  // Fails naming the input file and the line of text `index` when the model cannot take `encoding`
  // (a token id beyond its vocabulary: tokenizer files that do not belong to the model); `any_length`
  // for pll, which scores a long input in windows.
  void check(const Encoding& encoding, std::size_t index, bool any_length = false);

  // Tokenizes lines[begin, end), truncating to the limit (counted in truncated()); errors name
  // the input line of each.
  std::vector<Encoding> encode(const std::vector<TextInput>& lines, std::size_t begin, std::size_t end, bool pairs);
  // Each of lines[begin, end) (its first text, the premise) paired with every hypothesis, in that
  // order, as the zero-shot-classification pipeline builds its pairs; errors name the line.
  std::vector<Encoding> encode_premises(const std::vector<TextInput>& lines, std::size_t begin, std::size_t end,
                                        const std::vector<std::string>& hypotheses);
  std::size_t truncated() const { return cut_; }

  // The batch size and token cap of the options, reporting finished inputs to `progress`.
  BatchOptions batches(std::function<void(std::size_t)> progress) const;

 private:
  EncoderRunOptions options_;
  std::unique_ptr<ModelSource> source_;
  std::unique_ptr<Backend> backend_;
  TextEncoder encoder_;
  std::size_t cut_ = 0;
};

}  // namespace invar
