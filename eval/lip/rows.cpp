#include "eval/lip/rows.hpp"

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "core/io.hpp"
#include "loaders/model_source.hpp"
#include "run/record.hpp"
#include "run/progress.hpp"

namespace invar::lip {
namespace {

// An embedding's record fields: its values and whether its text was cut.
void put_embedding(run::RecordWriter& record, const SentenceEmbeddings::Embedded& embedded) {
  record.put(embedded.values).put(embedded.truncated);
}

SentenceEmbeddings::Embedded get_embedding(run::RecordReader& record) {
  auto values = record.get_floats();
  return {std::move(values), record.get_bool()};
}

// The models of the rows, opened when a chunk first needs them (merge opens none).
class RowModels {
 public:
  explicit RowModels(const LipRowWork& work) : work_(work) {}

  std::vector<std::string> transform(std::size_t begin, std::size_t end) {
    if (!transformer_) {
      model_ = ModelSource::open(work_.transform_model);
      auto options = work_.transform;
      options.progress = [this](std::size_t done) { progress_->set(chunk_begin_ + done); };
      transformer_.emplace(*model_, work_.backend(), options);
      progress_.emplace("transform", work_.original->texts.size());
    }
    chunk_begin_ = begin;
    const auto outputs = transformer_->transform(*work_.original, begin, end);
    std::vector<std::string> texts;
    for (const auto& output : outputs) texts.push_back(output.text);
    std::vector<std::string> records;
    const auto embedded = embed_non_blank(texts);
    // A transformed text's record: the text, the length it was cut to (0: not cut), whether it
    // was embedded, and its embedding.
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      run::RecordWriter record;
      record.put(outputs[i].text).put(std::uint64_t{outputs[i].cut_to}).put(embedded[i].has_value());
      if (embedded[i]) put_embedding(record, *embedded[i]);
      records.push_back(record.str());
    }
    return records;
  }

  std::vector<std::string> embed(std::size_t begin, std::size_t end) {
    const std::vector<std::string> texts(work_.to_embed.begin() + begin, work_.to_embed.begin() + end);
    std::vector<std::string> records;
    for (const auto& embedded : work_.embeddings->embed(texts)) {
      run::RecordWriter record;
      put_embedding(record, embedded);
      records.push_back(record.str());
    }
    return records;
  }

 private:
  // Blank outputs are left out or refused by --empty; they are not embedded.
  std::vector<std::optional<SentenceEmbeddings::Embedded>> embed_non_blank(const std::vector<std::string>& texts) {
    std::vector<std::optional<SentenceEmbeddings::Embedded>> out(texts.size());
    if (!work_.embeddings) return out;
    std::vector<std::string> kept;
    for (const auto& text : texts)
      if (!is_blank(text)) kept.push_back(text);
    auto embedded = work_.embeddings->embed(kept);
    for (std::size_t i = 0, k = 0; i < texts.size(); ++i)
      if (!is_blank(texts[i])) out[i] = std::move(embedded[k++]);
    return out;
  }

  const LipRowWork& work_;
  std::unique_ptr<ModelSource> model_;
  std::optional<TextTransformer> transformer_;
  std::optional<run::Progress> progress_;
  std::size_t chunk_begin_ = 0;  // the transformer's progress counts within the chunk
};

}  // namespace

LipRows run_lip_rows(run::RowRunSpec spec, const LipRowWork& work) {
  const std::size_t transformed = work.transform_model.empty() ? 0 : work.original->texts.size();
  spec.rows = transformed + work.to_embed.size();
  LipRows rows;
  if (spec.rows == 0) {
    if (!spec.control.shard.empty()) fail("--shard splits what --transform and --classifier se compute; give one");
    return rows;
  }
  if (!spec.control.shard.empty() && spec.output == "-") fail("--shard writes a partial result: give --output FILE");
  RowModels models(work);
  rows.run = std::make_unique<run::RowRun>(std::move(spec));
  rows.writes = rows.run->process([&](std::size_t begin, std::size_t end) {
    std::vector<std::string> records;
    if (begin < transformed) records = models.transform(begin, std::min(end, transformed));
    if (end > transformed) {
      auto embedded = models.embed(std::max(begin, transformed) - transformed, end - transformed);
      records.insert(records.end(), embedded.begin(), embedded.end());
    }
    return records;
  });
  if (!rows.writes) return rows;
  const auto& records = rows.run->records();
  for (std::size_t i = 0; i < records.size(); ++i) {
    run::RecordReader record(records[i], "lip");
    if (i < transformed) {
      auto text = record.get_string();
      const std::size_t cut_to = record.get_uint();
      rows.transformed.push_back({std::move(text), cut_to});
      if (record.get_bool()) {
        auto embedding = get_embedding(record);
        if (work.embeddings) work.embeddings->add(rows.transformed.back().text, std::move(embedding));
      }
    } else if (work.embeddings) {
      work.embeddings->add(work.to_embed[i - transformed], get_embedding(record));
    }
    record.finish();
  }
  return rows;
}

}  // namespace invar::lip
