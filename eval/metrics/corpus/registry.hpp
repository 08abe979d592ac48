#pragma once
// The corpus metrics by name, as sacrebleu's METRICS: one CorpusMetric base (common.hpp), each
// metric registered with its settings. `invar metric NAME`, the C API, style transfer and isometry
// build metrics here by name; a new corpus metric is its own file in this folder and one row in
// registry.cpp, and gets the CLI's sentence/corpus modes, resampling and signatures from there.
//
// Only model-free metrics are registered here: the front binary `invar` links this registry, so
// nothing it reaches may need a model, word vectors or WordNet (BERTScore, METEOR, WMD live in
// their own folders with their own commands).
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/metrics/corpus/common.hpp"

namespace invar::metrics {

// One setting of a metric. The CLI spells it --NAME (plus `aliases`), the C API's option struct
// has the field NAME with '-' as '_'.
struct MetricSetting {
  enum class Kind { Flag, Integer, Real, Text };
  std::string name;
  Kind kind = Kind::Flag;
  std::string help;
  std::vector<std::string> aliases;  // further CLI spellings: "-t", "--smooth-method"
  std::string shown_default;         // the default help shows; empty: none shown (and none passed)
  // The range the CLI accepts (Integer); the metric's own constructor checks what it cannot compute.
  std::optional<int> min, max;
};

// Settings by name, as text ("true" for a given switch); an absent setting takes the metric's default.
using MetricSettings = std::map<std::string, std::string, std::less<>>;

// What a metric adapts to besides its settings.
struct MetricContext {
  // Sentence scores (sacrebleu's sentence_score: BLEU turns on effective order).
  bool sentence = false;
  // The target language of -l SRC-TRG, or empty: BLEU's tokenizer follows it when none is given.
  std::string target_language;
  // How messages name a setting: "--" on the CLI ("--tokenize"), "BLEU " in the C API.
  std::string setting_prefix = "--";
  // Where advice goes (e.g. a tokenizer that does not suit the target language); none: dropped.
  std::function<void(const std::string&)> warn;
};

struct RegisteredMetric {
  std::string name;         // "bleu", "chrf", "ter"
  std::string description;  // one line
  std::vector<MetricSetting> settings;
  std::function<std::unique_ptr<CorpusMetric>(const MetricSettings&, const MetricContext&)> make;
};

// Every registered metric, in the order the CLI lists them.
const std::vector<RegisteredMetric>& corpus_metrics();
// The metric of that name; fails naming the registered ones.
const RegisteredMetric& corpus_metric(std::string_view name);
// corpus_metric(name).make(settings, context); fails on a setting the metric does not have.
std::unique_ptr<CorpusMetric> make_corpus_metric(std::string_view name, const MetricSettings& settings = {},
                                                 const MetricContext& context = {});

}  // namespace invar::metrics
