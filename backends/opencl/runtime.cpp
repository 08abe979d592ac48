#include "backends/opencl/runtime.hpp"

#include <CL/cl_ext.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <unistd.h>

#include "core/error.hpp"

namespace invar::opencl {

const char* error_name(cl_int status) {
  switch (status) {
    case CL_SUCCESS: return "CL_SUCCESS";
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE: return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE: return "CL_INVALID_DEVICE";
    case CL_INVALID_CONTEXT: return "CL_INVALID_CONTEXT";
    case CL_INVALID_COMMAND_QUEUE: return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_MEM_OBJECT: return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_BINARY: return "CL_INVALID_BINARY";
    case CL_INVALID_BUILD_OPTIONS: return "CL_INVALID_BUILD_OPTIONS";
    case CL_INVALID_PROGRAM: return "CL_INVALID_PROGRAM";
    case CL_INVALID_PROGRAM_EXECUTABLE: return "CL_INVALID_PROGRAM_EXECUTABLE";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL: return "CL_INVALID_KERNEL";
    case CL_INVALID_ARG_INDEX: return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_VALUE: return "CL_INVALID_ARG_VALUE";
    case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_DIMENSION: return "CL_INVALID_WORK_DIMENSION";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_OFFSET: return "CL_INVALID_GLOBAL_OFFSET";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_PLATFORM_NOT_FOUND_KHR: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
  }
}

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) fail("OpenCL {} failed: {} ({})", what, error_name(status), status);
}

namespace {

std::string platform_string(cl_platform_id platform, cl_platform_info param) {
  std::size_t size = 0;
  check(clGetPlatformInfo(platform, param, 0, nullptr, &size), "clGetPlatformInfo");
  std::string value(size, '\0');
  check(clGetPlatformInfo(platform, param, size, value.data(), nullptr), "clGetPlatformInfo");
  return value.c_str();  // drops the terminating NUL
}

std::string device_string(cl_device_id device, cl_device_info param) {
  std::size_t size = 0;
  check(clGetDeviceInfo(device, param, 0, nullptr, &size), "clGetDeviceInfo");
  std::string value(size, '\0');
  check(clGetDeviceInfo(device, param, size, value.data(), nullptr), "clGetDeviceInfo");
  return value.c_str();
}

template <typename T>
T device_value(cl_device_id device, cl_device_info param) {
  T value{};
  check(clGetDeviceInfo(device, param, sizeof(T), &value, nullptr), "clGetDeviceInfo");
  return value;
}

std::vector<cl_platform_id> platforms() {
  cl_uint count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &count);
  if (status == CL_PLATFORM_NOT_FOUND_KHR || (status == CL_SUCCESS && count == 0)) {
    fail("no OpenCL platform found (install an OpenCL driver, e.g. Debian's pocl-opencl-icd, and check `clinfo -l`)");
  }
  check(status, "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(count);
  check(clGetPlatformIDs(count, ids.data(), nullptr), "clGetPlatformIDs");
  return ids;
}

std::vector<cl_device_id> devices_of(cl_platform_id platform) {
  cl_uint count = 0;
  const cl_int status = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
  if (status == CL_DEVICE_NOT_FOUND) return {};
  check(status, "clGetDeviceIDs");
  std::vector<cl_device_id> ids(count);
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr), "clGetDeviceIDs");
  return ids;
}

DeviceInfo describe(cl_platform_id platform, cl_device_id device, int platform_index, int device_index) {
  DeviceInfo info;
  info.platform = platform_index;
  info.device = device_index;
  info.platform_name = platform_string(platform, CL_PLATFORM_NAME);
  info.name = device_string(device, CL_DEVICE_NAME);
  info.version = device_string(device, CL_DEVICE_VERSION);
  info.driver_version = device_string(device, CL_DRIVER_VERSION);
  info.global_memory = device_value<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.max_allocation = device_value<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  info.compute_units = device_value<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
  const std::string extensions = fmt::format(" {} ", device_string(device, CL_DEVICE_EXTENSIONS));
  info.fp16 = extensions.find(" cl_khr_fp16 ") != std::string::npos;
  return info;
}

// FNV-1a, 64 bits: a stable hash for cache keys and payload checks (std::hash is not stable).
std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash = 0xcbf29ce484222325ull) {
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

// Cache file: magic, key hash, payload size, payload hash (each 8 bytes), then the binary.
constexpr std::string_view kCacheMagic = "INVARCL1";
constexpr std::size_t kCacheHeader = 32;

std::string cache_header(std::uint64_t key, std::string_view payload) {
  std::string header(kCacheMagic);
  const std::uint64_t fields[3] = {key, payload.size(), fnv1a(payload)};
  header.append(reinterpret_cast<const char*>(fields), sizeof(fields));
  return header;
}

// The cached binary for `key`, or empty when the file is missing, truncated or altered.
std::string read_cached_binary(const std::filesystem::path& file, std::uint64_t key) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (content.size() <= kCacheHeader) return {};
  std::string payload = content.substr(kCacheHeader);
  if (content.compare(0, kCacheHeader, cache_header(key, payload)) != 0) return {};
  return payload;
}

// Temp file + rename, so a concurrent reader sees the old file or the whole new one.
void write_cached_binary(const std::filesystem::path& file, std::uint64_t key, std::string_view payload) {
  std::error_code error;
  std::filesystem::create_directories(file.parent_path(), error);
  if (error) return;
  const std::filesystem::path temp = file.string() + fmt::format(".tmp{}", getpid());
  {
    std::ofstream out(temp, std::ios::binary);
    out << cache_header(key, payload) << payload;
    if (!out.flush()) {
      std::filesystem::remove(temp, error);
      return;
    }
  }
  std::filesystem::rename(temp, file, error);
  if (error) std::filesystem::remove(temp, error);
}

std::string program_binary(cl_program program) {
  std::size_t size = 0;
  check(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr), "clGetProgramInfo");
  std::string binary(size, '\0');
  unsigned char* data = reinterpret_cast<unsigned char*>(binary.data());
  check(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(data), &data, nullptr), "clGetProgramInfo");
  return binary;
}

// The first lines of the build log, joined into one line for the error message.
std::string build_log_head(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS) return {};
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS) return {};
  std::istringstream lines(log.c_str());
  std::vector<std::string> head;
  for (std::string line; head.size() < 4 && std::getline(lines, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) head.push_back(line);
  }
  return fmt::format("{}", fmt::join(head, " | "));
}

cl_program program_from_binary(cl_context context, cl_device_id device, const std::string& binary,
                               const std::string& options) {
  const auto* data = reinterpret_cast<const unsigned char*>(binary.data());
  const std::size_t size = binary.size();
  cl_int binary_status = CL_SUCCESS, status = CL_SUCCESS;
  cl_program program = clCreateProgramWithBinary(context, 1, &device, &size, &data, &binary_status, &status);
  if (status != CL_SUCCESS || binary_status != CL_SUCCESS) {
    if (program) clReleaseProgram(program);
    return nullptr;
  }
  if (clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(program);
    return nullptr;
  }
  return program;
}

}  // namespace

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> result;
  const std::vector<cl_platform_id> ids = platforms();
  for (std::size_t p = 0; p < ids.size(); ++p) {
    const std::vector<cl_device_id> devices = devices_of(ids[p]);
    for (std::size_t d = 0; d < devices.size(); ++d) {
      result.push_back(describe(ids[p], devices[d], static_cast<int>(p), static_cast<int>(d)));
    }
  }
  return result;
}

std::pair<int, int> parse_device_name(const std::string& name) {
  if (name == "opencl") return {0, 0};
  int platform = -1, device = -1;
  char end = 0;
  if (std::sscanf(name.c_str(), "opencl:%d:%d%c", &platform, &device, &end) != 2 || platform < 0 || device < 0) {
    fail("device \"{}\" is not opencl or opencl:PLATFORM:DEVICE (indices as `invar devices` lists them)", name);
  }
  return {platform, device};
}

std::filesystem::path default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "invar";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "invar";
  return {};
}

BuiltProgram build_program(cl_context context, cl_device_id device, const std::vector<KernelSource>& sources,
                           const std::string& options, const std::filesystem::path& cache_dir) {
  std::vector<std::string_view> names;
  std::string key_text;
  for (cl_device_info param : {CL_DEVICE_NAME, CL_DEVICE_VERSION, CL_DRIVER_VERSION}) {
    key_text += device_string(device, param) + '\n';
  }
  key_text += options + '\n';
  for (const KernelSource& source : sources) {
    names.push_back(source.name);
    key_text.append(source.name).append("\n").append(source.text);
  }
  const std::uint64_t key = fnv1a(key_text);
  const std::filesystem::path file =
      cache_dir.empty() ? std::filesystem::path() : cache_dir / fmt::format("opencl-{:016x}.bin", key);

  if (!file.empty()) {
    const std::string binary = read_cached_binary(file, key);
    if (!binary.empty()) {
      if (cl_program program = program_from_binary(context, device, binary, options)) return {program, true};
    }
  }

  std::vector<const char*> texts;
  std::vector<std::size_t> lengths;
  for (const KernelSource& source : sources) {
    texts.push_back(source.text.data());
    lengths.push_back(source.text.size());
  }
  cl_int status = CL_SUCCESS;
  cl_program program =
      clCreateProgramWithSource(context, static_cast<cl_uint>(texts.size()), texts.data(), lengths.data(), &status);
  check(status, "clCreateProgramWithSource");
  status = clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    const std::string log = build_log_head(program, device);
    clReleaseProgram(program);
    fail("OpenCL kernels {} failed to build on {}: {}: {}", fmt::join(names, ", "),
         device_string(device, CL_DEVICE_NAME), error_name(status), log.empty() ? "(no build log)" : log);
  }
  if (!file.empty()) write_cached_binary(file, key, program_binary(program));
  return {program, false};
}

Device::~Device() {
  if (program) clReleaseProgram(program);
  if (context) clReleaseContext(context);
}

namespace {

std::unique_ptr<Device> make_device(int platform_index, int device_index) {
  const std::vector<cl_platform_id> ids = platforms();
  std::vector<cl_device_id> devices;
  if (platform_index < static_cast<int>(ids.size())) devices = devices_of(ids[static_cast<std::size_t>(platform_index)]);
  if (device_index >= static_cast<int>(devices.size())) {
    std::vector<std::string> available;
    for (const DeviceInfo& info : list_devices()) {
      available.push_back(fmt::format("opencl:{}:{} ({}, {})", info.platform, info.device, info.name, info.platform_name));
    }
    fail("OpenCL device {}:{} does not exist (available: {})", platform_index, device_index,
         fmt::join(available, "; "));
  }
  auto device = std::make_unique<Device>();
  const cl_platform_id platform = ids[static_cast<std::size_t>(platform_index)];
  device->id = devices[static_cast<std::size_t>(device_index)];
  device->info = describe(platform, device->id, platform_index, device_index);
  cl_int status = CL_SUCCESS;
  const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform),
                                              0};
  device->context = clCreateContext(properties, 1, &device->id, nullptr, nullptr, &status);
  check(status, "clCreateContext");
  const BuiltProgram built = build_program(device->context, device->id, kernel_sources(), "", default_cache_dir());
  device->program = built.program;
  device->program_from_cache = built.from_cache;
  return device;
}

}  // namespace

std::shared_ptr<const Device> open_device(int platform, int device) {
  // Devices live until the process exits, so each program is built once per process. The
  // registry is deliberately never destroyed: releasing OpenCL objects from static destructors
  // races the ICD loader's own teardown.
  static auto* mutex = new std::mutex;
  static auto* registry = new std::map<std::pair<int, int>, std::shared_ptr<const Device>>;
  const std::lock_guard lock(*mutex);
  auto& slot = (*registry)[{platform, device}];
  if (!slot) {
    try {
      slot = make_device(platform, device);
    } catch (...) {
      registry->erase({platform, device});
      throw;
    }
  }
  return slot;
}

}  // namespace invar::opencl
