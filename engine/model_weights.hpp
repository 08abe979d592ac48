#pragma once
// A model's weights by canonical name: each is looked up under the Hugging Face names its family's
// table (models/*_spec) lists, validated, and uploaded once to the backend's WeightStore. Shared by
// every model implementation, so they all treat missing, optional and misshapen weights alike.
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.hpp"
#include "loaders/model_source.hpp"
#include "models/weight_name.hpp"

namespace invar {

struct Linear {
  Tensor weight, bias;  // bias empty where the family has none
};

struct Norm {
  Tensor weight, bias;
};

// How a model reads each stored tensor it loads, by stored name.
using WeightUses = std::map<std::string, std::set<WeightUse>>;

class ModelWeights {
 public:
  // `source` and `backend` must outlive this object (CPU weights are views of the mapped file).
  ModelWeights(const ModelSource& source, Backend& backend, std::vector<WeightName> names);

  // Whether the table lists `canonical`, and whether the checkpoint stores it.
  bool listed(const std::string& canonical) const;
  bool stored(const std::string& canonical) const;

  // The weight; empty when it is optional and absent. Fails naming the file when a required one is
  // missing or when `expected` (if given) differs from its shape. `use` as WeightStore::add: a
  // Matrix goes only to linear's w, a Table only to gather_rows. Canonical names stored as the same
  // tensor get the same backend tensor. Every weight's bytes are checked (checksums, no NaN or
  // infinity) here, except a Table's: check_rows checks the rows a gather reads, when it first does.
  Tensor get(const std::string& canonical, const Shape& expected = {}, WeightUse use = WeightUse::Any) const;
  // Checks the rows `ids` of `table` (a Table that get() returned) before a gather reads them
  // (ModelSource::check_rows); does nothing for any other tensor (a computed table).
  void check_rows(const Tensor& table, std::span<const std::int32_t> ids) const;
  // "<canonical>.weight" [out, in] (a Matrix) and, when listed, "<canonical>.bias" [out].
  Linear linear(const std::string& canonical, std::int64_t out, std::int64_t in) const;
  // "<canonical>.weight" and, when listed, "<canonical>.bias", both [width].
  Norm norm(const std::string& canonical, std::int64_t width) const;
  // Projections "<canonical>.<part>" of [rows, cols] each, concatenated along the output dimension
  // (q, k, v → one GEMM); the weight is a Matrix.
  Linear fused(const std::string& canonical, std::initializer_list<const char*> parts, std::int64_t rows,
               std::int64_t cols) const;
  // A required weight's values on the host, checked against `expected`.
  std::vector<float> host(const std::string& canonical, const std::vector<std::int64_t>& expected) const;
  // Records that the model may fetch `canonical` with `use` later, on demand (the vocabulary
  // shortlist's LM-head table), so that uses() holds it from the start.
  void may_get(const std::string& canonical, WeightUse use) const;
  // Every stored tensor fetched (or announced by may_get) so far, with the uses it was fetched for:
  // what `invar convert --dtype int8` learns the model's linear-layer matrices from.
  const WeightUses& uses() const { return uses_; }

  WeightStore& store() { return *store_; }
  std::size_t bytes() const { return store_->bytes(); }  // backend memory the weights take
  const std::string& path() const { return source_.path(); }

 private:
  const WeightName& name(const std::string& canonical) const;
  // The stored name found for `canonical`, or nullptr.
  const std::string* find(const std::string& canonical) const;
  // The stored tensor, checked (but for a Table: ModelSource::table); its use is recorded in uses_.
  const TensorData require(const std::string& canonical, const std::vector<std::int64_t>& expected,
                           WeightUse use) const;

  const ModelSource& source_;
  std::vector<WeightName> names_;
  std::map<std::string, std::size_t> index_;
  std::unique_ptr<WeightStore> store_;
  // What get() uploaded, by stored name and use: tied weights (shared embeddings, an LM head tied
  // to them) resolve to one stored tensor and take backend memory once.
  mutable std::map<std::pair<std::string, WeightUse>, Tensor> uploaded_;
  mutable WeightUses uses_;
  // The Tables get() handed out, by backend handle and offset: their stored names and unchecked bytes.
  mutable std::map<std::pair<const void*, std::size_t>, std::pair<std::string, TensorData>> tables_;
};

}  // namespace invar
