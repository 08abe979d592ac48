#include "eval/isometry/segments.hpp"

#include <algorithm>

#include "run/record.hpp"

namespace invar::isometry {

const std::vector<ParaphraseDetector>& SegmentModels::detectors() {
  if (detectors_.empty())
    for (const auto& argument : options_.detectors) {
      auto [name, model] = name_and_path(argument);
      detectors_.push_back(model_paraphrase_detector(
          model, backend(),
          {.name = name,
           .paraphrase_label = options_.paraphrase_label,
           .max_length = options_.detector_max_length,
           .batch_size = options_.batch_size,
           .progress = [this](std::size_t done) { progress.bar->advance(done); }}));
    }
  return detectors_;
}

const TextTranslator& SegmentModels::translator(std::size_t t) {
  if (translator_index_ != t) {
    translator_ = {};
    translator_ = open_translator(translators_[t].model);
    translator_index_ = t;
  }
  return translator_;
}

Backend& SegmentModels::backend() {
  if (!backend_) backend_ = options_.backend();
  return *backend_;
}

TextTranslator SegmentModels::open_translator(const std::string& model) {
  return model_translator(model, backend(),
                          {.settings = options_.settings,
                           .source_language = options_.source_language,
                           .target_language = options_.target_language,
                           .batch_size = options_.batch_size,
                           .truncate = options_.truncate,
                           .truncated = [this](std::size_t i) { cut.push_back(i); },
                           .progress = [this](std::size_t done) { progress.bar->set(done); }});
}

namespace {

SentencePairs slice(const SentencePairs& pairs, std::size_t begin, std::size_t end) {
  SentencePairs out;
  out.path = pairs.path;
  out.first.assign(pairs.first.begin() + begin, pairs.first.begin() + end);
  out.second.assign(pairs.second.begin() + begin, pairs.second.begin() + end);
  out.line_numbers.assign(pairs.line_numbers.begin() + begin, pairs.line_numbers.begin() + end);
  return out;
}

// One pair's record: its translation and how many of its two sources --truncate cut (when
// translated), then the detectors' probabilities on both sides, as computed.
std::string pair_record(bool translated, const SentencePairs& target, std::size_t cut,
                        const DetectorScores& scores, std::size_t i) {
  run::RecordWriter record;
  if (translated) record.put(target.first[i]).put(target.second[i]).put(std::uint64_t{cut});
  for (std::size_t d = 0; d < scores.detectors.size(); ++d) record.put(scores.source[d][i]).put(scores.target[d][i]);
  return record.str();
}

// The records of a segment's pairs read back into its `target` and `detected`.
void read_pair_records(std::span<const std::string> records, const std::string& translator_model,
                       const std::vector<std::string>& detectors, const SentencePairs& source,
                       Segment& segment) {
  if (segment.translated) segment.target = {.path = translator_model, .line_numbers = source.line_numbers};
  auto& detected = segment.detected;
  if (segment.detects) {
    detected = {.path = "(computed)", .detectors = detectors};
    detected.source.resize(detectors.size());
    detected.target.resize(detectors.size());
  }
  for (const auto& text : records) {
    run::RecordReader record(text, "isometry");
    if (segment.translated) {
      segment.target.first.push_back(record.get_string());
      segment.target.second.push_back(record.get_string());
      segment.truncated += record.get_uint();
    }
    for (std::size_t d = 0; segment.detects && d < detectors.size(); ++d) {
      detected.source[d].push_back(record.get_double());
      detected.target[d].push_back(record.get_double());
    }
    record.finish();
  }
}

// The records of rows [begin, end) of one segment (rows counted within it).
std::vector<std::string> segment_records(const Segment& segment, const SentencePairs& source,
                                         const TranslatorSource& translator, const std::string& label,
                                         std::size_t begin, std::size_t end, SegmentModels& models) {
  const auto pairs = slice(source, begin, end);
  SentencePairs translated;
  if (segment.translated) {
    models.progress.start("translate " + label, 2 * pairs.size());
    models.cut.clear();
    translated = translate_pairs(pairs, models.translator(segment.translator), translator.model);
  } else {
    translated = slice(segment.target, begin, end);
  }
  DetectorScores scores;
  if (segment.detects) {
    const auto& detectors = models.detectors();
    models.progress.start("detect " + label, 2 * pairs.size() * detectors.size());
    scores = detect_paraphrases(pairs, translated, detectors);
  }
  models.progress.bar.reset();
  // translate_pairs translates every first text, then every second one.
  std::vector<std::size_t> cut(pairs.size());
  if (segment.translated)
    for (std::size_t text : models.cut) ++cut[text % pairs.size()];
  std::vector<std::string> records;
  for (std::size_t i = 0; i < pairs.size(); ++i)
    records.push_back(pair_record(segment.translated, translated, cut[i], scores, i));
  return records;
}

}  // namespace

std::vector<Segment> plan_segments(const SegmentInputs& in, const PairColumns& columns,
                                   const std::map<std::string, std::vector<std::string>>& scores) {
  std::vector<Segment> segments;
  std::size_t rows = 0;
  for (std::size_t t = 0; t < in.translators.size(); ++t)
    for (std::size_t s = 0; s < in.sources.size(); ++s) {
      const auto& translator = in.translators[t];
      Segment segment{.translator = t, .data_set = s, .begin = rows, .translated = !translator.model.empty()};
      if (!segment.translated) segment.target = read_sentence_pairs(translator.files[s], columns);
      segment.detects = !in.detectors.empty();
      if (!segment.detects) segment.detected = read_detector_scores(scores.at(translator.name)[s]);
      if (segment.computed()) rows += in.sources[s].size();
      segments.push_back(std::move(segment));
    }
  return segments;
}


std::size_t computed_rows(const std::vector<Segment>& segments, const SegmentInputs& in) {
  return segments.back().begin + (segments.back().computed() ? in.sources.back().size() : 0);
}

std::unique_ptr<run::RowRun> run_segments(run::RowRunSpec spec, const SegmentInputs& in, std::vector<Segment>& segments,
                                          SegmentModels& models) {
  spec.rows = computed_rows(segments, in);
  auto row_run = std::make_unique<run::RowRun>(std::move(spec));
  const bool writes = row_run->process([&](std::size_t begin, std::size_t end) {
    std::vector<std::string> records;
    for (const auto& segment : segments) {
      const std::size_t size = segment.computed() ? in.sources[segment.data_set].size() : 0;
      const std::size_t from = std::max(begin, segment.begin), to = std::min(end, segment.begin + size);
      if (from >= to) continue;
      const auto& translator = in.translators[segment.translator];
      auto part = segment_records(segment, in.sources[segment.data_set], translator,
                                  translator.name + ":" + in.names[segment.data_set], from - segment.begin,
                                  to - segment.begin, models);
      records.insert(records.end(), part.begin(), part.end());
    }
    return records;
  });
  if (!writes) return nullptr;
  const std::span<const std::string> records = row_run->records();
  for (auto& segment : segments)
    if (segment.computed())
      read_pair_records(records.subspan(segment.begin, in.sources[segment.data_set].size()),
                        in.translators[segment.translator].model, in.detectors, in.sources[segment.data_set], segment);
  return row_run;
}

}  // namespace invar::isometry
