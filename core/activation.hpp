#pragma once
// Element-wise activations, by the names Hugging Face configs use for them.
#include <cstdint>
#include <string>

namespace invar {

// Applied after a bias (the config names in brackets).
enum class Activation : std::uint8_t {
  None,
  GeluErf,   // x/2 (1 + erf(x/√2))                          ["gelu"]
  GeluTanh,  // x/2 (1 + tanh(√(2/π)(x + 0.044715 x³)))      ["gelu_new", "gelu_pytorch_tanh"]
  Relu,      // max(x, 0)                                      ["relu"]
  Silu,      // x·sigmoid(x)                                   ["silu", "swish"]
  Tanh,      // tanh(x)                                        ["tanh"]
};

// Maps a config's hidden_act / activation_function name; fails naming `where` for others.
Activation parse_activation(const std::string& name, const std::string& where);

}  // namespace invar
