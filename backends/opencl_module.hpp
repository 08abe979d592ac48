#pragma once
// The OpenCL backend of the lean library (libinvar.so, libinvar.a): a module, invar/libinvar-opencl.so
// beside the library (or $INVAR_OPENCL_MODULE), loaded on the first `opencl` device, so that a
// program that computes on the CPU needs neither the OpenCL loader nor CLBlast
// (docs/architecture.md#libraries). The internal library of the command line links the backend in.
#include "backends/factory.hpp"

namespace invar {

// Takes the OpenCL device names; loads the module when one is first made or listed, and fails
// naming the module and the loader's reason when it cannot be loaded.
BackendFactory opencl_module_factory();

}  // namespace invar
