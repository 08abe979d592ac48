#!/usr/bin/env bash
# Installs what is missing, builds invar and runs the whole test suite under CTest.
#   scripts/run-tests.sh             Release build in build/
#   scripts/run-tests.sh --sanitize  ASan + UBSan build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=build
# The test builds include MPI (off by default in CMakeLists.txt), so CI runs the mpirun tests.
flags=(-DCMAKE_BUILD_TYPE=Release -DINVAR_MPI=ON)
if [ "${1:-}" = "--sanitize" ]; then
  build=build-asan
  flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DINVAR_SANITIZE=ON -DINVAR_BENCH=OFF -DINVAR_MPI=ON)
fi
jobs=$(nproc)
# ccache (when installed) then shares objects between clones of the repository.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
# Set before the build: it runs the built binaries too (completion scripts, help2man's man page).
# CI installs PoCL: the OpenCL tests must run there, not skip (tests/support/opencl_support.hpp).
export INVAR_REQUIRE_OPENCL=${INVAR_REQUIRE_OPENCL:-1}
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer takes any dynamic TLS block that starts 16 bytes into
# a page for one with a glibc 2.19 header in front; glibc 2.36 has none, so by chance of addresses it
# records a garbage range and dies scanning it at exit ("Tracer caught signal 11"; with verbosity=1,
# "DTLS 13 at 0x1780-0x800002882"): a third of the OpenCL test processes (PoCL and LLVM loaded) when
# three ran at once. The processes that did not die scanned no DTLS range at all, so leak detection
# loses nothing: the blocks are malloc'd and reachable through each thread's DTV.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0}
# The OpenCL driver (PoCL, LLVM) leaks at exit; tests/lsan.supp names its libraries and nothing else.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}
# CI runs as root, which mpirun refuses unless told otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cmake -S . -B "$build" "${flags[@]}" >/dev/null
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" --output-on-failure -j "$jobs"
# The libFuzzer targets (clang, their own build dir) run briefly once per suite, not again under --sanitize.
if [ "$build" = build ]; then
  tests/fuzz/run.sh 20
fi
