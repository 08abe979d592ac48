#pragma once
// Attention pieces shared by the encoder (engine/encoder.cpp) and the encoder-decoders
// (engine/seq2seq.cpp).
#include <cstdint>
#include <vector>

namespace invar {

// Hugging Face's T5Attention._relative_position_bucket for relative = key position − query
// position, in float32 as torch computes it. MPNet's relative_position_bucket is the bidirectional
// case (its n = −relative lands in the upper half for keys after the query, as T5's does).
std::int64_t relative_bucket(std::int64_t relative, bool bidirectional, std::int64_t buckets, std::int64_t max_distance);

// The position bias [heads, tq, tk] for queries at q_start + i and keys at j, from a learned table
// [buckets, heads] (row-major, as nn.Embedding stores it).
std::vector<float> relative_position_bias(const std::vector<float>& table, std::int64_t heads, std::int64_t tq,
                                          std::int64_t tk, std::int64_t q_start, bool bidirectional,
                                          std::int64_t buckets, std::int64_t max_distance);

// DeBERTa-v2's relative positions for attention_softmax's disentangled terms: entry (i, j) of the
// [len, len] result is the row of the relative embeddings that query i and key j read,
// clamp(δ + span, 0, 2·span − 1) with δ = i − j, log-bucketed (make_log_bucket_position, in
// float64 as numpy computes it) when buckets and max_positions are above 0. The position→content
// term reads the same row: δ is odd in i − j.
std::vector<std::int32_t> disentangled_positions(std::int64_t len, std::int64_t span, std::int64_t buckets,
                                                 std::int64_t max_positions);

}  // namespace invar
