#include "engine/seq2seq/shortlist.hpp"

#include <algorithm>
#include <optional>
#include <span>

#include "core/error.hpp"

namespace invar::seq2seq {

LmHead::LmHead(ModelWeights& weights, Backend& backend, Tensor matrix, Tensor bias)
    : weights_(weights), backend_(backend), matrix_(matrix), bias_(bias), arena_(backend.make_arena()) {
  restrict({});
}

void LmHead::restrict(const std::vector<std::int32_t>& rows) {
  head_ = matrix_;
  head_bias_ = bias_;
  if (rows.empty()) return;
  arena_->reset();
  const std::int64_t count = static_cast<std::int64_t>(rows.size());
  Tensor ids = arena_->alloc(DType::I32, Shape{count});
  backend_.upload(rows.data(), ids);
  if (table_.empty()) table_ = weights_.get("lm_head", {}, WeightUse::Table);
  head_ = arena_->alloc(DType::F32, Shape{count, matrix_.dim(1)});
  weights_.check_rows(table_, rows);
  backend_.gather_rows(table_, ids, 1.0f, false, head_);
  if (bias_.empty()) return;
  head_bias_ = arena_->alloc(DType::F32, Shape{count});
  backend_.gather_rows(bias_.reshaped(Shape{matrix_.dim(0), 1}), ids, 1.0f, false, head_bias_.reshaped(Shape{count, 1}));
}

namespace {

// The search over a shortlist of target ids: it sees ids 0..shortlist.size()-1, the model the
// shortlist's ids.
class ShortlistSteps final : public StepModel {
 public:
  ShortlistSteps(StepModel& model, const std::vector<std::int32_t>& shortlist) : model_(model), shortlist_(shortlist) {}
  std::int64_t vocab_size() const override { return static_cast<std::int64_t>(shortlist_.size()); }
  void step(std::span<const std::int32_t> tokens, std::vector<float>& logits) override {
    map_tokens(tokens);
    model_.step(ids_, logits);
  }
  // The restricted head's logits are in shortlist positions already: candidates need no mapping.
  bool prefers_top_k() const override { return model_.prefers_top_k(); }
  void step_top_k(std::span<const std::int32_t> tokens, std::int64_t k, std::int32_t exclude, TopLogits& top) override {
    map_tokens(tokens);
    model_.step_top_k(ids_, k, exclude, top);
  }
  void select_rows(std::span<const std::int32_t> rows) override { model_.select_rows(rows); }
  void parallel_rows(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body) override {
    model_.parallel_rows(n, body);
  }

 private:
  void map_tokens(std::span<const std::int32_t> tokens) {
    ids_.clear();
    for (std::int32_t t : tokens) ids_.push_back(shortlist_[static_cast<std::size_t>(t)]);
  }

  StepModel& model_;
  const std::vector<std::int32_t>& shortlist_;
  std::vector<std::int32_t> ids_;
};

// The position of `id` in the sorted shortlist, or -1 (never generated, never matched).
std::int32_t shortlist_index(const std::vector<std::int32_t>& shortlist, std::int32_t id) {
  const auto at = std::lower_bound(shortlist.begin(), shortlist.end(), id);
  return at != shortlist.end() && *at == id ? static_cast<std::int32_t>(at - shortlist.begin()) : -1;
}

std::optional<std::int32_t> shortlist_index(const std::vector<std::int32_t>& shortlist, std::optional<std::int32_t> id) {
  if (!id) return std::nullopt;
  return shortlist_index(shortlist, *id);
}

// `settings` in shortlist positions. The ids the search needs are in the shortlist; a bad-words
// entry with a token outside it can never be completed and is dropped.
SearchSettings shortlisted(SearchSettings settings, const std::vector<std::int32_t>& shortlist) {
  settings.decoder_start_token_id = shortlist_index(shortlist, settings.decoder_start_token_id);
  settings.pad_token_id = shortlist_index(shortlist, settings.pad_token_id);
  settings.eos_token_id = shortlist_index(shortlist, settings.eos_token_id);
  settings.forced_bos_token_id = shortlist_index(shortlist, settings.forced_bos_token_id);
  settings.forced_eos_token_id = shortlist_index(shortlist, settings.forced_eos_token_id);
  settings.beam_masked_token_id = shortlist_index(shortlist, settings.beam_masked_token_id);
  std::vector<std::vector<std::int32_t>> bad_words;
  for (auto words : settings.bad_words_ids) {
    for (std::int32_t& token : words) token = shortlist_index(shortlist, token);
    if (std::find(words.begin(), words.end(), -1) == words.end()) bad_words.push_back(std::move(words));
  }
  settings.bad_words_ids = std::move(bad_words);
  return settings;
}

// `shortlist` with the ids the search needs, sorted and distinct; beam search needs 2 × num_beams
// candidates, so the lowest other ids fill a shortlist that is smaller.
std::vector<std::int32_t> completed_shortlist(std::vector<std::int32_t> shortlist, const SearchSettings& settings,
                                              std::int64_t vocab) {
  for (const auto id : {std::optional(settings.decoder_start_token_id), std::optional(settings.pad_token_id),
                        settings.eos_token_id, settings.forced_bos_token_id, settings.forced_eos_token_id})
    if (id) shortlist.push_back(*id);
  for (std::int32_t id : shortlist)
    if (id < 0 || id >= vocab) fail("shortlisted target id {} is outside the vocabulary ({})", id, vocab);
  std::sort(shortlist.begin(), shortlist.end());
  shortlist.erase(std::unique(shortlist.begin(), shortlist.end()), shortlist.end());
  const std::size_t needed = static_cast<std::size_t>(std::min<std::int64_t>(2 * settings.num_beams, vocab));
  for (std::int32_t id = 0; shortlist.size() < needed; ++id)
    if (shortlist_index(shortlist, id) < 0) shortlist.insert(std::lower_bound(shortlist.begin(), shortlist.end(), id), id);
  return shortlist;
}

}  // namespace

std::vector<std::vector<Hypothesis>> generate_shortlisted(StepModel& steps, LmHead& head, int batch,
                                                          const SearchSettings& settings,
                                                          const std::vector<TokenIds>& sources,
                                                          std::vector<std::int32_t> shortlist, std::int64_t vocab) {
  shortlist = completed_shortlist(std::move(shortlist), settings, vocab);
  head.restrict(shortlist);
  std::vector<TokenIds> shortlisted_sources = sources;  // for encoder_no_repeat_ngram_size
  for (auto& source : shortlisted_sources)
    for (std::int32_t& id : source) id = shortlist_index(shortlist, id);
  ShortlistSteps restricted(steps, shortlist);
  auto results = invar::generate(restricted, batch, shortlisted(settings, shortlist), shortlisted_sources);
  for (auto& hyps : results)
    for (auto& hyp : hyps)
      for (std::int32_t& id : hyp.ids) id = shortlist[static_cast<std::size_t>(id)];
  return results;
}

}  // namespace invar::seq2seq
