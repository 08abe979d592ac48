#pragma once
// What a backend folder provides to the registry (backends/registry.cpp): its name, which device
// names select it, a constructor and its devices. A backend includes this, never the registry.
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

}  // namespace invar
