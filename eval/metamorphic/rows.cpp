#include "eval/metamorphic/rows.hpp"

#include <optional>
#include <span>

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

std::unique_ptr<run::RowRun> run_triplet_rows(run::RowRunSpec spec, const std::vector<Triplet>& triplets,
                                              std::size_t relations, const std::function<PairJudge()>& judge,
                                              TripletJudgements& out) {
  spec.rows = triplets.size();
  auto row_run = std::make_unique<run::RowRun>(std::move(spec));
  std::optional<PairJudge> open;
  const bool writes = row_run->process([&](std::size_t begin, std::size_t end) {
    if (!open) open = judge();
    const auto judged = judge_triplets(std::span(triplets).subspan(begin, end - begin), relations, *open);
    std::vector<std::string> records;
    for (std::size_t k = 0; k < end - begin; ++k) {
      run::RecordWriter record;
      for (std::size_t r = 0; r < relations; ++r)
        for (bool holds : judged[r][k]) record.put(holds);
      records.push_back(record.str());
    }
    return records;
  });
  if (!writes) return nullptr;
  out.assign(relations, {});
  for (const auto& text : row_run->records()) {
    run::RecordReader record(text, "metamorphic transitivity");
    for (std::size_t r = 0; r < relations; ++r)
      out[r].push_back({record.get_bool(), record.get_bool(), record.get_bool()});
    record.finish();
  }
  return row_run;
}

std::unique_ptr<run::RowRun> run_probe_rows(run::RowRunSpec spec, const std::vector<Context>& contexts,
                                            const std::vector<Insertion>& insertions,
                                            const std::function<ModelUnderTest&()>& model, std::vector<ProbeInput>& out) {
  spec.rows = contexts.size() * insertions.size();
  auto row_run = std::make_unique<run::RowRun>(std::move(spec));
  const bool writes = row_run->process([&](std::size_t begin, std::size_t end) {
    std::vector<std::string> records;
    for (const auto& input : probe_inputs(model(), contexts, insertions, begin, end))
      records.push_back(run::RecordWriter().put(input.entailment).put(input.features).str());
    return records;
  });
  if (!writes) return nullptr;
  out.clear();
  for (const auto& text : row_run->records()) {
    run::RecordReader record(text, "metamorphic compositionality");
    ProbeInput input;
    input.entailment = record.get_double();
    input.features = record.get_doubles();
    record.finish();
    out.push_back(std::move(input));
  }
  return row_run;
}

}  // namespace invar::metamorphic
