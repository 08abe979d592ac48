#include "eval/robustness/rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "loaders/model_source.hpp"
#include "run/progress.hpp"
#include "run/record.hpp"

namespace invar::robustness {
namespace {

// One model open at a time: the rows reach the models in order.
class OpenModel {
 public:
  explicit OpenModel(const PredictionRowWork& work) : work_(work) {}

  TextEncoder& encoder(std::size_t m) {
    if (index_ != m) {
      encoder_.reset();
      source_ = ModelSource::open(work_.models[m]);
      encoder_.emplace(*source_, work_.backend());
      progress_.emplace(fmt::format("model {}/{}", m + 1, work_.models.size()), work_.texts->size());
      index_ = m;
    }
    return *encoder_;
  }
  run::Progress& progress() { return *progress_; }

 private:
  const PredictionRowWork& work_;
  std::size_t index_ = std::size_t(-1);
  std::unique_ptr<ModelSource> source_;
  std::optional<TextEncoder> encoder_;
  std::optional<run::Progress> progress_;
};

}  // namespace

std::unique_ptr<run::RowRun> run_prediction_rows(run::RowRunSpec spec, const PredictionRowWork& work,
                                                 std::vector<ModelPredictions>& out) {
  const std::vector<std::string>& texts = *work.texts;
  spec.rows = work.models.size() * texts.size();
  auto row_run = std::make_unique<run::RowRun>(std::move(spec));
  OpenModel open(work);
  const bool writes = row_run->process([&](std::size_t begin, std::size_t end) {
    std::vector<std::string> records;
    // The rows of each model in [begin, end): one prediction call per model. A slice's count of
    // truncated texts goes in its first record (and 0 in the others), so that records sum to it.
    for (std::size_t row = begin; row < end;) {
      const std::size_t m = row / texts.size(), first = row % texts.size();
      const std::size_t last = std::min(texts.size(), first + (end - row));
      TextEncoder& encoder = open.encoder(m);
      const std::vector<std::string> slice(texts.begin() + static_cast<std::ptrdiff_t>(first),
                                           texts.begin() + static_cast<std::ptrdiff_t>(last));
      std::size_t truncated = 0;
      const auto labels = predict(encoder, slice, *work.map, *work.task_labels,
                                  {work.batch_size, [&](std::size_t n) { open.progress().advance(n); }}, truncated);
      for (std::size_t i = 0; i < labels.size(); ++i)
        records.push_back(run::RecordWriter()
                              .put(labels[i])
                              .put(std::uint64_t{i == 0 ? truncated : 0})
                              .put(std::uint64_t{encoder.max_length()})
                              .str());
      row += last - first;
    }
    return records;
  });
  if (!writes) return nullptr;
  out.assign(work.models.size(), {});
  const auto& records = row_run->records();
  for (std::size_t row = 0; row < records.size(); ++row) {
    auto& model = out[row / texts.size()];
    run::RecordReader record(records[row], "robustness");
    model.labels.push_back(record.get_string());
    model.truncated += record.get_uint();
    model.max_length = record.get_uint();
    record.finish();
  }
  return row_run;
}

}  // namespace invar::robustness
