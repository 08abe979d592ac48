#include "eval/metrics/bertscore/bertscore.hpp"

#include <Eigen/Core>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_set>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/utf8.hpp"

namespace invar::metrics {
namespace {

// The releases bert_score's hash names: v0.3.13 still reports 0.3.12; its tokenizers are those of
// transformers 4.19, which invar's reproduce.
constexpr const char* kBertScoreVersion = "0.3.12";
constexpr const char* kTransformersVersion = "4.19.0.dev0";

// bert_score divides every token embedding by its L2 norm before matching.
void normalize_rows(std::vector<float>& rows, std::size_t width) {
  for (std::size_t start = 0; start < rows.size(); start += width) {
    double norm = 0;
    for (std::size_t k = 0; k < width; ++k) norm += static_cast<double>(rows[start + k]) * rows[start + k];
    const float length = static_cast<float>(std::sqrt(norm));
    for (std::size_t k = 0; k < width; ++k) rows[start + k] /= length;
  }
}

// torch.max propagates NaN.
float max_or_nan(float a, float b) {
  return std::isnan(a) || std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : std::max(a, b);
}

// Σ best[i] · w[i] / Σ w, with the weights normalised first as bert_score does (float32).
float weighted_mean(const std::vector<float>& best, const std::vector<float>& weights) {
  float total = 0;
  for (float w : weights) total += w;
  float sum = 0;
  for (std::size_t i = 0; i < best.size(); ++i) sum += best[i] * (weights[i] / total);
  return sum;
}

BertScore max_score(const BertScore& a, const BertScore& b) {
  return {max_or_nan(a.precision, b.precision), max_or_nan(a.recall, b.recall), max_or_nan(a.f1, b.f1)};
}

struct Pair {
  std::size_t hyp, ref;  // indices of unique texts
};

// P, R and F of each hypothesis: each the maximum over its references' pairs, in order.
std::vector<BertScore> best_per_hypothesis(const std::vector<BertScore>& per_pair,
                                           const std::vector<std::vector<std::string>>& refs) {
  std::vector<BertScore> out;
  std::size_t p = 0;
  for (const auto& r : refs) {
    BertScore best = per_pair[p++];
    for (std::size_t k = 1; k < r.size(); ++k) best = max_score(best, per_pair[p++]);
    out.push_back(best);
  }
  return out;
}

// Scores pairs in bert_score's batches of `batch_size` consecutive pairs (the padding floor
// depends on which pairs share a batch).
std::vector<BertScore> score_pairs(const std::vector<Pair>& pairs, const std::vector<TokenEmbeddings>& texts,
                                   std::size_t width, std::size_t batch_size) {
  std::vector<BertScore> out;
  out.reserve(pairs.size());
  for (std::size_t begin = 0; begin < pairs.size(); begin += batch_size) {
    const std::size_t end = std::min(pairs.size(), begin + batch_size);
    std::size_t hyp_pad = 0, ref_pad = 0;
    for (std::size_t p = begin; p < end; ++p) {
      hyp_pad = std::max(hyp_pad, texts[pairs[p].hyp].tokens);
      ref_pad = std::max(ref_pad, texts[pairs[p].ref].tokens);
    }
    for (std::size_t p = begin; p < end; ++p) {
      const TokenEmbeddings& hyp = texts[pairs[p].hyp];
      const TokenEmbeddings& ref = texts[pairs[p].ref];
      out.push_back(greedy_match(hyp, ref, width, ref.tokens < ref_pad, hyp.tokens < hyp_pad));
    }
  }
  return out;
}

// bert_score's sent_encode: strip, then encode with the special tokens, truncated to `limit`
// (an empty text gives the special tokens alone, as build_inputs_with_special_tokens([]) does).
Encoding sent_encode(const Tokenizer& tokenizer, std::string_view text, std::size_t limit, bool& cut) {
  const std::string_view stripped = python_strip(text);
  Encoding e = tokenizer.encode(stripped);
  cut = e.ids.size() > limit;
  return cut ? tokenizer.encode(stripped, limit) : e;
}

float parse_baseline_value(const Table& table, std::size_t row, std::size_t column) {
  const std::string& text = table.rows[row][column];
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value))
    fail("{}: {}: expected a number, got '{}'", table.where(row), table.columns[column], text);
  // Rescaling divides by 1 − b: a baseline of 1 or more gives infinite or flipped scores, and a
  // negative one is no mean similarity of unrelated texts.
  if (!(value >= 0 && value < 1))
    fail("{}: {}: a baseline lies in [0, 1), got {}", table.where(row), table.columns[column], text);
  return static_cast<float>(value);
}

}  // namespace

BertScore greedy_match(const TokenEmbeddings& hyp, const TokenEmbeddings& ref, std::size_t width,
                       bool floor_precision, bool floor_recall) {
  using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto rows = [width](const TokenEmbeddings& e) {
    return Eigen::Map<const RowMatrix>(e.vectors.data(), static_cast<Eigen::Index>(e.tokens),
                                       static_cast<Eigen::Index>(width));
  };
  const RowMatrix sim = rows(hyp) * rows(ref).transpose();
  std::vector<float> best_hyp(hyp.tokens), best_ref(ref.tokens);
  for (std::size_t i = 0; i < hyp.tokens; ++i) {
    const float best = sim.row(static_cast<Eigen::Index>(i)).maxCoeff<Eigen::PropagateNaN>();
    best_hyp[i] = floor_precision ? max_or_nan(best, 0.0f) : best;
  }
  for (std::size_t j = 0; j < ref.tokens; ++j) {
    const float best = sim.col(static_cast<Eigen::Index>(j)).maxCoeff<Eigen::PropagateNaN>();
    best_ref[j] = floor_recall ? max_or_nan(best, 0.0f) : best;
  }
  BertScore s;
  s.precision = weighted_mean(best_hyp, hyp.weights);
  s.recall = weighted_mean(best_ref, ref.weights);
  s.f1 = 2 * s.precision * s.recall / (s.precision + s.recall);
  // Only the special tokens: bert_score sets P and R to 0 and F (then NaN: the weights sum to 0) too.
  if (hyp.tokens == 2 || ref.tokens == 2) s.precision = s.recall = 0;
  if (std::isnan(s.f1)) s.f1 = 0;
  return s;
}

BertScoreWeights BertScoreWeights::uniform(std::int32_t cls_id, std::int32_t sep_id) {
  BertScoreWeights w;
  w.table_[cls_id] = 0.0;
  w.table_[sep_id] = 0.0;
  return w;
}

BertScoreWeights BertScoreWeights::idf(const std::vector<std::vector<std::int32_t>>& reference_ids) {
  std::unordered_map<std::int32_t, std::size_t> df;
  for (const auto& ids : reference_ids)
    for (std::int32_t id : std::unordered_set<std::int32_t>(ids.begin(), ids.end())) ++df[id];
  BertScoreWeights w;
  w.documents_ = reference_ids.size();
  const double m = static_cast<double>(reference_ids.size());
  w.default_ = std::log(m + 1);
  for (const auto& [id, count] : df) w.table_[id] = std::log((m + 1) / (static_cast<double>(count) + 1));
  return w;
}

double BertScoreWeights::operator()(std::int32_t id) const {
  const auto it = table_.find(id);
  return it == table_.end() ? default_ : it->second;
}

BertScoreBaseline read_bertscore_baseline(const std::string& path, std::int64_t layer) {
  // bert_score reads the file with pandas.read_csv: comma-separated whatever the extension.
  const Table table = read_table(path, {.format = TableFormat::Csv, .header = true});
  const std::size_t layer_column = table.column("LAYER");
  const std::size_t p = table.column("P"), r = table.column("R"), f = table.column("F");
  std::vector<std::string> layers;
  for (std::size_t row = 0; row < table.rows.size(); ++row) {
    const std::string& text = table.rows[row][layer_column];
    layers.push_back(text);
    std::int64_t value = -1;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size())
      fail("{}: LAYER: expected a layer number, got '{}'", table.where(row), text);
    if (value == layer)
      return {layer, parse_baseline_value(table, row, p), parse_baseline_value(table, row, r),
              parse_baseline_value(table, row, f)};
  }
  fail("{}: no baseline row for layer {} (the file has layers {}); give the baseline file made for this model and "
       "layer",
       path, layer, layers.empty() ? std::string("none") : fmt::format("{}", fmt::join(layers, ", ")));
}

BertScore rescale(const BertScore& score, const BertScoreBaseline& baseline) {
  const auto one = [](float x, float b) { return (x - b) / (1.0f - b); };
  return {one(score.precision, baseline.precision), one(score.recall, baseline.recall), one(score.f1, baseline.f1)};
}

BertScore mean_score(const std::vector<BertScore>& scores) {
  double p = 0, r = 0, f = 0;
  for (const auto& s : scores) {
    p += s.precision;
    r += s.recall;
    f += s.f1;
  }
  const double n = static_cast<double>(scores.size());
  return {static_cast<float>(p / n), static_cast<float>(r / n), static_cast<float>(f / n)};
}

std::string bertscore_hash(std::string_view model, std::int64_t layer, bool idf, bool rescaled) {
  // Every baseline invar uses comes from a file, which bert_score calls a custom baseline.
  return fmt::format("{}_L{}{}_version={}(hug_trans={}){}", model, layer, idf ? "_idf" : "_no-idf", kBertScoreVersion,
                     kTransformersVersion, rescaled ? "-custom-rescaled" : "");
}

BertScorer::BertScorer(TextEncoder& encoder, BertScoreOptions options)
    : encoder_(encoder), options_(std::move(options)), limit_(encoder.max_length()) {
  const std::int64_t layers = encoder.model().spec().layers;
  if (options_.layer < 0 || options_.layer > layers)
    fail("{}: layer {} does not exist: the model has layers 0 (embeddings) to {}", encoder.source().path(),
         options_.layer, layers);
  if (options_.batch_size == 0) fail("the batch size must be at least 1");
  if (!encoder.tokenizer().cls_id() || !encoder.tokenizer().sep_id())
    fail("{}: BERTScore needs a tokenizer with CLS and SEP tokens (bert_score weighs them 0)", encoder.source().path());
  // sent_encode truncates to the tokenizer's model_max_length (absent: no limit but the model's).
  if (const auto m = encoder.tokenizer().model_max_length()) limit_ = std::min(limit_, *m);
  if (options_.max_length > 0) limit_ = std::min(limit_, options_.max_length);
}

Encoding BertScorer::encode(std::string_view text) const {
  bool cut = false;
  return sent_encode(encoder_.tokenizer(), text, limit_, cut);
}

void BertScorer::weigh_by(const std::vector<std::vector<std::string>>& refs) {
  if (!options_.idf) return;
  std::vector<std::vector<std::int32_t>> reference_ids;
  for (const auto& texts : refs)
    for (const auto& text : texts) reference_ids.push_back(encode(text).ids);
  weights_ = BertScoreWeights::idf(reference_ids);
  weights_fixed_ = true;
}

std::vector<BertScore> BertScorer::score(const std::vector<std::string>& hyps,
                                         const std::vector<std::vector<std::string>>& refs) {
  if (hyps.size() != refs.size())
    fail("BERTScore: {} hypotheses but {} reference lists", hyps.size(), refs.size());
  // Unique texts (bert_score embeds each distinct sentence once) and the flattened pairs.
  std::map<std::string_view, std::size_t> index;
  std::vector<Encoding> encodings;
  truncated_.clear();
  const auto unique = [&](const std::string& text) {
    const auto [it, added] = index.emplace(text, encodings.size());
    if (added) {
      bool cut = false;
      encodings.push_back(sent_encode(encoder_.tokenizer(), text, limit_, cut));
      if (cut) truncated_.insert(text);
    }
    return it->second;
  };
  std::vector<Pair> pairs;
  std::vector<std::vector<std::int32_t>> reference_ids;
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    if (refs[i].empty()) fail("BERTScore: hypothesis {} has no reference", i + 1);
    const std::size_t hyp = unique(hyps[i]);
    for (const auto& r : refs[i]) {
      pairs.push_back({hyp, unique(r)});
      reference_ids.push_back(encodings[pairs.back().ref].ids);
    }
  }

  const Tokenizer& tokenizer = encoder_.tokenizer();
  if (!weights_fixed_)
    weights_ = options_.idf ? BertScoreWeights::idf(reference_ids)
                            : BertScoreWeights::uniform(*tokenizer.cls_id(), *tokenizer.sep_id());

  const std::size_t width = static_cast<std::size_t>(encoder_.model().spec().hidden);
  return best_per_hypothesis(score_pairs(pairs, embed(encodings), width, options_.batch_size), refs);
}

std::vector<TokenEmbeddings> BertScorer::embed(const std::vector<Encoding>& encodings) {
  const std::size_t width = static_cast<std::size_t>(encoder_.model().spec().hidden);
  auto hidden = encoder_.batched<std::vector<float>>(
      encodings, {options_.batch_size, options_.progress},
      [&](std::span<const Encoding> batch) { return encoder_.model().hidden_states(batch, options_.layer); });
  std::vector<TokenEmbeddings> texts(encodings.size());
  for (std::size_t t = 0; t < texts.size(); ++t) {
    texts[t].tokens = encodings[t].ids.size();
    texts[t].vectors = std::move(hidden[t]);
    normalize_rows(texts[t].vectors, width);
    for (std::int32_t id : encodings[t].ids) texts[t].weights.push_back(static_cast<float>(weights_(id)));
  }
  return texts;
}

}  // namespace invar::metrics
