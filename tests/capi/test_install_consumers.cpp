// The installed library as embedders use it (docs/embedding.md): `cmake --install` of this build
// tree into a fresh prefix, then the installed examples/embed built three times — by the C compiler
// with `pkg-config --cflags --libs invar`, statically with `pkg-config --static`, and as a CMake
// project with find_package(invar) — and each run on a fixture model, its embeddings checked against
// its golden. A broken install (a missing header, a wrong .pc file, a package that does not
// configure) fails here. The shared consumer runs on the OpenCL device too, through the installed
// OpenCL module (backends/opencl_module.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "invar/invar.h"
#include "support/opencl_support.hpp"
#include "support/test_support.hpp"

namespace invar::test {
namespace {

namespace fs = std::filesystem;

// Passed by tests/CMakeLists.txt: where this build is, how it installs, how consumers compile.
const std::string kLibdir = INVAR_INSTALL_LIBDIR;
// The sanitizer build's flags: an instrumented library needs its runtime loaded first, which only
// an instrumented executable does, so the consumers are built with them too.
const std::string kConsumerFlags = INVAR_CONSUMER_FLAGS;

std::string describe(const CliResult& r) { return "exit " + std::to_string(r.exit_code) + "\n" + r.out + "\n" + r.err; }

class InstallConsumers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    work_ = new std::string(temp_dir());
    const auto installed = run_program({INVAR_CMAKE, "--install", INVAR_BUILD_DIR, "--prefix", prefix()});
    ASSERT_EQ(installed.exit_code, 0) << describe(installed);
  }
  static void TearDownTestSuite() {
    delete work_;
    work_ = nullptr;
  }

  static std::string prefix() { return *work_ + "/prefix"; }
  static std::string libdir() { return prefix() + "/" + kLibdir; }
  static std::string example() { return prefix() + "/share/invar/examples/embed"; }

  // Runs a built consumer on the fixture's first golden text; its values must match the golden's
  // sentence-transformers embedding (the encoder tests' tolerance).
  static void expect_golden_embedding(const std::string& program, const std::string& device = "cpu") {
    const auto golden = load_json(fixture("core/bert-wordpiece/golden.json"));
    const auto& first = golden["cases"][0];
    const auto run =
        run_program({"env", "INVAR_DEVICE=" + device, program, fixture("core/bert-wordpiece"), first["text"].get<std::string>()});
    ASSERT_EQ(run.exit_code, 0) << describe(run);
    std::istringstream out(run.out);
    std::string word, version;
    std::size_t dimension = 0;
    out >> word >> version;
    EXPECT_EQ(word, "invar");
    EXPECT_FALSE(version.empty());
    out >> word >> dimension;
    EXPECT_EQ(word, "dimension");
    const auto& expected = first["mean_pooled_normalized"][0];
    ASSERT_EQ(dimension, expected.size());
    for (std::size_t d = 0; d < dimension; ++d) {
      double value = 0;
      ASSERT_TRUE(out >> value) << "value " << d << " missing:\n" << run.out;
      EXPECT_NEAR(value, expected[d].get<double>(), 1e-4) << "value " << d;
    }
  }

  // examples/embed built with `pkg-config --cflags --libs invar` and an rpath to the prefix.
  static std::string build_shared_consumer(const std::string& name) {
    const std::string search = "PKG_CONFIG_PATH=" + libdir() + "/pkgconfig";
    const auto flags = run_program({"env", search, "pkg-config", "--cflags", "--libs", "invar"});
    EXPECT_EQ(flags.exit_code, 0) << describe(flags);
    const std::string program = *work_ + "/" + name;
    std::vector<std::string> compile{INVAR_C_COMPILER, "-std=c99", "-Wall", "-Werror", example() + "/embed.c", "-o",
                                     program, "-Wl,-rpath," + libdir()};
    std::istringstream words(flags.out + " " + kConsumerFlags);
    for (std::string word; words >> word;) compile.push_back(word);
    const auto built = run_program(compile);
    EXPECT_EQ(built.exit_code, 0) << describe(built);
    return program;
  }

  static std::string* work_;
};

std::string* InstallConsumers::work_ = nullptr;

TEST_F(InstallConsumers, InstallsHeadersLibrariesAndPackageFiles) {
  for (const std::string& file : std::vector<std::string>{"include/invar/invar.h", "include/invar/invar.hpp", kLibdir + "/libinvar.a",
                                 kLibdir + "/libinvar.so", kLibdir + "/cmake/invar/invarConfig.cmake",
                                 kLibdir + "/cmake/invar/invarConfigVersion.cmake", kLibdir + "/pkgconfig/invar.pc",
                                 "share/invar/examples/embed/embed.c", "share/invar/examples/embed/CMakeLists.txt",
                                 "share/doc/invar/LICENSE", "share/man/man1/invar.1",
                                 "share/bash-completion/completions/invar", "share/bash-completion/completions/invar-full",
                                 "share/zsh/site-functions/_invar"})
    EXPECT_TRUE(fs::exists(prefix() + "/" + file)) << file;
#ifdef INVAR_WITH_OPENCL
  EXPECT_TRUE(fs::exists(libdir() + "/invar/libinvar-opencl.so"));
#endif
}

TEST_F(InstallConsumers, SharedLibraryHasAVersionedSoname) {
  // libinvar.so links to libinvar.so.MAJOR.MINOR.PATCH, whose SONAME is libinvar.so.MAJOR.
  const fs::path real = fs::canonical(libdir() + "/libinvar.so");
  const std::string name = real.filename().string();
  ASSERT_TRUE(name.starts_with("libinvar.so.")) << name;
  const std::string major = name.substr(0, name.find('.', std::string("libinvar.so.").size()));
  EXPECT_TRUE(fs::exists(libdir() + "/" + major)) << major;
  const auto dynamic = run_program({"readelf", "-d", real.string()});
  ASSERT_EQ(dynamic.exit_code, 0) << describe(dynamic);
  EXPECT_NE(dynamic.out.find("Library soname: [" + major + "]"), std::string::npos) << dynamic.out;
}

TEST_F(InstallConsumers, PkgConfigConsumerBuildsAndRuns) {
  const std::string search = "PKG_CONFIG_PATH=" + libdir() + "/pkgconfig";
  const auto flags = run_program({"env", search, "pkg-config", "--cflags", "--libs", "invar"});
  ASSERT_EQ(flags.exit_code, 0) << describe(flags);
  const auto dir = run_program({"env", search, "pkg-config", "--variable=libdir", "invar"});
  ASSERT_EQ(dir.exit_code, 0) << describe(dir);
  std::vector<std::string> compile{INVAR_C_COMPILER, "-std=c99", "-Wall", "-Werror", example() + "/embed.c", "-o",
                                   *work_ + "/embed-pkg-config"};
  std::istringstream words(flags.out + " " + kConsumerFlags);
  for (std::string word; words >> word;) compile.push_back(word);
  compile.push_back("-Wl,-rpath," + dir.out.substr(0, dir.out.find_last_not_of("\n") + 1));
  const auto built = run_program(compile);
  ASSERT_EQ(built.exit_code, 0) << describe(built);
  expect_golden_embedding(*work_ + "/embed-pkg-config");
}

// docs/embedding.md's shared recipe: `pkg-config --libs invar` is -linvar alone, and the program
// loads the lean library and none of the evaluation methods' or the OpenCL backend's libraries.
TEST_F(InstallConsumers, SharedConsumerLoadsTheLeanLibraryAlone) {
  const auto libs = run_program({"env", "PKG_CONFIG_PATH=" + libdir() + "/pkgconfig", "pkg-config", "--libs-only-l", "invar"});
  ASSERT_EQ(libs.exit_code, 0) << describe(libs);
  EXPECT_EQ(libs.out, "-linvar \n");
  const std::string program = build_shared_consumer("embed-lean");
  const auto loaded = run_program({"ldd", program});
  ASSERT_EQ(loaded.exit_code, 0) << describe(loaded);
  // The SONAME is libinvar.so.MAJOR (docs/embedding.md, ABI policy).
  const std::string version = invar_version();
  EXPECT_NE(loaded.out.find(libdir() + "/libinvar.so." + version.substr(0, version.find('.')) + " "), std::string::npos)
      << loaded.out;
  // Not libOpenCL: Debian's oneDNN needs the OpenCL loader itself (its GPU runtime), whatever invar links.
  for (const char* absent : {"libgvc", "libcgraph", "libmecab", "libfasttext", "liblinear", "liblbfgs", "libclblast"})
    EXPECT_EQ(loaded.out.find(absent), std::string::npos) << absent << " loaded:\n" << loaded.out;
}

#ifdef INVAR_WITH_OPENCL
// The shared library loads LIBDIR/invar/libinvar-opencl.so on the first `opencl` device: the
// embedding matches the golden there too.
TEST_F(InstallConsumers, SharedConsumerComputesOnOpenClThroughTheModule) {
  if (const auto missing = opencl_missing()) GTEST_SKIP() << *missing;
  expect_golden_embedding(build_shared_consumer("embed-opencl"), "opencl");
}

// An error inside the module (a device that does not exist) reaches the caller as the input error it
// is (INVAR_ERROR_INPUT, the program's exit status), with the backend's message.
TEST_F(InstallConsumers, ModuleErrorsKeepTheirStatus) {
  if (const auto missing = opencl_missing()) GTEST_SKIP() << *missing;
  const auto run = run_program({"env", "INVAR_DEVICE=opencl:99:0", build_shared_consumer("embed-no-device"),
                                fixture("core/bert-wordpiece"), "text"});
  EXPECT_EQ(run.exit_code, INVAR_ERROR_INPUT) << describe(run);
  EXPECT_NE(run.err.find("opencl"), std::string::npos) << run.err;
}

// Without the module the CPU still works and the OpenCL device fails naming what is missing.
TEST_F(InstallConsumers, MissingModuleFailsClearly) {
  const std::string program = build_shared_consumer("embed-no-module");
  const std::string missing = "INVAR_OPENCL_MODULE=" + *work_ + "/nowhere/libinvar-opencl.so";
  const auto run = run_program({"env", missing, "INVAR_DEVICE=opencl", program, fixture("core/bert-wordpiece"), "text"});
  EXPECT_EQ(run.exit_code, INVAR_ERROR_INPUT) << describe(run);
  EXPECT_NE(run.err.find("cannot load the OpenCL backend module"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("nowhere/libinvar-opencl.so"), std::string::npos) << run.err;
  const auto cpu = run_program({"env", missing, "INVAR_DEVICE=cpu", program, fixture("core/bert-wordpiece"), "text"});
  EXPECT_EQ(cpu.exit_code, 0) << describe(cpu);
}
#endif

// docs/embedding.md's static recipe: libinvar.a, with every library it needs from
// `pkg-config --static --libs-only-l` (Libs.private: oneDNN and OpenMP included).
TEST_F(InstallConsumers, StaticConsumerLinksFromPkgConfigStatic) {
  const std::string search = "PKG_CONFIG_PATH=" + libdir() + "/pkgconfig";
  const auto flags = run_program({"env", search, "pkg-config", "--cflags", "invar"});
  ASSERT_EQ(flags.exit_code, 0) << describe(flags);
  const auto libs = run_program({"env", search, "pkg-config", "--static", "--libs-only-l", "invar"});
  ASSERT_EQ(libs.exit_code, 0) << describe(libs);
  for (const char* needed : {"-ldnnl", "-lgomp"}) EXPECT_NE(libs.out.find(needed), std::string::npos) << libs.out;
  std::vector<std::string> compile{INVAR_C_COMPILER, "-std=c99", "-Wall", "-Werror", example() + "/embed.c", "-o",
                                   *work_ + "/embed-static"};
  std::istringstream words(flags.out + " " + kConsumerFlags);
  for (std::string word; words >> word;) compile.push_back(word);
  compile.insert(compile.end(), {"-L" + libdir(), "-Wl,-Bstatic", "-linvar", "-Wl,-Bdynamic"});
  std::istringstream libraries(libs.out);
  for (std::string word; libraries >> word;)
    if (word != "-linvar") compile.push_back(word);
  const auto built = run_program(compile);
  ASSERT_EQ(built.exit_code, 0) << describe(built);
  const auto needed = run_program({"readelf", "-d", *work_ + "/embed-static"});
  EXPECT_EQ(needed.out.find("libinvar.so"), std::string::npos) << "linked the shared library:\n" << needed.out;
  expect_golden_embedding(*work_ + "/embed-static");
}

TEST_F(InstallConsumers, CMakeConsumerFindsThePackage) {
  const std::string build = *work_ + "/cmake-consumer";
  const auto configured =
      run_program({INVAR_CMAKE, "-S", example(), "-B", build, "-DCMAKE_PREFIX_PATH=" + prefix(),
                   std::string("-DCMAKE_C_COMPILER=") + INVAR_C_COMPILER, "-DCMAKE_C_FLAGS=" + kConsumerFlags,
                   "-DCMAKE_EXE_LINKER_FLAGS=" + kConsumerFlags});
  ASSERT_EQ(configured.exit_code, 0) << describe(configured);
  const auto built = run_program({INVAR_CMAKE, "--build", build});
  ASSERT_EQ(built.exit_code, 0) << describe(built);
  expect_golden_embedding(build + "/embed");
}

}  // namespace
}  // namespace invar::test
