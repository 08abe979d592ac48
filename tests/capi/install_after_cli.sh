#!/usr/bin/env bash
# The README's two ways in: scripts/run-example.sh builds the CLI alone (target invar_cli), and the
# README's install line after it must install everything a full build installs, building the rest
# first (the install's first step, CMakeLists.txt), from a build tree of its own.
#   install_after_cli.sh SOURCE_DIR SCRATCH_DIR CMAKE
set -euo pipefail
source_dir=$1 scratch=$2 cmake=$3
rm -rf "$scratch"
trap 'rm -rf "$scratch"' EXIT
"$cmake" -S "$source_dir" -B "$scratch" -DCMAKE_BUILD_TYPE=Release -DINVAR_TESTS=OFF -DINVAR_BENCH=OFF >/dev/null
"$cmake" --build "$scratch" -j "$(nproc)" --target invar_cli >/dev/null
# As run-example.sh leaves it: the CLI built, the libraries not.
test -x "$scratch/invar"
if compgen -G "$scratch/lib/libinvar.so*" >/dev/null; then
  echo "the CLI's build made libinvar.so: this test no longer starts from run-example.sh's state" >&2
  exit 1
fi
prefix=$scratch/prefix
"$cmake" --install "$scratch" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name invar.pc)")/..
for file in bin/invar bin/invar-full include/invar/invar.h; do
  test -e "$prefix/$file" || { echo "not installed: $file" >&2; exit 1; }
done
for file in libinvar.so libinvar.a pkgconfig/invar.pc cmake/invar/invarConfig.cmake; do
  test -e "$libdir/$file" || { echo "not installed: LIBDIR/$file" >&2; exit 1; }
done
# The installed CLI runs.
"$prefix/bin/invar" --version | grep -q "^invar "
echo "installed after a build of the CLI alone: $(ls "$libdir" | tr '\n' ' ')"
