#pragma once
// The OpenCL runtime under the OpenCL backend: platform and device discovery, the per-process
// device context, and building the embedded kernels (backends/opencl/*.cl) with an on-disk cache of
// program binaries. Every failure is an invar::Error naming the device and the call.
#include <CL/cl.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "backends/opencl/sources.hpp"

namespace invar::opencl {

// Throws "OpenCL <what> failed: <error name>" unless status is CL_SUCCESS.
void check(cl_int status, const char* what);
const char* error_name(cl_int status);

struct DeviceInfo {
  int platform = 0;  // indices as `--device opencl:PLATFORM:DEVICE` takes them
  int device = 0;
  std::string platform_name;
  std::string name;
  std::string version;  // "OpenCL 3.0 PoCL ..."
  std::string driver_version;
  std::uint64_t global_memory = 0;  // bytes
  std::uint64_t max_allocation = 0;  // bytes in one buffer
  std::uint32_t compute_units = 0;
  bool fp16 = false;  // cl_khr_fp16
};

// Every device of every platform; fails when no OpenCL platform is installed.
std::vector<DeviceInfo> list_devices();

// "opencl" (device 0:0) or "opencl:PLATFORM:DEVICE" → {platform, device}; fails on other forms.
std::pair<int, int> parse_device_name(const std::string& name);

struct BuiltProgram {
  cl_program program = nullptr;  // owned by the caller (clReleaseProgram)
  bool from_cache = false;
};

// Builds `sources` for `device`, loading the binary from `cache_dir` when a valid one is there
// (keyed by device, driver, build options and source text; checked by a header and a hash) and
// storing it after a build from source. An empty cache_dir disables the cache; a cache that cannot
// be written is skipped, as it only saves time. A build failure names the sources, the device and
// the first lines of the build log.
BuiltProgram build_program(cl_context context, cl_device_id device, const std::vector<KernelSource>& sources,
                           const std::string& options, const std::filesystem::path& cache_dir);

// $XDG_CACHE_HOME/invar, else ~/.cache/invar; empty when neither variable is set.
std::filesystem::path default_cache_dir();

// One device with its context and the embedded kernels built, shared by every backend of the
// process on that device so that the program is built once.
struct Device {
  DeviceInfo info;
  cl_device_id id = nullptr;
  cl_context context = nullptr;
  cl_program program = nullptr;
  bool program_from_cache = false;

  Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  ~Device();
};

// The device at (platform, device), opened and built on first use; fails naming the devices that
// exist when there is none at that index.
std::shared_ptr<const Device> open_device(int platform, int device);

}  // namespace invar::opencl
