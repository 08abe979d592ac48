#pragma once
// The OpenCL backend: CLBlast for matrix products, backends/opencl/kernels.cl for the rest.
// Tensor handles are cl_mem buffers (Tensor.offset bytes into them).
#include <memory>
#include <string>

#include "backends/factory.hpp"

namespace invar {

// name: "opencl" (platform 0, device 0) or "opencl:PLATFORM:DEVICE". Fails when no platform is
// installed, the device does not exist (naming those that do) or the kernels fail to build.
std::unique_ptr<Backend> make_opencl_backend(const std::string& name, const BackendOptions& options);
// "opencl" and "opencl:P:D"; its devices are every device of every OpenCL platform.
BackendFactory opencl_backend_factory();

}  // namespace invar
