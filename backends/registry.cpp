#include "backends/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "core/error.hpp"
#include "backends/cpu/backend.hpp"
#if defined(INVAR_WITH_OPENCL)
#include "backends/opencl/backend.hpp"
#elif defined(INVAR_OPENCL_MODULE)
#include "backends/opencl_module.hpp"
#endif

namespace invar {

const std::vector<BackendFactory>& backend_factories() {
  static const std::vector<BackendFactory> factories{
      cpu_backend_factory(),
#if defined(INVAR_WITH_OPENCL)
      opencl_backend_factory(),
#elif defined(INVAR_OPENCL_MODULE)
      opencl_module_factory(),
#endif
  };
  return factories;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const BackendFactory& factory : backend_factories()) names.emplace_back(factory.name);
  return names;
}

int thread_count(int requested) {
  return requested > 0 ? requested : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::unique_ptr<Backend> make_backend(const std::string& device, const BackendOptions& options) {
  std::string available, forms;
  for (const BackendFactory& factory : backend_factories()) {
    if (factory.accepts(device)) return factory.make(device, options);
    available += fmt::format("{}{}", available.empty() ? "" : ", ", factory.name);
    if (*factory.device_forms) forms += fmt::format("; {}", factory.device_forms);
  }
  fail("unknown device \"{}\" (available: {}{})", device, available, forms);
}

}  // namespace invar
