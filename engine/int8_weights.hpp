#pragma once
// Which stored tensors of a model `--weights int8` quantizes, for `invar convert --dtype int8`.
#include <set>
#include <string>

#include "loaders/model_source.hpp"

namespace invar {

// The stored tensors the CPU backend quantizes under BackendOptions::weights = Int8: those the
// model reads only as linear-layer matrices (WeightUse::Matrix). A tensor also read another way —
// an embedding table tied to the LM head, the LM head a vocabulary shortlist gathers from — stays
// as stored, as the runtime keeps it. Found by loading the model (on a plain F32 CPU backend) and
// asking its weights how each was fetched, so the answer follows the model code, not a list.
std::set<std::string> int8_weight_names(const ModelSource& source);

}  // namespace invar
