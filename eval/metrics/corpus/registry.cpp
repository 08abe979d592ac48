#include "eval/metrics/corpus/registry.hpp"

#include <fmt/format.h>

#include <charconv>

#include "core/error.hpp"
#include "eval/metrics/corpus/bleu.hpp"
#include "eval/metrics/corpus/chrf.hpp"
#include "eval/metrics/corpus/ter.hpp"

namespace invar::metrics {

namespace {

using Kind = MetricSetting::Kind;

// Typed reads of the given settings, with messages that name the setting as the caller spells it.
class SettingReader {
 public:
  SettingReader(const MetricSettings& settings, const MetricContext& context) : settings_(settings), context_(context) {}

  std::optional<std::string> text(std::string_view name) const {
    const auto found = settings_.find(name);
    if (found == settings_.end()) return std::nullopt;
    return found->second;
  }
  bool flag(std::string_view name) const { return text(name).value_or("false") == "true"; }
  template <typename Number>
  std::optional<Number> number(std::string_view name) const {
    const auto value = text(name);
    if (!value) return std::nullopt;
    Number out{};
    const auto [end, error] = std::from_chars(value->data(), value->data() + value->size(), out);
    if (error != std::errc() || end != value->data() + value->size())
      fail("{} must be a number, got '{}'", label(name), *value);
    return out;
  }
  std::string label(std::string_view name) const { return context_.setting_prefix + std::string(name); }

 private:
  const MetricSettings& settings_;
  const MetricContext& context_;
};

std::string bleu_tokenizer(const SettingReader& read, const MetricContext& context) {
  const auto suited = tokenizer_for_language(context.target_language);
  const auto name = read.text("tokenize");
  if (!name) return suited;
  if (!has_tokenizer(*name)) fail("{} must be {}, got '{}'", read.label("tokenize"), tokenizer_choices(), *name);
  // sacrebleu: an explicit tokenizer wins, with advice when it does not suit the target language.
  if (!context.target_language.empty() && suited != "13a" && *name != suited && context.warn)
    context.warn(fmt::format("consider {} {} for target language '{}'", read.label("tokenize"), suited,
                             context.target_language));
  return *name;
}

std::unique_ptr<CorpusMetric> make_bleu(const MetricSettings& settings, const MetricContext& context) {
  const SettingReader read(settings, context);
  BleuOptions options;
  options.tokenize = bleu_tokenizer(read, context);
  const auto smooth_name = read.text("smooth").value_or("exp");
  const auto smooth = parse_bleu_smoothing(smooth_name);
  if (!smooth) fail("{} must be exp, floor, add-k or none, got '{}'", read.label("smooth"), smooth_name);
  options.smooth = *smooth;
  options.smooth_value = read.number<double>("smooth-value");
  if (options.smooth_value && options.smooth != BleuSmoothing::Floor && options.smooth != BleuSmoothing::AddK)
    fail("{} applies to floor and add-k smoothing only", read.label("smooth-value"));
  options.lowercase = read.flag("lowercase");
  options.effective_order = read.flag("effective-order") || context.sentence;
  options.max_ngram_order = read.number<int>("max-ngram-order").value_or(kBleuMaxOrder);
  return std::make_unique<Bleu>(options);
}

std::unique_ptr<CorpusMetric> make_chrf(const MetricSettings& settings, const MetricContext& context) {
  const SettingReader read(settings, context);
  const ChrfOptions defaults;
  return std::make_unique<ChrF>(ChrfOptions{.char_order = read.number<int>("char-order").value_or(defaults.char_order),
                                            .word_order = read.number<int>("word-order").value_or(defaults.word_order),
                                            .beta = read.number<int>("beta").value_or(defaults.beta),
                                            .lowercase = read.flag("lowercase"),
                                            .whitespace = read.flag("whitespace"),
                                            .eps_smoothing = read.flag("eps-smoothing")});
}

std::unique_ptr<CorpusMetric> make_ter(const MetricSettings& settings, const MetricContext& context) {
  const SettingReader read(settings, context);
  return std::make_unique<Ter>(TerOptions{.normalized = read.flag("normalized"),
                                          .no_punct = read.flag("no-punct"),
                                          .asian_support = read.flag("asian-support"),
                                          .case_sensitive = read.flag("case-sensitive")});
}

std::vector<RegisteredMetric> registered() {
  const auto lowercase = MetricSetting{"lowercase", Kind::Flag, "Case-insensitive (Python str.lower())"};
  return {
      {"bleu",
       "BLEU (Papineni et al. 2002) as sacrebleu 2.4.3 computes it",
       {{"tokenize", Kind::Text,
         fmt::format("Tokenizer: {} (default: 13a, or as -l's target language asks)",
                     [] {
                       std::string names;
                       for (const auto& n : tokenizer_names()) names += (names.empty() ? "" : ", ") + n;
                       return names;
                     }()),
         {"-t"}},
        {"max-ngram-order", Kind::Integer,
         "Highest n-gram order (sacrebleu's max_ngram_order; a non-default order adds ngram:N to the signature)",
         {}, std::to_string(kBleuMaxOrder)},
        {"smooth", Kind::Text, "Smoothing: exp, floor, add-k, none", {"-s", "--smooth-method"}, "exp"},
        {"smooth-value", Kind::Real, "Value for floor (default 0.1) and add-k (default 1)"},
        lowercase,
        {"effective-order", Kind::Flag, "Leave out n-gram orders without matches (always on with --sentence)"}},
       make_bleu},
      {"chrf",
       "chrF / chrF++ (Popović 2015, 2017) as sacrebleu 2.4.3 computes them",
       {{"char-order", Kind::Integer, "Character n-gram order", {}, "6", 1, 32},
        {"word-order", Kind::Integer, "Word n-gram order (2 = chrF++)", {}, "0", 0, 32},
        {"beta", Kind::Integer, "Weight of recall over precision", {}, "2", 0},
        {"whitespace", Kind::Flag, "Keep whitespace inside character n-grams"},
        lowercase,
        {"eps-smoothing", Kind::Flag, "chrF++.py / NLTK / Moses epsilon smoothing instead of effective-order averaging"}},
       make_chrf},
      {"ter",
       "TER (Snover et al. 2006) as sacrebleu 2.4.3 computes it (case-insensitive unless --case-sensitive)",
       {{"normalized", Kind::Flag, "Tercom normalisation and tokenisation"},
        {"no-punct", Kind::Flag, "Remove punctuation"},
        {"asian-support", Kind::Flag, "Split Asian characters (with --normalized or --no-punct)"},
        {"case-sensitive", Kind::Flag, "Distinguish case"}},
       make_ter},
  };
}

}  // namespace

const std::vector<RegisteredMetric>& corpus_metrics() {
  static const std::vector<RegisteredMetric> metrics = registered();
  return metrics;
}

const RegisteredMetric& corpus_metric(std::string_view name) {
  std::string names;
  for (const auto& m : corpus_metrics()) {
    if (m.name == name) return m;
    names += (names.empty() ? "" : ", ") + m.name;
  }
  fail("no corpus metric '{}' (registered: {})", name, names);
}

std::unique_ptr<CorpusMetric> make_corpus_metric(std::string_view name, const MetricSettings& settings,
                                                 const MetricContext& context) {
  const auto& metric = corpus_metric(name);
  for (const auto& [given, value] : settings) {
    bool known = false;
    for (const auto& s : metric.settings) known = known || s.name == given;
    if (!known) fail("{} has no setting '{}'", metric.name, given);
  }
  return metric.make(settings, context);
}

}  // namespace invar::metrics
