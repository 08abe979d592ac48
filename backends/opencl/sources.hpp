#pragma once
// The OpenCL C sources of backends/opencl/*.cl, embedded at build time by backends/opencl/embed.cmake.
#include <string_view>
#include <vector>

namespace invar::opencl {

struct KernelSource {
  std::string_view name;  // file name, e.g. "kernels.cl"
  std::string_view text;
};

const std::vector<KernelSource>& kernel_sources();

}  // namespace invar::opencl
