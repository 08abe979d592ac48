#pragma once
// What `invar isometry` computes with models, as one row run (run/row_run.hpp): every translator on
// every data set (a segment), the pairs of the segments whose translations (--translator) or
// detector probabilities (--detector) are computed forming the run's one range of rows, in
// translator then data-set order. The models open when a chunk first needs them; a pair's record
// holds its translation, how many of its sources --truncate cut, and the detectors' probabilities.
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "eval/isometry/isometry.hpp"
#include "eval/isometry/models.hpp"
#include "run/progress.hpp"
#include "run/row_run.hpp"

namespace invar::isometry {

// Where each translator's pairs come from: its model, or one file per data set.
struct TranslatorSource {
  std::string name;
  std::string model;               // empty: `files`
  std::vector<std::string> files;  // one per data set, in --pairs order
};

// Progress bars for the models' runs: the models report to whichever bar is current.
struct ProgressSlot {
  std::unique_ptr<run::Progress> bar;
  void start(std::string label, std::size_t total) {
    bar.reset();
    bar = std::make_unique<run::Progress>(std::move(label), total);
  }
};

struct SegmentModelsOptions {
  std::vector<std::string> detectors;  // NAME=MODEL or MODEL, as --detector takes them
  std::optional<std::string> paraphrase_label;
  std::optional<std::size_t> detector_max_length;
  std::size_t batch_size = 32;
  std::function<std::unique_ptr<Backend>()> backend;               // opened when a model first needs it
  std::function<SearchSettings(const Translator&)> settings;       // the translators' generation settings
  std::optional<std::string> source_language, target_language;
  bool truncate = false;
};

// The --translator and --detector models, opened when a chunk of pairs first needs them: a resumed
// run with every chunk done, a merge and a rank without chunks open none. One translator is open at
// a time (the rows reach them in order).
class SegmentModels {
 public:
  SegmentModels(SegmentModelsOptions options, const std::vector<TranslatorSource>& translators)
      : options_(std::move(options)), translators_(translators) {}

  const std::vector<ParaphraseDetector>& detectors();
  const TextTranslator& translator(std::size_t t);

  // The texts of the last translation that --truncate cut, by their index in it.
  std::vector<std::size_t> cut;

  ProgressSlot progress;

 private:
  Backend& backend();
  TextTranslator open_translator(const std::string& model);

  SegmentModelsOptions options_;
  const std::vector<TranslatorSource>& translators_;
  std::unique_ptr<Backend> backend_;  // declared before the models, so that it outlives them
  std::vector<ParaphraseDetector> detectors_;
  std::size_t translator_index_ = std::size_t(-1);
  TextTranslator translator_;
};

// One translator on one data set, when invar computes its translations or its detector
// probabilities; a segment's rows start at `begin`.
struct Segment {
  std::size_t translator = 0, data_set = 0, begin = 0;
  bool translated = false;                // by --translator (else `target` is read from a file)
  std::size_t truncated = 0;              // of its sources, cut by --truncate (whoever translated them)
  bool detects = false;                   // by --detector (else `detected` is read from a file)
  bool computed() const { return translated || detects; }
  SentencePairs target;                   // the translations read from a file
  DetectorScores detected;                // the probabilities read from a file (no --detector)
};

// What the runs of every translator and data set read: the source pairs and the detectors' names.
struct SegmentInputs {
  const std::vector<TranslatorSource>& translators;
  const std::vector<std::string>& names;  // of the data sets
  const std::vector<SentencePairs>& sources;
  const std::vector<std::string>& detectors;
};

// Every translator on every data set, in that order; the translations and probabilities not
// computed are read from their files (`score_files`: each translator's --detector-scores, one per
// data set; used when no detector is given).
std::vector<Segment> plan_segments(const SegmentInputs& in, const PairColumns& columns,
                                   const std::map<std::string, std::vector<std::string>>& score_files);

// The rows the segments compute.
std::size_t computed_rows(const std::vector<Segment>& segments, const SegmentInputs& in);

// Computes the translations and probabilities of the segments chunk by chunk (spec.rows is set
// here), split over the --shard parts or the mpirun ranks, resumable beside spec.output. Null when
// this process's part went elsewhere (a partial result, or a rank other than 0): the process then
// writes nothing more. Otherwise every segment's `target` and `detected` are filled in.
std::unique_ptr<run::RowRun> run_segments(run::RowRunSpec spec, const SegmentInputs& in, std::vector<Segment>& segments,
                                          SegmentModels& models);

}  // namespace invar::isometry
