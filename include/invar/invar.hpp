// A header-only C++17 wrapper over invar's C API (invar.h): handles and results owned by
// std::unique_ptr with their invar_*_free, and a failed call thrown as invar::api::Error carrying
// the status and invar_last_error()'s message. Everything crosses the library boundary through the
// C API, so this header ties a program to no C++ ABI of the library's.
//
//   invar::api::Model model("path/to/model");
//   auto embeddings = model.embed({"a text", "another"});   // embeddings->values, ->dimension
#ifndef INVAR_INVAR_HPP
#define INVAR_INVAR_HPP

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "invar/invar.h"

namespace invar::api {

class Error : public std::runtime_error {
 public:
  Error(invar_status status, const char* message) : std::runtime_error(message), status_(status) {}
  invar_status status() const noexcept { return status_; }

 private:
  invar_status status_;
};

// Throws the error of a call that did not return INVAR_OK.
inline void check(invar_status status) {
  if (status != INVAR_OK) throw Error(status, invar_last_error());
}

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* value) const noexcept { Free(value); }
};
template <typename T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, Deleter<T, Free>>;

using Tokens = Owned<invar_tokens, invar_tokens_free>;
using Embeddings = Owned<invar_embeddings, invar_embeddings_free>;
using Classification = Owned<invar_classification, invar_classification_free>;
using PseudoLogLikelihood = Owned<invar_pll, invar_pll_free>;
using Generation = Owned<invar_generation, invar_generation_free>;
using Texts = Owned<invar_texts, invar_texts_free>;
using Score = Owned<invar_score, invar_score_free>;
using SentenceScores = Owned<invar_sentence_scores, invar_sentence_scores_free>;
using HiddenStates = Owned<invar_hidden, invar_hidden_free>;
using BertScores = Owned<invar_bertscores, invar_bertscores_free>;

namespace detail {
inline std::vector<const char*> pointers(const std::vector<std::string>& texts) {
  std::vector<const char*> out;
  out.reserve(texts.size());
  for (const auto& text : texts) out.push_back(text.c_str());
  return out;
}

// Reference streams laid end to end, as the C API takes them; each must hold `segments` texts.
inline std::vector<const char*> flatten(const std::vector<std::vector<std::string>>& streams, std::size_t segments) {
  std::vector<const char*> out;
  for (const auto& stream : streams) {
    if (stream.size() != segments) throw std::invalid_argument("every reference stream needs one text per hypothesis");
    for (const auto& text : stream) out.push_back(text.c_str());
  }
  return out;
}

template <typename T, void (*Free)(T*), typename Call>
Owned<T, Free> make(Call call) {
  T* result = nullptr;
  check(call(&result));
  return Owned<T, Free>(result);
}
}  // namespace detail

// A model; used by one thread at a time (invar.h).
class Model {
 public:
  explicit Model(const std::string& path, const invar_model_options* options = nullptr)
      : model_(detail::make<invar_model, invar_model_free>(
            [&](invar_model** out) { return invar_model_open(path.c_str(), options, out); })) {}

  invar_model_kind kind() const {
    invar_model_kind kind = INVAR_MODEL_ENCODER;
    check(invar_model_kind_of(model_.get(), &kind));
    return kind;
  }

  Tokens tokenize(const std::string& text) {
    return detail::make<invar_tokens, invar_tokens_free>(
        [&](invar_tokens** out) { return invar_tokenize(model_.get(), text.c_str(), out); });
  }

  Embeddings embed(const std::vector<std::string>& texts) {
    const auto p = detail::pointers(texts);
    return detail::make<invar_embeddings, invar_embeddings_free>(
        [&](invar_embeddings** out) { return invar_embed(model_.get(), p.data(), p.size(), out); });
  }

  Classification classify(const std::vector<std::string>& texts) {
    const auto p = detail::pointers(texts);
    return detail::make<invar_classification, invar_classification_free>(
        [&](invar_classification** out) { return invar_classify(model_.get(), p.data(), nullptr, p.size(), out); });
  }

  Classification classify_pairs(const std::vector<std::string>& first, const std::vector<std::string>& second) {
    if (first.size() != second.size()) throw std::invalid_argument("classify_pairs: as many second texts as first");
    const auto a = detail::pointers(first), b = detail::pointers(second);
    return detail::make<invar_classification, invar_classification_free>(
        [&](invar_classification** out) { return invar_classify(model_.get(), a.data(), b.data(), a.size(), out); });
  }

  // Every token's hidden state after `layer` layers (-1 = the last).
  HiddenStates hidden_states(const std::vector<std::string>& texts, std::int64_t layer = -1) {
    const auto p = detail::pointers(texts);
    return detail::make<invar_hidden, invar_hidden_free>(
        [&](invar_hidden** out) { return invar_hidden_states(model_.get(), p.data(), p.size(), layer, out); });
  }

  // references[r][i]: reference r of hypothesis i (sacrebleu's streams).
  BertScores bertscore(const std::vector<std::string>& hypotheses, const std::vector<std::vector<std::string>>& references,
                       const invar_bertscore_options* options = nullptr) {
    const auto h = detail::pointers(hypotheses);
    const auto r = detail::flatten(references, hypotheses.size());
    return detail::make<invar_bertscores, invar_bertscores_free>([&](invar_bertscores** out) {
      return invar_bertscore(model_.get(), h.data(), h.size(), r.data(), references.size(), options, out);
    });
  }

  // The in-memory calls report to `progress` (nullptr = none); a nonzero return throws Error with
  // INVAR_ERROR_STOPPED from the call it stops.
  void set_progress(invar_progress_fn progress, void* user = nullptr) {
    check(invar_model_set_progress(model_.get(), progress, user));
  }

  PseudoLogLikelihood pseudo_log_likelihood(const std::string& text) {
    return detail::make<invar_pll, invar_pll_free>(
        [&](invar_pll** out) { return invar_pseudo_log_likelihood(model_.get(), text.c_str(), out); });
  }

  Generation generate(const std::vector<std::string>& texts, const invar_search_options* options = nullptr) {
    const auto p = detail::pointers(texts);
    return detail::make<invar_generation, invar_generation_free>(
        [&](invar_generation** out) { return invar_generate(model_.get(), p.data(), p.size(), options, out); });
  }

  Texts translate(const std::vector<std::string>& texts, const invar_search_options* options = nullptr) {
    const auto p = detail::pointers(texts);
    return detail::make<invar_texts, invar_texts_free>(
        [&](invar_texts** out) { return invar_translate(model_.get(), p.data(), p.size(), options, out); });
  }

  // File jobs (invar.h: resume, shards, the join of parts); a stop asked by run->progress throws
  // Error with INVAR_ERROR_STOPPED.
  void embed_file(const std::string& input, const std::string& output, const invar_run_options* run = nullptr) {
    check(invar_embed_file(model_.get(), input.c_str(), output.c_str(), run));
  }

  void translate_file(const std::string& input, const std::string& output,
                      const invar_search_options* options = nullptr, const invar_run_options* run = nullptr) {
    check(invar_translate_file(model_.get(), input.c_str(), output.c_str(), options, run));
  }

  invar_model* get() const noexcept { return model_.get(); }

 private:
  Owned<invar_model, invar_model_free> model_;
};

// BLEU, chrF, TER or METEOR with their settings; read-only, shareable between threads.
class Metric {
 public:
  static Metric bleu(const invar_bleu_options* options = nullptr) {
    return Metric([&](invar_metric** out) { return invar_metric_bleu(options, out); });
  }
  static Metric chrf(const invar_chrf_options* options = nullptr) {
    return Metric([&](invar_metric** out) { return invar_metric_chrf(options, out); });
  }
  static Metric ter(const invar_ter_options* options = nullptr) {
    return Metric([&](invar_metric** out) { return invar_metric_ter(options, out); });
  }
  static Metric meteor(const invar_meteor_options* options = nullptr) {
    return Metric([&](invar_metric** out) { return invar_metric_meteor(options, out); });
  }

  // references[r][i]: reference r of segment i (sacrebleu's streams).
  Score corpus_score(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references) const {
    const auto h = detail::pointers(hypotheses);
    const auto r = detail::flatten(references, hypotheses.size());
    return detail::make<invar_score, invar_score_free>([&](invar_score** out) {
      return invar_corpus_score(metric_.get(), h.data(), h.size(), r.data(), references.size(), out);
    });
  }

  SentenceScores sentence_score(const std::vector<std::string>& hypotheses,
                                const std::vector<std::vector<std::string>>& references) const {
    const auto h = detail::pointers(hypotheses);
    const auto r = detail::flatten(references, hypotheses.size());
    return detail::make<invar_sentence_scores, invar_sentence_scores_free>([&](invar_sentence_scores** out) {
      return invar_sentence_score(metric_.get(), h.data(), h.size(), r.data(), references.size(), out);
    });
  }

  invar_metric* get() const noexcept { return metric_.get(); }

 private:
  template <typename Create>
  explicit Metric(Create create) : metric_(detail::make<invar_metric, invar_metric_free>(create)) {}

  Owned<invar_metric, invar_metric_free> metric_;
};

}  // namespace invar::api

#endif  // INVAR_INVAR_HPP
