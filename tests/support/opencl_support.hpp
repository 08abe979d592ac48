#pragma once
// The OpenCL tests run where a platform exists (CI installs PoCL) and are skipped elsewhere, unless
// INVAR_REQUIRE_OPENCL=1 (scripts/run-tests.sh sets it) makes a missing platform a failure.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "backends/opencl/runtime.hpp"

namespace invar::test {

class OpenClTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      opencl::list_devices();
    } catch (const Error& e) {
      const char* required = std::getenv("INVAR_REQUIRE_OPENCL");
      if (required && std::string(required) == "1") FAIL() << "INVAR_REQUIRE_OPENCL=1 but " << e.what();
      GTEST_SKIP() << e.what();
    }
  }
};

}  // namespace invar::test
