#pragma once
// sentence-transformers' Pooling modes: how token vectors become one sentence vector.
#include <cstdint>
#include <string>

namespace invar {

enum class Pooling : std::uint8_t { Mean, Cls, Max, MeanSqrtLen };

// sentence-transformers' names: "mean", "cls", "max", "mean_sqrt_len_tokens"; parse fails for others.
const char* pooling_name(Pooling mode);
Pooling parse_pooling(const std::string& name);

}  // namespace invar
