#pragma once
// The backends compiled into this build. backends/registry.cpp is the only file that knows which
// they are: adding a backend is a folder under backends/ with a BackendFactory, plus one line there.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"

namespace invar {

// One compute device, as `invar devices` lists it.
struct DeviceInfo {
  std::string name;  // as --device takes it: "cpu", "opencl:0:1"
  std::string description;
  std::string version;
  std::uint64_t global_memory = 0;  // bytes; 0 = host memory
  std::uint32_t compute_units = 0;  // hardware threads on the host
  bool fp16 = false;                // half-precision arithmetic, which --weights f16 does not need
  std::vector<WeightType> weights;  // the weight storage (--weights) it takes
};

// What a backend folder registers.
struct BackendFactory {
  const char* name;          // "cpu", "opencl": the device name that selects its default device
  const char* device_forms;  // other device names it takes, for error messages ("" when none)
  bool (*accepts)(const std::string& device);
  std::unique_ptr<Backend> (*make)(const std::string& device, const BackendOptions& options);
  // Its devices; fails (invar::Error) when its runtime offers none (no driver installed).
  std::vector<DeviceInfo> (*devices)();
};

const std::vector<BackendFactory>& backend_factories();

// The backend for a --device name; fails naming the devices this build takes.
std::unique_ptr<Backend> make_backend(const std::string& device, const BackendOptions& options = {});
std::vector<std::string> backend_names();

// A thread count as --threads takes it: 0 = every core.
int thread_count(int requested);

}  // namespace invar
