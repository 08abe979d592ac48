#include "core/activation.hpp"

#include "core/error.hpp"

namespace invar {

Activation parse_activation(const std::string& name, const std::string& where) {
  if (name == "gelu") return Activation::GeluErf;
  if (name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::GeluTanh;
  if (name == "relu") return Activation::Relu;
  if (name == "silu" || name == "swish") return Activation::Silu;
  if (name == "tanh") return Activation::Tanh;
  fail("{}: unsupported activation \"{}\" (supported: gelu, gelu_new, gelu_pytorch_tanh, relu, silu, swish, tanh)",
       where, name);
}

}  // namespace invar
