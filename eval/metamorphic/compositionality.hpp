#pragma once
// Pairwise compositionality of NLI models (Manino et al. 2022, §5, Tables 3 and 4). A context has
// one placeholder "{}" and is upward or downward monotone; an insertion pair (x, y) has a lexical
// relation: "hypernym" when x is a hypernym of y (animal, dog), "hyponym" when x is a hyponym of y,
// "none" otherwise. Each NLI input is premise = context[x], hypothesis = context[y]. For two inputs
// on the same context, the hidden premise compares their hypernymy scores g (a linear probe on the
// insertion tokens' hidden states) and the hypothesis their entailment scores f: a downward context
// must keep g's order (not a dog ⇒ not an animal), an upward context must reverse it (an animal ⇏
// a dog). Pairs are counted with the order counter of pairwise.hpp and its tie rule.
#include <cstdint>
#include <string>
#include <vector>

#include "eval/metamorphic/models.hpp"
#include "eval/metamorphic/pairwise.hpp"

namespace invar::metamorphic {

enum class Monotonicity { Upward, Downward };
enum class LexicalRelation { Hypernym, Hyponym, None };

const char* monotonicity_name(Monotonicity monotonicity);
const char* lexical_relation_name(LexicalRelation relation);

struct Context {
  std::string text;  // with exactly one "{}"
  Monotonicity monotonicity = Monotonicity::Upward;
  std::string where;  // FILE:LINE
  std::string fill(const std::string& word) const;
};

struct Insertion {
  std::string x, y;
  LexicalRelation relation = LexicalRelation::None;
  std::string where;
};

// TSV "context <TAB> upward|downward"; fails naming the line for a context without exactly one {}.
std::vector<Context> read_contexts(const std::string& path);
// TSV "x <TAB> y <TAB> hypernym|hyponym|none".
std::vector<Insertion> read_insertions(const std::string& path);

struct Counts {
  std::uint64_t tests = 0, violations = 0;
  double rate() const;
};

struct ProbeSummary {
  std::size_t train = 0, held_out = 0;
  double accuracy = 0;  // on the held-out inputs; NaN without them
  std::size_t layer = 0;
};

// One NLI input of the grid (context k filled with insertion m, at k × insertions + m).
struct InputResult {
  double probe = 0, entailment = 0;  // g's P(hypernym) and f's entailment score
  bool held_out = false;             // kept out of the probe's training
  Counts counts;                     // the pairs of its context it takes part in
};

struct CompositionalityResult {
  std::vector<InputResult> inputs;
  std::vector<Counts> contexts;    // Table 3
  std::vector<Counts> insertions;  // Table 4: over every context, the pairs each insertion takes part in
  Counts upward, downward, overall;
  ProbeSummary probe;
};

// probe[k][m], entailment[k][m]: scores of context k filled with insertion m.
CompositionalityResult count_compositionality(const std::vector<Context>& contexts, const std::vector<Insertion>& insertions,
                                              const std::vector<std::vector<double>>& probe,
                                              const std::vector<std::vector<double>>& entailment);

struct ProbeSettings {
  double held_out = 0.2;  // stratified share of insertion pairs kept out of training to measure the probe's accuracy
  std::uint64_t seed = 0;
  double C = 1.0;         // L2 logistic regression (liblinear), as eval/learn/logreg.hpp
};

// Runs the NLI model on every context × insertion: its entailment score (the score label of
// `model`), and a linear probe's P(hypernym) trained on the hidden states of the second-to-last
// layer, averaged over the tokens of x in the premise and of y in the hypothesis (concatenated).
// Token spans are found by tokenizing the text up to each word; an insertion whose tokens merge
// with the context's fails naming the context's line.
// The model's part, per input of the contexts × insertions grid (context by context): its entailment
// score and the probe's features (the two mean hidden states, concatenated).
struct ProbeInput {
  double entailment = 0;
  std::vector<double> features;
};
// The layer the probe reads (fails when the model has fewer than two).
std::size_t probe_layer(ModelUnderTest& model);
// Inputs [begin, end) of the grid.
std::vector<ProbeInput> probe_inputs(ModelUnderTest& model, const std::vector<Context>& contexts,
                                     const std::vector<Insertion>& insertions, std::size_t begin, std::size_t end);
// The probe fitted on every input's features, and the counts.
CompositionalityResult fit_compositionality(const std::vector<Context>& contexts,
                                            const std::vector<Insertion>& insertions,
                                            const std::vector<ProbeInput>& inputs, std::size_t layer,
                                            const ProbeSettings& settings);


}  // namespace invar::metamorphic
