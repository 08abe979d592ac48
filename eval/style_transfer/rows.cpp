#include "eval/style_transfer/rows.hpp"

#include <cstdint>
#include <limits>

#include "core/error.hpp"
#include "run/progress.hpp"
#include "run/record.hpp"

namespace invar::style_transfer {
namespace {

constexpr std::size_t kPadding = std::numeric_limits<std::size_t>::max();

// Segment indices system by system, each system's padded with kPadding to a multiple of `batch`.
std::vector<std::size_t> row_layout(const std::vector<Segment>& segments, std::size_t batch) {
  std::vector<std::size_t> layout;
  for (const auto& system : systems_of(segments)) {
    for (std::size_t i = 0; i < segments.size(); ++i)
      if (segments[i].system == system) layout.push_back(i);
    while (layout.size() % batch != 0) layout.push_back(kPadding);
  }
  return layout;
}

// What the rows read that no input option names as one file (--table GROUP=FILE, --system
// NAME=FILE): the segments themselves, judgements included.
std::string segments_content(const std::vector<Segment>& segments) {
  std::string content;
  for (const auto& s : segments) {
    run::RecordWriter record;
    record.put(s.group).put(s.system).put(s.input).put(s.output);
    for (const auto& ref : s.references) record.put(ref);
    for (const auto& value : s.human) record.put(value.has_value()).put(value.value_or(0.0));
    content += record.str() + '\n';
  }
  return content;
}

}  // namespace

std::unique_ptr<run::RowRun> run_segment_rows(run::RowRunSpec spec, const std::vector<Segment>& segments,
                                              Models& models, Scores& out) {
  const std::size_t batch = models.settings().bertscore_batch_size;
  if (batch == 0) fail("--bertscore-batch-size must be at least 1");
  const std::vector<std::size_t> layout = row_layout(segments, batch);
  spec.rows = layout.size();
  spec.chunk = 8 * batch;
  spec.content.push_back(segments_content(segments));
  auto row_run = std::make_unique<run::RowRun>(std::move(spec));
  run::Progress progress("st-eval", segments.size());
  const bool writes = row_run->process([&](std::size_t begin, std::size_t end) {
    std::vector<std::size_t> rows;
    for (std::size_t r = begin; r < end; ++r)
      if (layout[r] != kPadding) rows.push_back(layout[r]);
    const Scores scores = score_segments(segments, rows, models);
    std::vector<std::string> records;
    std::size_t k = 0;
    for (std::size_t r = begin; r < end; ++r) {
      std::vector<double> values;
      if (layout[r] != kPadding) {
        for (const auto& metric : scores.metrics) values.push_back(metric.values[k]);
        ++k;
      }
      records.push_back(run::RecordWriter().put(values).str());
    }
    progress.advance(rows.size());
    return records;
  });
  if (!writes) return nullptr;
  out = score_segments(segments, {}, models);
  for (auto& metric : out.metrics) metric.values.assign(segments.size(), 0.0);
  const auto& records = row_run->records();
  for (std::size_t r = 0; r < records.size(); ++r) {
    run::RecordReader record(records[r], "st-eval");
    const auto values = record.get_doubles();
    record.finish();
    const std::size_t expected = layout[r] == kPadding ? 0 : out.metrics.size();
    if (values.size() != expected)
      fail("an st-eval record holds {} values where {} were expected: '{}'", values.size(), expected, records[r]);
    for (std::size_t m = 0; m < values.size(); ++m) out.metrics[m].values[layout[r]] = values[m];
  }
  return row_run;
}

}  // namespace invar::style_transfer
