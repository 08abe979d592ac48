// The entry point of the OpenCL module: the lean library (libinvar.so) loads invar/libinvar-opencl.so
// on the first `opencl` device and asks it for its factory (backends/opencl_module.cpp).
#include "backends/opencl/backend.hpp"

extern "C" __attribute__((visibility("default"))) const invar::BackendFactory* invar_opencl_backend_factory() {
  static const invar::BackendFactory factory = invar::opencl_backend_factory();
  return &factory;
}
