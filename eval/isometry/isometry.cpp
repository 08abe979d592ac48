#include "eval/isometry/isometry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <map>

#include "core/error.hpp"
#include "core/io.hpp"

namespace invar::isometry {

// ---- Inputs --------------------------------------------------------------------------------------

SentencePairs read_sentence_pairs(const std::string& path, const PairColumns& columns) {
  auto read = read_text_columns(path,
                                {{"sentence 1", columns.first, "1", "sentence1"},
                                 {"sentence 2", columns.second, "2", "sentence2"}},
                                columns.header);
  SentencePairs pairs;
  pairs.path = std::move(read.path);
  pairs.first = std::move(read.texts[0]);
  pairs.second = std::move(read.texts[1]);
  pairs.line_numbers = std::move(read.line_numbers);
  return pairs;
}

void write_sentence_pairs(const std::string& path, const SentencePairs& pairs) {
  const bool jsonl = table_format_from_path(path) == TableFormat::Jsonl;
  AtomicOutput out(path);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (jsonl) {
      out.write_line(nlohmann::json{{"sentence1", pairs.first[i]}, {"sentence2", pairs.second[i]}}.dump());
      continue;
    }
    for (const auto* sentence : {&pairs.first[i], &pairs.second[i]})
      if (sentence->find_first_of("\t\r\n") != std::string::npos)
        fail("{}: pair {} holds a tab or a line break, which TSV cannot; save to a .jsonl file", path, i + 1);
    out.write_line(pairs.first[i] + "\t" + pairs.second[i]);
  }
  out.commit();
}

SentencePairs translate_pairs(const SentencePairs& source, const TextTranslator& translate, std::string path) {
  std::vector<std::string> texts = source.first;
  texts.insert(texts.end(), source.second.begin(), source.second.end());
  auto translated = translate(texts);
  if (translated.size() != texts.size())
    fail("{}: the translator returned {} translations for {} sentences", path, translated.size(), texts.size());
  SentencePairs target;
  target.path = std::move(path);
  const auto n = static_cast<std::ptrdiff_t>(source.size());
  target.first.assign(translated.begin(), translated.begin() + n);
  target.second.assign(translated.begin() + n, translated.end());
  target.line_numbers = source.line_numbers;
  return target;
}

namespace {

constexpr std::string_view kSourcePrefix = "source:";
constexpr std::string_view kTargetPrefix = "target:";
static_assert(kSourcePrefix.size() == kTargetPrefix.size());

double parse_probability(const std::string& text, const std::string& where, const std::string& column) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value) || value < 0 || value > 1)
    fail("{}: {}: expected a probability in [0, 1], got '{}'", where, column, text);
  return value;
}

// The column names of a scores file: the TSV header, or the keys of the first JSONL object in order.
Table read_score_table(const std::string& path) {
  TableOptions options{.format = table_format_from_path(path) == TableFormat::Jsonl ? TableFormat::Jsonl
                                                                                   : TableFormat::Tsv,
                       .header = true};
  if (options.format == TableFormat::Jsonl) {
    LineReader reader(path);
    std::string line;
    if (!reader.next(line)) fail("{}: no scores", reader.path());
    nlohmann::ordered_json first;
    try {
      first = nlohmann::ordered_json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      fail("{}: invalid JSON: {}", reader.where(), e.what());
    }
    if (!first.is_object()) fail("{}: expected a JSON object", reader.where());
    for (const auto& item : first.items()) options.fields.push_back(item.key());
  }
  return read_table(path, options);
}

}  // namespace

DetectorScores read_detector_scores(const std::string& path) {
  Table table = read_score_table(path);
  if (table.rows.empty()) fail("{}: no scores", table.path);
  DetectorScores scores;
  scores.path = table.path;
  std::map<std::string, std::pair<std::optional<std::size_t>, std::optional<std::size_t>>> columns;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    const auto& name = table.columns[c];
    const bool source = name.starts_with(kSourcePrefix), target = name.starts_with(kTargetPrefix);
    const auto detector = source || target ? name.substr(kSourcePrefix.size()) : std::string();
    if (detector.empty())
      fail("{}: column '{}' is not named source:DETECTOR or target:DETECTOR", table.path, name);
    if (!columns.contains(detector)) scores.detectors.push_back(detector);
    auto& slot = source ? columns[detector].first : columns[detector].second;
    if (slot) fail("{}: column '{}' appears twice", table.path, name);
    slot = c;
  }
  for (const auto& [detector, pair] : columns) {
    if (!pair.first) fail("{}: detector '{}' has a target:{} column but no source:{} column", table.path, detector, detector, detector);
    if (!pair.second) fail("{}: detector '{}' has a source:{} column but no target:{} column", table.path, detector, detector, detector);
  }
  for (const auto& detector : scores.detectors) {
    const auto [source_column, target_column] = columns.at(detector);
    std::vector<double> source, target;
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
      source.push_back(parse_probability(table.rows[r][*source_column], table.where(r), table.columns[*source_column]));
      target.push_back(parse_probability(table.rows[r][*target_column], table.where(r), table.columns[*target_column]));
    }
    scores.source.push_back(std::move(source));
    scores.target.push_back(std::move(target));
  }
  return scores;
}

DetectorScores detect_paraphrases(const SentencePairs& source, const SentencePairs& target,
                                  const std::vector<ParaphraseDetector>& detectors) {
  DetectorScores scores;
  scores.path = "(computed)";
  auto run = [&](const ParaphraseDetector& detector, const SentencePairs& pairs) {
    auto p = detector.probabilities(pairs.first, pairs.second);
    if (p.size() != pairs.size())
      fail("detector {} returned {} probabilities for {} pairs of {}", detector.name, p.size(), pairs.size(), pairs.path);
    for (double v : p)
      if (!(v >= 0 && v <= 1)) fail("detector {} returned P(paraphrase) = {} on {}", detector.name, v, pairs.path);
    return p;
  };
  for (const auto& detector : detectors) {
    scores.detectors.push_back(detector.name);
    scores.source.push_back(run(detector, source));
    scores.target.push_back(run(detector, target));
  }
  return scores;
}

IsometryDataSet make_isometry_data_set(std::string name, SentencePairs source, SentencePairs target,
                                       DetectorScores scores, std::string translator) {
  auto aligned = [&](std::size_t n, const std::string& path, const char* what) {
    if (n != source.size())
      fail("{} has {} pairs but {} has {} {}; they must be line-aligned", source.path, source.size(), path, n, what);
  };
  aligned(target.size(), target.path, "translated pairs");
  if (scores.detectors.empty()) fail("{}: no paraphrase detectors", scores.path);
  aligned(scores.source.front().size(), scores.path, "score rows");
  return {std::move(name), std::move(translator), std::move(source), std::move(target), std::move(scores)};
}

// ---- Categories and agreement ---------------------------------------------------------------------

IsometryCategory isometry_category(const std::optional<std::pair<int, int>>& judgement) {
  if (!judgement) return IsometryCategory::NoMajority;
  const auto [x, y] = *judgement;
  if (x && y) return IsometryCategory::Isometric;
  if (!x && !y) return IsometryCategory::Ambiguous;
  return x ? IsometryCategory::Type2Anisometry : IsometryCategory::Type1Anisometry;
}

const char* category_key(IsometryCategory category) {
  switch (category) {
    case IsometryCategory::Isometric: return "isometric";
    case IsometryCategory::Ambiguous: return "ambiguous";
    case IsometryCategory::Type1Anisometry: return "type1";
    case IsometryCategory::Type2Anisometry: return "type2";
    case IsometryCategory::NoMajority: return "none";
  }
  return "";
}

const char* category_label(IsometryCategory category) {
  switch (category) {
    case IsometryCategory::Isometric: return "[1,1] isometric";
    case IsometryCategory::Ambiguous: return "[0,0] ambiguous";
    case IsometryCategory::Type1Anisometry: return "[0,1] type-1 anisometry";
    case IsometryCategory::Type2Anisometry: return "[1,0] type-2 anisometry";
    case IsometryCategory::NoMajority: return "Ø ambiguous";
  }
  return "";
}

std::vector<AgreementPattern> agreement_patterns(const std::vector<std::string>& detectors) {
  const std::size_t n = detectors.size();
  // Nine detectors already make 255 majority patterns; more would swamp the agreement table.
  if (n == 0 || n > 9) fail("isometry needs 1 to 9 paraphrase detectors, got {}", n);
  std::vector<std::size_t> all(n);
  for (std::size_t d = 0; d < n; ++d) all[d] = d;
  std::vector<AgreementPattern> patterns{{"all", all}};
  // Strict majorities short of all, largest first, each size in lexicographic order of detectors.
  for (std::size_t size = n - 1; 2 * size > n; --size) {
    std::vector<bool> chosen(n, false);
    std::fill(chosen.begin(), chosen.begin() + static_cast<std::ptrdiff_t>(size), true);
    do {
      AgreementPattern pattern;
      std::vector<std::string> names;
      for (std::size_t d = 0; d < n; ++d)
        if (chosen[d]) {
          pattern.detectors.push_back(d);
          names.push_back(detectors[d]);
        }
      pattern.name = fmt::format("{}", fmt::join(names, "+"));
      patterns.push_back(std::move(pattern));
    } while (std::prev_permutation(chosen.begin(), chosen.end()));
  }
  patterns.push_back({"none", {}});
  return patterns;
}

// ---- The study -------------------------------------------------------------------------------------

void validate_epsilon(double epsilon) {
  if (!(epsilon > 0 && epsilon < 1)) fail("--epsilon must lie in (0, 1), got {}", epsilon);
}

double category_share(const CategoryCounts& counts, IsometryCategory category) {
  std::size_t total = 0;
  for (auto c : counts) total += c;
  return total ? static_cast<double>(counts[static_cast<std::size_t>(category)]) / static_cast<double>(total) : 0.0;
}

std::optional<IsometryCorrelation> isometry_correlation(const std::vector<double>& chrf,
                                                        const std::vector<double>& judgement) {
  if (chrf.size() < 2) return std::nullopt;
  IsometryCorrelation c;
  c.n = chrf.size();
  c.r = stats::pearson(chrf, judgement).statistic;
  c.test = stats::correlation_t_test(c.r, c.n);
  c.strength = stats::schober_strength(c.r);
  return c;
}

int pooled_judgement(double probability, double epsilon) { return probability > epsilon ? 1 : 0; }

namespace {

std::size_t pattern_of(const IsometryPair& pair, const std::vector<AgreementPattern>& patterns) {
  if (!pair.mode.mode) return patterns.size() - 1;
  std::vector<std::size_t> holding;
  for (std::size_t d = 0; d < pair.judgements.size(); ++d)
    if (pair.judgements[d] == *pair.mode.mode) holding.push_back(d);
  for (std::size_t p = 0; p < patterns.size(); ++p)
    if (patterns[p].detectors == holding) return p;
  fail_internal("no agreement pattern for {} detectors holding the mode", holding.size());
}

std::optional<IsometryCorrelation> correlate(const std::vector<IsometryPair>& pairs, bool target) {
  std::vector<double> chrf, judged;
  for (const auto& pair : pairs) {
    if (!pair.mode.mode) continue;
    chrf.push_back(target ? pair.chrf_target.mean : pair.chrf_source.mean);
    judged.push_back(target ? pair.mode.mode->second : pair.mode.mode->first);
  }
  return isometry_correlation(chrf, judged);
}

// Source then target, each detector by detector and pair by pair: the R script's row order (r does
// not depend on it).
std::optional<IsometryCorrelation> correlate_pooled(const IsometryDataSet& data, const std::vector<IsometryPair>& pairs,
                                                    double epsilon) {
  std::vector<double> chrf, judged;
  for (bool target : {false, true})
    for (const auto& p : target ? data.scores.target : data.scores.source)
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        chrf.push_back(target ? pairs[i].chrf_target.mean : pairs[i].chrf_source.mean);
        judged.push_back(pooled_judgement(p[i], epsilon));
      }
  return isometry_correlation(chrf, judged);
}

double mean_r(const std::vector<IsometryDataSetResult>& results, const std::vector<std::size_t>& data_sets,
              std::optional<IsometryCorrelation> IsometryDataSetResult::*correlation) {
  double sum = 0;
  std::size_t n = 0;
  for (auto s : data_sets)
    if (const auto& c = results[s].*correlation; c && std::isfinite(c->r)) {
      sum += c->r;
      ++n;
    }
  return n ? sum / static_cast<double>(n) : std::nan("");
}

TranslatorSummary summarise(std::string name, std::vector<std::size_t> data_sets,
                            const std::vector<IsometryDataSetResult>& results) {
  TranslatorSummary summary{std::move(name), std::move(data_sets)};
  for (auto category : kAllIsometryCategories) {
    double sum = 0;
    for (auto s : summary.data_sets) sum += category_share(results[s].categories, category);
    summary.macro_average[static_cast<std::size_t>(category)] = sum / static_cast<double>(summary.data_sets.size());
  }
  summary.mean_pooled_r = mean_r(results, summary.data_sets, &IsometryDataSetResult::pooled);
  summary.mean_source_r = mean_r(results, summary.data_sets, &IsometryDataSetResult::source);
  summary.mean_target_r = mean_r(results, summary.data_sets, &IsometryDataSetResult::target);
  return summary;
}

IsometryDataSetResult run_data_set(const IsometryDataSet& data, const std::vector<AgreementPattern>& patterns,
                                   const IsometryOptions& options, const metrics::CorpusMetric& chrf) {
  const std::size_t detectors = data.scores.detectors.size();
  IsometryDataSetResult result;
  result.detector_categories.assign(detectors, CategoryCounts{});
  result.patterns.assign(patterns.size(), 0);
  for (std::size_t i = 0; i < data.source.size(); ++i) {
    IsometryPair pair;
    for (std::size_t d = 0; d < detectors; ++d) {
      std::pair<int, int> judgement{data.scores.source[d][i] >= options.epsilon, data.scores.target[d][i] >= options.epsilon};
      pair.judgements.push_back(judgement);
      ++result.detector_categories[d][static_cast<std::size_t>(isometry_category(judgement))];
    }
    pair.mode = stats::mode_of_pairs(pair.judgements);
    pair.category = isometry_category(pair.mode.mode);
    pair.pattern = pattern_of(pair, patterns);
    pair.chrf_source = metrics::commutative_score(data.source.first[i], data.source.second[i], chrf);
    pair.chrf_target = metrics::commutative_score(data.target.first[i], data.target.second[i], chrf);
    ++result.categories[static_cast<std::size_t>(pair.category)];
    ++result.patterns[pair.pattern];
    result.pairs.push_back(std::move(pair));
  }
  result.source = correlate(result.pairs, false);
  result.target = correlate(result.pairs, true);
  result.pooled = correlate_pooled(data, result.pairs, options.epsilon);
  return result;
}

}  // namespace

IsometryResult run_isometry(const std::vector<IsometryDataSet>& data_sets, const IsometryOptions& options) {
  validate_epsilon(options.epsilon);
  if (data_sets.empty()) fail("isometry needs at least one data set of pairs");
  IsometryResult result;
  result.epsilon = options.epsilon;
  result.procedures = options.procedures;
  result.detectors = data_sets.front().scores.detectors;
  for (const auto& data : data_sets)
    if (data.scores.detectors != result.detectors)
      fail("{} scores detectors {{{}}} but {} scores {{{}}}; every data set needs the same detectors",
           data_sets.front().scores.path, fmt::join(result.detectors, ", "), data.scores.path,
           fmt::join(data.scores.detectors, ", "));
  result.patterns = agreement_patterns(result.detectors);
  const auto chrf = metrics::make_corpus_metric("chrf", options.chrf);
  result.chrf_name = chrf->name();
  for (const auto& data : data_sets) result.data_sets.push_back(run_data_set(data, result.patterns, options, *chrf));
  std::vector<std::string> translators;
  std::map<std::string, std::vector<std::size_t>> grouped;
  for (std::size_t s = 0; s < data_sets.size(); ++s) {
    if (!grouped.contains(data_sets[s].translator)) translators.push_back(data_sets[s].translator);
    grouped[data_sets[s].translator].push_back(s);
  }
  for (auto& name : translators) {
    auto indices = std::move(grouped[name]);
    result.translators.push_back(summarise(std::move(name), std::move(indices), result.data_sets));
  }
  return result;
}

}  // namespace invar::isometry
