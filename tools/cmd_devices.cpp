// `invar devices`: the compute devices `--device` accepts, with what matters for choosing one.
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <thread>

#include "kernels/backend.hpp"
#include "core/error.hpp"
#include "tools/command.hpp"
#ifdef INVAR_WITH_OPENCL
#include "kernels/opencl/runtime.hpp"
#endif

namespace invar::cli {
namespace {

struct DeviceRow {
  std::string name;  // as --device takes it
  std::string description;
  std::string version;
  std::uint64_t global_memory = 0;  // bytes; 0 = host memory
  std::uint32_t compute_units = 0;
  bool fp16 = false;  // cl_khr_fp16: half arithmetic, which --weights f16 does not need
  std::vector<std::string> weights;  // the --weights this device takes
};

// The OpenCL devices, or none with the reason on stderr (listing the CPU is still useful).
std::vector<DeviceRow> opencl_rows() {
  std::vector<DeviceRow> rows;
#ifdef INVAR_WITH_OPENCL
  try {
    for (const opencl::DeviceInfo& d : opencl::list_devices()) {
      rows.push_back({fmt::format("opencl:{}:{}", d.platform, d.device), d.name + " (" + d.platform_name + ")",
                      d.version + ", driver " + d.driver_version, d.global_memory, d.compute_units, d.fp16,
                      {weight_type_name(WeightType::F32), weight_type_name(WeightType::F16)}});
    }
  } catch (const Error& e) {
    std::cerr << "invar devices: " << e.what() << '\n';
  }
#else
  std::cerr << "invar devices: this invar was built without OpenCL (cmake -DINVAR_OPENCL=ON)\n";
#endif
  return rows;
}

void run(bool json) {
  std::vector<DeviceRow> rows = {
      {"cpu", "host CPU (OpenBLAS + Eigen kernels)", "", 0, std::max(1u, std::thread::hardware_concurrency()), false,
       {weight_type_name(WeightType::F32)}}};
  for (DeviceRow& row : opencl_rows()) rows.push_back(std::move(row));
  for (const DeviceRow& row : rows) {
    if (json) {
      std::cout << nlohmann::json{{"device", row.name},
                                  {"description", row.description},
                                  {"version", row.version},
                                  {"global_memory_bytes", row.global_memory},
                                  {"compute_units", row.compute_units},
                                  {"fp16", row.fp16},
                                  {"weights", row.weights}}
                       .dump()
                << '\n';
    } else {
      std::cout << fmt::format("{:<14} {}\n", row.name, row.description);
      if (row.global_memory > 0) {
        std::cout << fmt::format("{:<14} {} MiB global memory, {} compute units, weights {}, fp16 arithmetic {}, {}\n",
                                 "", row.global_memory >> 20, row.compute_units, fmt::join(row.weights, "/"),
                                 row.fp16 ? "yes" : "no", row.version);
      } else {
        std::cout << fmt::format("{:<14} {} hardware threads, weights {}\n", "", row.compute_units,
                                 fmt::join(row.weights, "/"));
      }
    }
  }
}

void setup(CLI::App& root) {
  auto* app = root.add_subcommand(
      "devices",
      "List the devices --device accepts: cpu, and every OpenCL platform's devices as opencl:PLATFORM:DEVICE "
      "(\"opencl\" alone is opencl:0:0), with global memory, compute units, the weight storage --weights takes "
      "(f16 needs no fp16 arithmetic), fp16 arithmetic support (cl_khr_fp16) and OpenCL version.");
  auto json = std::make_shared<bool>(false);
  app->add_flag("--json", *json, "One JSON object per device and line (JSONL) instead of the table");
  app->callback([json] { run(*json); });
}

INVAR_COMMAND("devices", setup);

}  // namespace
}  // namespace invar::cli
