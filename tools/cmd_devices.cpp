// `invar devices`: the compute devices `--device` accepts, with what matters for choosing one.
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

#include "core/error.hpp"
#include "backends/registry.hpp"
#include "tools/command.hpp"

namespace invar::cli {
namespace {

// Every registered backend's devices; a backend whose runtime has none (no driver installed) is
// reported on stderr, and the others are still listed.
std::vector<DeviceInfo> all_devices() {
  std::vector<DeviceInfo> devices;
  for (const BackendFactory& factory : backend_factories()) {
    try {
      for (DeviceInfo& device : factory.devices()) devices.push_back(std::move(device));
    } catch (const Error& e) {
      std::cerr << "invar devices: " << e.what() << '\n';
    }
  }
  return devices;
}

std::vector<std::string> weight_names(const DeviceInfo& device) {
  std::vector<std::string> names;
  for (WeightType type : device.weights) names.emplace_back(weight_type_name(type));
  return names;
}

void run(bool json) {
  for (const DeviceInfo& device : all_devices()) {
    if (json) {
      std::cout << nlohmann::json{{"device", device.name},
                                  {"description", device.description},
                                  {"version", device.version},
                                  {"global_memory_bytes", device.global_memory},
                                  {"compute_units", device.compute_units},
                                  {"fp16", device.fp16},
                                  {"weights", weight_names(device)}}
                       .dump()
                << '\n';
    } else {
      std::cout << fmt::format("{:<14} {}\n", device.name, device.description);
      if (device.global_memory > 0) {
        std::cout << fmt::format("{:<14} {} MiB global memory, {} compute units, weights {}, fp16 arithmetic {}, {}\n",
                                 "", device.global_memory >> 20, device.compute_units,
                                 fmt::join(weight_names(device), "/"), device.fp16 ? "yes" : "no", device.version);
      } else {
        std::cout << fmt::format("{:<14} {} hardware threads, weights {}\n", "", device.compute_units,
                                 fmt::join(weight_names(device), "/"));
      }
    }
  }
}

void setup(CLI::App& root) {
  std::string backends;
  for (const std::string& name : backend_names()) backends += (backends.empty() ? "" : ", ") + name;
  auto* app = root.add_subcommand(
      "devices",
      "List the devices --device accepts (backends in this build: " + backends +
          "): cpu, and every OpenCL platform's devices as opencl:PLATFORM:DEVICE (\"opencl\" alone is opencl:0:0), "
          "with global memory, compute units, the weight storage --weights takes (f16 needs no fp16 arithmetic), "
          "fp16 arithmetic support (cl_khr_fp16) and OpenCL version.");
  auto json = std::make_shared<bool>(false);
  app->add_flag("--json", *json, "One JSON object per device and line (JSONL) instead of the table");
  app->callback([json] { run(*json); });
}

INVAR_COMMAND("devices", setup);

}  // namespace
}  // namespace invar::cli
