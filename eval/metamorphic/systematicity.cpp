#include "eval/metamorphic/systematicity.hpp"

#include <cmath>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/io.hpp"

namespace invar::metamorphic {

namespace {

double ratio(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(part) / static_cast<double>(whole);
}

TransformationResult from_single(std::string name, const SingleCounts& counts, std::size_t n) {
  TransformationResult r{std::move(name), counts.tests, counts.violating.size(), std::vector<std::uint64_t>(n, 1),
                         std::vector<std::uint64_t>(n, 0)};
  for (auto i : counts.violating) r.source_violations[i] = 1;
  return r;
}

TransformationResult from_pairwise(std::string name, PairwiseCounts counts) {
  return {std::move(name), counts.tests, counts.violations, std::move(counts.source_tests), std::move(counts.source_violations)};
}

void require(bool present, const Suite& suite, const char* what, const RelationSettings& settings) {
  if (!present)
    fail("{}: the {} property needs {} for every input", suite.path, property_name(settings.property), what);
}

TransformationResult check(const Suite& suite, std::size_t k, const RelationSettings& settings) {
  const auto& s = suite.source;
  const auto& t = suite.follow_ups[k];
  const auto& name = suite.names[k];
  const std::size_t n = suite.line_numbers.size();
  const bool single = settings.arity == Arity::Single;
  switch (settings.property) {
    case Property::Equivalence:
      require(s.classes.size() == n && t.classes.size() == n, suite, "predicted classes", settings);
      return single ? from_single(name, check_equivalence(s.classes, t.classes), n)
                    : from_pairwise(name, count_class_violations(s.classes, t.classes));
    case Property::Order:
      require(s.scores.size() == n && t.scores.size() == n, suite, "scores", settings);
      return single ? from_single(name, check_order(s.scores, t.scores, settings.direction), n)
                    : from_pairwise(name, count_order_violations(s.scores, t.scores));
    case Property::Similarity:
      if (!s.embeddings.empty())
        return single ? from_single(name, check_cosine_similarity(s.embeddings, t.embeddings, settings.delta), n)
                      : from_pairwise(name, count_cosine_violations(s.embeddings, t.embeddings, settings.delta));
      require(s.scores.size() == n && t.scores.size() == n, suite, "scores", settings);
      return single ? from_single(name, check_score_similarity(s.scores, t.scores, settings.delta), n)
                    : from_pairwise(name, count_similarity_violations(s.scores, t.scores, settings.delta));
  }
  fail("unknown property");
}

double parse_score(const std::string& text, const std::string& where) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && std::isfinite(value)) return value;
  } catch (const std::logic_error&) {
  }
  fail("{}: '{}' is not a finite number", where, text);
}

Table read_scores_table(const std::string& path) {
  const auto format = table_format_from_path(path);
  if (format == TableFormat::Jsonl) {
    // The keys of the first object name the columns; every object must have them.
    LineReader reader(path);
    std::string line;
    if (!reader.next(line)) fail("{}: the score file is empty", path);
    nlohmann::json first;
    try {
      first = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      fail("{}: not a JSON object", reader.where());
    }
    if (!first.is_object()) fail("{}: not a JSON object", reader.where());
    TableOptions options{.format = format};
    for (const auto& [key, value] : first.items()) options.fields.push_back(key);
    return read_table(path, options);
  }
  if (format != TableFormat::Tsv && format != TableFormat::Csv)
    fail("{}: a score file must be .tsv, .csv or .jsonl", path);
  return read_table(path, {.format = format, .header = true});
}

}  // namespace

double TransformationResult::rate() const { return ratio(violations, tests); }
double TransformationResult::source_rate(std::size_t source) const {
  return ratio(source_violations[source], source_tests[source]);
}
double SuiteResult::rate() const { return ratio(violations, tests); }

void validate_delta(double delta, bool cosine) {
  if (!std::isfinite(delta)) fail("--delta must be a finite number, got {}", delta);
  if (!cosine && !(delta >= 0))
    fail("--delta must be a finite number >= 0 (the largest |Δ score| that counts as similar), got {}", delta);
}

SuiteResult run_suite(const Suite& suite, const RelationSettings& settings) {
  if (settings.property == Property::Similarity) validate_delta(settings.delta, !suite.source.embeddings.empty());
  if (suite.follow_ups.empty()) fail("{}: no transformation to test (give --transform or --follow-ups)", suite.path);
  if (suite.names.size() != suite.follow_ups.size()) fail("{}: one name per transformation is needed", suite.path);
  const std::size_t n = suite.line_numbers.size();
  if (settings.arity == Arity::Pairwise && n < 2) fail("{}: pairwise relations need at least two sources, got {}", suite.path, n);
  if (n == 0) fail("{}: no sources", suite.path);
  SuiteResult result{settings, {}, 0, 0};
  for (std::size_t k = 0; k < suite.follow_ups.size(); ++k) {
    result.transformations.push_back(check(suite, k, settings));
    result.tests += result.transformations.back().tests;
    result.violations += result.transformations.back().violations;
  }
  return result;
}

Suite read_score_file(const std::string& path, Property property) {
  const auto table = read_scores_table(path);
  Suite suite;
  suite.path = path;
  const std::size_t source_column = table.column("source");
  std::optional<std::size_t> text_column, label_column;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (table.columns[c] == "text") text_column = c;
    else if (table.columns[c] == "label") label_column = c;
    else if (c != source_column) suite.names.push_back(table.columns[c]);
  }
  suite.follow_ups.resize(suite.names.size());
  suite.line_numbers = table.line_numbers;
  std::map<std::string, int> classes;  // class name → index, in order of appearance
  auto value = [&](std::size_t row, std::size_t column, Outputs& into) {
    const auto where = fmt::format("{}:{}:{}", path, table.line_numbers[row], table.columns[column]);
    const auto& cell = table.rows[row][column];
    if (property == Property::Equivalence) {
      if (is_blank(cell)) fail("{}: empty class", where);
      auto [it, added] = classes.emplace(cell, static_cast<int>(classes.size()));
      if (added) suite.class_names.push_back(cell);
      into.classes.push_back(it->second);
    } else {
      into.scores.push_back(parse_score(cell, where));
    }
  };
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    value(r, source_column, suite.source);
    std::size_t k = 0;
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      if (c != source_column && c != text_column && c != label_column) value(r, c, suite.follow_ups[k++]);
    if (text_column) suite.texts.push_back(table.rows[r][*text_column]);
  }
  if (label_column) {
    // Per-source labels given in the file become the reported classes (equivalence keeps its own).
    if (property != Property::Equivalence) {
      std::map<std::string, int> labels;
      for (std::size_t r = 0; r < table.rows.size(); ++r) {
        auto [it, added] = labels.emplace(table.rows[r][*label_column], static_cast<int>(labels.size()));
        if (added) suite.class_names.push_back(table.rows[r][*label_column]);
        suite.source.classes.push_back(it->second);
      }
    }
  }
  return suite;
}

}  // namespace invar::metamorphic
