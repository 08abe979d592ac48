#include "core/pooling.hpp"

#include "core/error.hpp"

namespace invar {

const char* pooling_name(Pooling mode) {
  switch (mode) {
    case Pooling::Cls:
      return "cls";
    case Pooling::Max:
      return "max";
    case Pooling::MeanSqrtLen:
      return "mean_sqrt_len_tokens";
    case Pooling::Mean:
      break;
  }
  return "mean";
}

Pooling parse_pooling(const std::string& name) {
  for (Pooling mode : {Pooling::Mean, Pooling::Cls, Pooling::Max, Pooling::MeanSqrtLen})
    if (name == pooling_name(mode)) return mode;
  fail("--pooling must be mean, cls, max or mean_sqrt_len_tokens, got '{}'", name);
}

}  // namespace invar
