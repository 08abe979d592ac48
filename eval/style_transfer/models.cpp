#include "eval/style_transfer/models.hpp"

#include <fmt/ranges.h>

#include "core/error.hpp"

namespace invar::style_transfer {

namespace {

std::string to_lower_ascii(std::string text) {
  for (char& c : text)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return text;
}

// Briakou et al. score formality and STS with one regression output; a classifier's logits would
// be a different quantity.
void require_regressor(TextEncoder& encoder, const std::string& path, const char* role) {
  encoder.model().require_classifier();
  if (!encoder.model().spec().regression)
    fail("{}: the {} model must be a regression checkpoint (num_labels = 1), as the paper's XLM-R regressors are",
         path, role);
}

}  // namespace

std::unique_ptr<Models::Loaded> Models::load(const std::string& path, Backend& backend) {
  auto loaded = std::make_unique<Loaded>();
  loaded->source = ModelSource::open(path);
  loaded->encoder = std::make_unique<TextEncoder>(*loaded->source, backend);
  return loaded;
}

Models::Models(ModelSettings settings, Backend& backend) : settings_(std::move(settings)) {
  if (!settings_.formality.empty()) {
    formality_ = load(settings_.formality, backend);
    require_regressor(*formality_->encoder, settings_.formality, "formality");
  }
  if (!settings_.sts.empty()) {
    sts_ = load(settings_.sts, backend);
    require_regressor(*sts_->encoder, settings_.sts, "STS");
  }
  if (!settings_.formality_classifier.empty()) {
    classifier_ = load(settings_.formality_classifier, backend);
    auto& model = classifier_->encoder->model();
    model.require_classifier();
    const auto& labels = model.spec().labels;
    if (model.spec().regression || labels.size() < 2)
      fail("{}: the formality classifier must be a classification checkpoint with two or more labels (a regressor "
           "goes to --formality)", settings_.formality_classifier);
    auto named = [&](const std::string& label) {
      for (std::size_t i = 0; i < labels.size(); ++i)
        if (settings_.formal_label.empty() ? to_lower_ascii(labels[i]) == "formal" : labels[i] == label) return i;
      fail("{}: no label {} (labels: {}); name the formal one with --formal-label", settings_.formality_classifier,
           label.empty() ? std::string("named 'formal'") : "'" + label + "'", fmt::join(labels, ", "));
    };
    formal_label_ = named(settings_.formal_label);
  }
  if (!settings_.mlm.empty()) {
    mlm_ = load(settings_.mlm, backend);
    mlm_->encoder->model().require_mlm();
    if (!mlm_->encoder->tokenizer().mask_id()) fail("{}: the tokenizer has no mask token", settings_.mlm);
  }
  if (!settings_.bertscore.empty()) {
    bertscore_ = load(settings_.bertscore, backend);
    bertscore_layer_ = metrics::bertscore_layer(settings_.bertscore, *bertscore_->source, settings_.bertscore_layer);
    if (!settings_.bertscore_baseline.empty())
      baseline_ = metrics::read_bertscore_baseline(settings_.bertscore_baseline, bertscore_layer_);
  }
  if (!settings_.vectors.empty())
    vectors_ = std::make_unique<metrics::WordVectors>(metrics::WordVectors::load(settings_.vectors));
  try {
    wordnet_ = std::make_unique<metrics::WordNet>(settings_.wordnet.value_or(metrics::WordNet::default_directory()));
    meteor_ = std::make_unique<metrics::Meteor>(*wordnet_, metrics::MeteorOptions{.version = settings_.meteor_version});
  } catch (const Error& e) {
    if (settings_.wordnet) throw;
    meteor_missing_ = e.what();
  }
}

Models::~Models() = default;

std::string Models::bertscore_hash() const {
  return metrics::bertscore_hash(metrics::bertscore_model_name(settings_.bertscore), bertscore_layer_,
                                 settings_.bertscore_idf, baseline_.has_value());
}

}  // namespace invar::style_transfer
