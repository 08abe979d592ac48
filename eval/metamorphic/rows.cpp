#include "eval/metamorphic/rows.hpp"

#include "core/error.hpp"
#include "run/record.hpp"

namespace invar::metamorphic {
namespace {

void put_output(run::RecordWriter& record, const Outputs& outputs, std::size_t i, bool embeddings) {
  if (embeddings) record.put(outputs.embeddings[i]);
  else record.put(outputs.scores[i]).put(std::int64_t{outputs.classes[i]});
}

void get_output(run::RecordReader& record, Outputs& outputs, bool embeddings) {
  if (embeddings) {
    outputs.embeddings.push_back(record.get_floats());
    return;
  }
  outputs.scores.push_back(record.get_double());
  outputs.classes.push_back(static_cast<int>(record.get_int()));
}

}  // namespace

std::unique_ptr<run::RowRun> run_suite_rows(run::RowRunSpec spec, const SuiteRowWork& work, Outputs& source,
                                            std::vector<Outputs>& follow_ups) {
  const auto& sources = *work.sources;
  const auto& sets = *work.follow_ups;
  spec.rows = sources.size();
  auto row_run = std::make_unique<run::RowRun>(std::move(spec));
  const bool writes = row_run->process([&](std::size_t begin, std::size_t end) {
    ModelUnderTest& model = work.model();
    const auto outputs_of = [&](const std::vector<std::string>& texts) {
      const std::vector<std::string> slice(texts.begin() + static_cast<std::ptrdiff_t>(begin),
                                           texts.begin() + static_cast<std::ptrdiff_t>(end));
      return work.embeddings ? model.embed(slice) : model.classify(slice);
    };
    std::vector<Outputs> computed{outputs_of(sources)};
    for (const auto& texts : sets) computed.push_back(outputs_of(texts));
    std::vector<std::string> records;
    for (std::size_t i = 0; i < end - begin; ++i) {
      run::RecordWriter record;
      for (const auto& outputs : computed) put_output(record, outputs, i, work.embeddings);
      records.push_back(record.str());
    }
    return records;
  });
  if (!writes) return nullptr;
  source = {};
  follow_ups.assign(sets.size(), {});
  for (const auto& text : row_run->records()) {
    run::RecordReader record(text, "metamorphic");
    get_output(record, source, work.embeddings);
    for (auto& outputs : follow_ups) get_output(record, outputs, work.embeddings);
    record.finish();
  }
  return row_run;
}

}  // namespace invar::metamorphic
