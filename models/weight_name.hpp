#pragma once
// The link between a family's spec table (models/*_spec) and its stored Hugging Face weights.
#include <string>
#include <vector>

namespace invar {

// One weight: its canonical name, and the Hugging Face names it may be stored under (first found
// wins: tied weights are stored once under any of the names, and a base model may be saved with
// or without its head's prefix such as "bert.").
struct WeightName {
  std::string canonical;
  std::vector<std::string> stored;
  bool required = true;  // optional: computed tables, biases some families lack, heads a checkpoint may lack
};

}  // namespace invar
