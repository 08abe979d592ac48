#pragma once
// The OpenCL tests run where a platform exists (CI installs PoCL) and are skipped elsewhere, unless
// INVAR_REQUIRE_OPENCL=1 (scripts/run-tests.sh sets it) makes a missing platform a failure.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "backends/opencl/runtime.hpp"

namespace invar::test {

// Why OpenCL tests cannot run here (no platform), or nothing; a test skips with the reason.
// Under INVAR_REQUIRE_OPENCL=1 a missing platform fails the calling test instead.
inline std::optional<std::string> opencl_missing() {
  try {
    opencl::list_devices();
    return std::nullopt;
  } catch (const Error& e) {
    const char* required = std::getenv("INVAR_REQUIRE_OPENCL");
    if (required && std::string(required) == "1") ADD_FAILURE() << "INVAR_REQUIRE_OPENCL=1 but " << e.what();
    return e.what();
  }
}

class OpenClTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto missing = opencl_missing()) GTEST_SKIP() << *missing;
  }
};

}  // namespace invar::test
