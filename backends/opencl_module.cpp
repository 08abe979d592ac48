#include "backends/opencl_module.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/error.hpp"

namespace invar {
namespace {

// $INVAR_OPENCL_MODULE, else invar/libinvar-opencl.so in the folder of the object holding this code
// (libinvar.so; for a program linked with libinvar.a, the program's folder).
std::string module_path() {
  if (const char* path = std::getenv("INVAR_OPENCL_MODULE"); path != nullptr && *path != '\0') return path;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&opencl_module_factory), &info) == 0 || info.dli_fname == nullptr)
    fail("opencl: cannot locate the OpenCL module: the library's own path is unknown; set INVAR_OPENCL_MODULE");
  return (std::filesystem::path(info.dli_fname).parent_path() / "invar" / "libinvar-opencl.so").string();
}

// The module's factory, loaded once; a failed load is tried again on the next call. The module is
// never unloaded: the backends it makes live on in the program.
const BackendFactory& module_factory() {
  static const BackendFactory factory = [] {
    const std::string path = module_path();
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) fail("opencl: cannot load the OpenCL backend module: {}", dlerror());
    using Entry = const BackendFactory* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, "invar_opencl_backend_factory"));
    if (entry == nullptr) fail("opencl: {} is not invar's OpenCL module: {}", path, dlerror());
    return *entry();
  }();
  return factory;
}

}  // namespace

BackendFactory opencl_module_factory() {
  return {"opencl", "opencl:PLATFORM:DEVICE picks an OpenCL device",
          [](const std::string& device) { return device == "opencl" || device.starts_with("opencl:"); },
          [](const std::string& device, const BackendOptions& options) { return module_factory().make(device, options); },
          [] { return module_factory().devices(); }};
}

}  // namespace invar
