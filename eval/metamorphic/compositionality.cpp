#include "eval/metamorphic/compositionality.hpp"

#include <limits>

#include "core/error.hpp"
#include "core/io.hpp"
#include "engine/encoder.hpp"
#include "eval/learn/logreg.hpp"
#include "eval/learn/model_selection.hpp"

namespace invar::metamorphic {

namespace {

constexpr std::string_view kPlaceholder = "{}";

void add(Counts& counts, std::uint64_t tests, std::uint64_t violations) {
  counts.tests += tests;
  counts.violations += violations;
}

// Tokens [begin, end) of a segment (0 = premise, 1 = hypothesis): the runs of non-special tokens.
std::pair<std::size_t, std::size_t> segment_range(const Encoding& encoding, std::size_t segment) {
  std::size_t run = 0;
  for (std::size_t i = 0; i < encoding.ids.size();) {
    if (encoding.special_mask[i]) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < encoding.ids.size() && !encoding.special_mask[end]) ++end;
    if (run++ == segment) return {i, end};
    i = end;
  }
  return {0, 0};
}

std::vector<std::int32_t> token_ids(const Tokenizer& tokenizer, const std::string& text) {
  std::vector<std::int32_t> ids;
  for (const auto& piece : tokenizer.tokenize(text)) ids.push_back(tokenizer.token_to_id(piece));
  return ids;
}

bool starts_with(const std::vector<std::int32_t>& whole, const std::vector<std::int32_t>& part) {
  return part.size() <= whole.size() && std::equal(part.begin(), part.end(), whole.begin());
}

// The encoding's positions of `word` inserted in `context`, within segment `segment`: the tokens
// that tokenizing the text up to the word's end adds to tokenizing the text before it.
std::pair<std::size_t, std::size_t> insertion_span(const Tokenizer& tokenizer, const Encoding& encoding, std::size_t segment,
                                                   const Context& context, const std::string& word) {
  const auto at = context.text.find(kPlaceholder);
  std::string before = context.text.substr(0, at);
  const std::string through = before + word;
  while (!before.empty() && (before.back() == ' ' || before.back() == '\t')) before.pop_back();
  const auto full = token_ids(tokenizer, context.fill(word));
  const auto head = token_ids(tokenizer, before);
  const auto with_word = token_ids(tokenizer, through);
  const auto [begin, end] = segment_range(encoding, segment);
  const std::vector<std::int32_t> encoded(encoding.ids.begin() + static_cast<std::ptrdiff_t>(begin),
                                          encoding.ids.begin() + static_cast<std::ptrdiff_t>(end));
  if (encoded != full)
    fail("{}: context[{}] does not fit the model's {} tokens; shorten the context", context.where, word, encoding.ids.size());
  if (!starts_with(with_word, head) || !starts_with(full, with_word) || with_word.size() == head.size())
    fail("{}: the insertion '{}' cannot be located in the tokenized text (its tokens merge with the context's)",
         context.where, word);
  return {begin + head.size(), begin + with_word.size()};
}

void mean_rows(const std::vector<float>& hidden, std::size_t width, std::pair<std::size_t, std::size_t> span,
               std::vector<std::pair<std::uint32_t, double>>& features, std::uint32_t offset) {
  for (std::size_t d = 0; d < width; ++d) {
    double sum = 0;
    for (std::size_t t = span.first; t < span.second; ++t) sum += hidden[t * width + d];
    features.push_back({static_cast<std::uint32_t>(offset + d), sum / static_cast<double>(span.second - span.first)});
  }
}

template <typename T>
std::vector<T> pick(const std::vector<T>& values, const std::vector<std::size_t>& rows) {
  std::vector<T> out;
  for (auto r : rows) out.push_back(values[r]);
  return out;
}

}  // namespace

const char* monotonicity_name(Monotonicity monotonicity) {
  return monotonicity == Monotonicity::Upward ? "upward" : "downward";
}

const char* lexical_relation_name(LexicalRelation relation) {
  switch (relation) {
    case LexicalRelation::Hypernym: return "hypernym";
    case LexicalRelation::Hyponym: return "hyponym";
    case LexicalRelation::None: return "none";
  }
  return "?";
}

std::string Context::fill(const std::string& word) const {
  std::string out = text;
  out.replace(out.find(kPlaceholder), kPlaceholder.size(), word);
  return out;
}

double Counts::rate() const {
  return tests == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(violations) / static_cast<double>(tests);
}

std::vector<Context> read_contexts(const std::string& path) {
  const auto table = read_table(path, {.format = TableFormat::Tsv});
  std::vector<Context> out;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    if (row.size() != 2) fail("{}: expected context <TAB> upward|downward, got {} fields", table.where(r), row.size());
    const auto first = row[0].find(kPlaceholder);
    if (first == std::string::npos) fail("{}: the context has no placeholder {{}}", table.where(r));
    if (row[0].find(kPlaceholder, first + 1) != std::string::npos)
      fail("{}: the context has more than one placeholder {{}}", table.where(r));
    Context context{row[0], Monotonicity::Upward, table.where(r)};
    if (row[1] == "downward") context.monotonicity = Monotonicity::Downward;
    else if (row[1] != "upward") fail("{}: column 2 must be upward or downward, got '{}'", table.where(r), row[1]);
    out.push_back(std::move(context));
  }
  if (out.empty()) fail("{}: no contexts", path);
  return out;
}

std::vector<Insertion> read_insertions(const std::string& path) {
  const auto table = read_table(path, {.format = TableFormat::Tsv});
  std::vector<Insertion> out;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    if (row.size() != 3) fail("{}: expected x <TAB> y <TAB> hypernym|hyponym|none, got {} fields", table.where(r), row.size());
    if (is_blank(row[0]) || is_blank(row[1])) fail("{}: empty word", table.where(r));
    Insertion insertion{row[0], row[1], LexicalRelation::None, table.where(r)};
    if (row[2] == "hypernym") insertion.relation = LexicalRelation::Hypernym;
    else if (row[2] == "hyponym") insertion.relation = LexicalRelation::Hyponym;
    else if (row[2] != "none") fail("{}: column 3 must be hypernym, hyponym or none, got '{}'", table.where(r), row[2]);
    out.push_back(std::move(insertion));
  }
  if (out.size() < 2) fail("{}: compositionality compares insertions, give at least two", path);
  return out;
}

CompositionalityResult count_compositionality(const std::vector<Context>& contexts, const std::vector<Insertion>& insertions,
                                              const std::vector<std::vector<double>>& probe,
                                              const std::vector<std::vector<double>>& entailment) {
  CompositionalityResult result;
  result.contexts.resize(contexts.size());
  result.insertions.resize(insertions.size());
  result.inputs.resize(contexts.size() * insertions.size());
  for (std::size_t k = 0; k < contexts.size(); ++k) {
    std::vector<double> expected = entailment[k];
    // Upward contexts expect the reverse order: count against the negated entailment scores.
    if (contexts[k].monotonicity == Monotonicity::Upward)
      for (auto& v : expected) v = -v;
    const auto counts = count_order_violations(probe[k], expected);
    add(result.contexts[k], counts.tests, counts.violations);
    add(contexts[k].monotonicity == Monotonicity::Upward ? result.upward : result.downward, counts.tests, counts.violations);
    add(result.overall, counts.tests, counts.violations);
    for (std::size_t m = 0; m < insertions.size(); ++m) {
      add(result.insertions[m], counts.source_tests[m], counts.source_violations[m]);
      auto& input = result.inputs[k * insertions.size() + m];
      input.probe = probe[k][m];
      input.entailment = entailment[k][m];
      add(input.counts, counts.source_tests[m], counts.source_violations[m]);
    }
  }
  return result;
}

std::size_t probe_layer(ModelUnderTest& model) {
  const auto& spec = model.encoder().model().spec();
  if (spec.layers < 2) fail("{}: the probe reads the second-to-last layer; the model has {} layer", model.path(), spec.layers);
  return static_cast<std::size_t>(spec.layers - 1);
}

std::vector<ProbeInput> probe_inputs(ModelUnderTest& model, const std::vector<Context>& contexts,
                                     const std::vector<Insertion>& insertions, std::size_t begin, std::size_t end) {
  auto& encoder = model.encoder();
  const auto layer = static_cast<std::int64_t>(probe_layer(model));
  const std::size_t m_count = insertions.size();
  std::vector<std::string> premises, hypotheses;
  std::vector<TextInput> inputs;
  for (std::size_t i = begin; i < end; ++i) {
    const auto& context = contexts[i / m_count];
    const auto& insertion = insertions[i % m_count];
    premises.push_back(context.fill(insertion.x));
    hypotheses.push_back(context.fill(insertion.y));
    inputs.push_back({premises.back(), hypotheses.back()});
  }
  const auto entailment_scores = model.classify(premises, hypotheses).scores;
  std::size_t truncated = 0;
  const auto encodings = encoder.encode(inputs, true, truncated);
  const auto hidden = encoder.batched<std::vector<float>>(
      encodings, model.batches(), [&](std::span<const Encoding> batch) { return encoder.model().hidden_states(batch, layer); });
  const auto width = static_cast<std::size_t>(encoder.model().spec().hidden);
  std::vector<ProbeInput> out;
  for (std::size_t k = 0; k < encodings.size(); ++k) {
    const auto& context = contexts[(begin + k) / m_count];
    const auto& insertion = insertions[(begin + k) % m_count];
    std::vector<std::pair<std::uint32_t, double>> row;
    mean_rows(hidden[k], width, insertion_span(encoder.tokenizer(), encodings[k], 0, context, insertion.x), row, 0);
    mean_rows(hidden[k], width, insertion_span(encoder.tokenizer(), encodings[k], 1, context, insertion.y), row,
              static_cast<std::uint32_t>(width));
    ProbeInput input{entailment_scores[k], {}};
    for (const auto& entry : row) input.features.push_back(entry.second);
    out.push_back(std::move(input));
  }
  return out;
}

CompositionalityResult fit_compositionality(const std::vector<Context>& contexts,
                                            const std::vector<Insertion>& insertions,
                                            const std::vector<ProbeInput>& inputs, std::size_t layer,
                                            const ProbeSettings& settings) {
  const std::size_t m_count = insertions.size();
  learn::SparseMatrix features;
  features.cols = inputs.empty() ? 0 : inputs.front().features.size();
  std::vector<int> labels;
  std::vector<double> entailment_scores;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::vector<std::pair<std::uint32_t, double>> row;
    for (std::size_t d = 0; d < inputs[i].features.size(); ++d)
      row.push_back({static_cast<std::uint32_t>(d), inputs[i].features[d]});
    features.add_row(row);
    labels.push_back(insertions[i % m_count].relation == LexicalRelation::Hypernym);
    entailment_scores.push_back(inputs[i].entailment);
  }
  if (std::count(labels.begin(), labels.end(), 1) == 0 || std::count(labels.begin(), labels.end(), 0) == 0)
    fail("the probe needs insertion pairs labelled hypernym and others (hyponym or none)");

  // Held out by insertion pair, not by input: the same words in another context would otherwise
  // let the probe score words it was trained on.
  std::vector<int> pair_labels;
  for (const auto& insertion : insertions) pair_labels.push_back(insertion.relation == LexicalRelation::Hypernym);
  const auto pairs = learn::stratified_split(pair_labels, 2, settings.held_out, settings.seed);
  learn::Split split;
  for (std::size_t k = 0; k < contexts.size(); ++k) {
    for (auto m : pairs.train) split.train.push_back(k * m_count + m);
    for (auto m : pairs.held_out) split.held_out.push_back(k * m_count + m);
  }
  learn::LogisticRegression probe;
  probe.fit(features.select_rows(split.train), pick(labels, split.train), 2, {.C = settings.C});
  const auto probabilities = probe.predict_proba(features);
  std::vector<std::vector<double>> probe_scores(contexts.size()), entailment(contexts.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    probe_scores[i / m_count].push_back(probabilities[i][1]);
    entailment[i / m_count].push_back(entailment_scores[i]);
  }
  auto result = count_compositionality(contexts, insertions, probe_scores, entailment);
  result.probe = {split.train.size(), split.held_out.size(), std::numeric_limits<double>::quiet_NaN(), layer};
  for (auto i : split.held_out) result.inputs[i].held_out = true;
  if (!split.held_out.empty()) {
    const auto predicted = probe.predict(features.select_rows(split.held_out));
    std::size_t correct = 0;
    for (std::size_t h = 0; h < predicted.size(); ++h) correct += predicted[h] == labels[split.held_out[h]];
    result.probe.accuracy = static_cast<double>(correct) / static_cast<double>(predicted.size());
  }
  return result;
}

}  // namespace invar::metamorphic
