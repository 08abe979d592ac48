#pragma once
// The one cosine similarity of sentence embeddings (`invar similarity`, `metamorphic --embeddings`).
#include <span>

namespace invar {

// As torch.nn.functional.cosine_similarity computes it (sentence-transformers' similarity): the
// dot product over the product of the two norms, each norm taken as at least 1e-8, so that a zero
// vector has cosine 0 with every vector, itself included. Sums in double. The vectors must have
// the same length.
double cosine_similarity(std::span<const float> a, std::span<const float> b);

}  // namespace invar
