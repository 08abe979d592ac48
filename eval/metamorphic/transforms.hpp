#pragma once
// Transformations t that build follow-up inputs from source texts, at the levels of the paper's
// taxonomy (Manino et al. 2022, §2): characters (keyboard typos, random insertion, deletion and
// shuffling), words (a lexicon, WordNet synonyms and antonyms), sentences (the paper's neutral
// sentences of Table 1, shuffling the sentences, a seq2seq model's paraphrase); and follow-ups given
// in a file.
//
// Random transformations are seeded per input: source `row` draws from mt19937_64(seed + row)
// through stats::uniform_below, so a run is reproducible on every platform and an input's follow-up
// does not depend on the other inputs. "With probability RATE" is a draw below 10⁹ under RATE × 10⁹.
// Characters are ASCII letters: other bytes (digits, punctuation, UTF-8 sequences) are never
// touched, so a follow-up stays valid UTF-8.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace invar::metrics {
class WordNet;
}

namespace invar::metamorphic {

// Texts in, one output per text, in order (a seq2seq model's generation).
using TextMap = std::function<std::vector<std::string>(const std::vector<std::string>& texts)>;

struct Transformation {
  std::string name;
  std::string description;  // what it does, shown beside its counts: its sentence, file, rate
  // The follow-up of source `row` (the row lets seeded noise differ between inputs reproducibly).
  std::function<std::string(const std::string& text, std::size_t row)> apply;
  // Set for a model: every follow-up in one call (batched), as `apply` gives them one by one.
  TextMap batch;
};

// The follow-ups of `texts` (row i is texts[i]): one batched call where the transformation has one.
std::vector<std::string> follow_up_texts(const Transformation& t, const std::vector<std::string>& texts);

// Six sentences written for invar that say nothing about the text they join, as the paper's six;
// the first three are put at the start of a text, the last three at its end.
const std::vector<std::string>& neutral_sentences();
// prefix-1, prefix-2, prefix-3, suffix-1, suffix-2, suffix-3.
std::vector<Transformation> neutral_transformations();

Transformation prefix_transformation(std::string name, std::string sentence);
Transformation suffix_transformation(std::string name, std::string sentence);

// Lexicon TSV: word <TAB> replacement per line. Whole words (maximal runs of letters, digits, '-'
// and '\'') are replaced when found, as written or with the first letter capitalised.
using Lexicon = std::unordered_map<std::string, std::string>;
Lexicon read_lexicon(const std::string& path);
Transformation substitution_transformation(std::string name, Lexicon lexicon);

// Each ASCII letter, with probability `rate`, is either replaced by a neighbouring key on a QWERTY
// keyboard or swapped with the following letter (equal chances); seeded per input with
// mt19937_64(seed + row), so a run is reproducible and rows do not depend on each other.
Transformation noise_transformation(std::string name, double rate, std::uint64_t seed);

// Character level. char-insert: after each letter, with probability `rate`, a letter a–z drawn
// uniformly (upper case after an upper-case letter). char-delete: each letter, with probability
// `rate`, is deleted. char-shuffle: each word of four or more letters (a maximal run of letters),
// with probability `rate`, has its inner letters shuffled (Fisher–Yates), the first and last kept.
Transformation char_insert_transformation(std::string name, double rate, std::uint64_t seed);
Transformation char_delete_transformation(std::string name, double rate, std::uint64_t seed);
Transformation char_shuffle_transformation(std::string name, double rate, std::uint64_t seed);

// Word level, from WordNet (metrics::WordNet, the reader METEOR uses). A word (a maximal run of
// letters) that is a WordNet lemma as written (lower-cased; inflected forms are kept, since WordNet
// lists their synonyms uninflected) and not a function word (function_words()) is, with probability
// `rate`, replaced by one of its synonyms (the other lemma names of its synsets) or antonyms
// (Lemma.antonyms() of its own lemma in each synset), drawn uniformly from the distinct candidates
// in WordNet's order; "_" becomes a space and a capitalised word's replacement is capitalised. A
// word without candidates is kept.
enum class WordRelation { Synonym, Antonym };
Transformation wordnet_transformation(std::string name, WordRelation relation, std::shared_ptr<const metrics::WordNet> wordnet,
                                      double rate, std::uint64_t seed);
// Articles, pronouns, prepositions, conjunctions, auxiliaries and modals that WordNet also lists as
// content words ("a" vitamin A, "can" tin, "will" volition), which the WordNet transformations keep.
const std::vector<std::string>& function_words();

// Sentence level. sentence-shuffle: the text split into sentences (each ends at a run of ". ! ?"
// and closing quotes or brackets followed by white space, or at the end), put in a random order
// (Fisher–Yates) and joined with single spaces; a text of one sentence is kept.
Transformation sentence_shuffle_transformation(std::string name, std::uint64_t seed);
// paraphrase: a seq2seq model's output for each text (generate() with the model's settings).
Transformation paraphrase_transformation(std::string name, std::string model, TextMap generate);

// What --transform arguments may need besides their text.
struct TransformTools {
  std::uint64_t seed = 0;
  std::string wordnet;  // the WordNet folder; empty: metrics::WordNet::default_directory()
  // Opens a seq2seq model (paraphrase:MODEL); unset: paraphrase is refused.
  std::function<TextMap(const std::string& model)> seq2seq;
};

// A --transform argument: "neutral" (the six above), "prefix:TEXT", "suffix:TEXT",
// "lexicon:FILE", "noise:RATE", "char-insert:RATE", "char-delete:RATE", "char-shuffle:RATE",
// "synonym:RATE", "antonym:RATE", "sentence-shuffle", "paraphrase:MODEL"; an optional "NAME=" in
// front names it.
std::vector<Transformation> parse_transformation(const std::string& argument, const TransformTools& tools);

}  // namespace invar::metamorphic
