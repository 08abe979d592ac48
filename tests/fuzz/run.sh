#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang in build-fuzz/ (only they and the loader
# sources they need) and runs each for a bounded time on seeds made from the test fixtures: the
# safetensors headers and the data.pkl of every pytorch_model.bin. Fails on any crash, leak, hang
# or sanitizer report; the input that caused it is left in build-fuzz/fuzz-artifacts/.
#   tests/fuzz/run.sh [SECONDS_PER_TARGET]   (default 20)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
build=build-fuzz
targets=(safetensors_header unpickler)

CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINVAR_FUZZ=ON -DINVAR_BENCH=OFF \
  -DINVAR_OPENCL=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"

seeds=$build/fuzz-seeds
rm -rf "$seeds"
mkdir -p "$seeds/safetensors_header" "$seeds/unpickler" "$build/fuzz-artifacts"
for folder in tests/fixtures/*/*/; do
  name=$(basename "$folder")
  if [ -f "$folder/model.safetensors" ]; then
    header_size=$(od -An -t u8 -N 8 "$folder/model.safetensors" | tr -d ' ')
    head -c $((8 + header_size)) "$folder/model.safetensors" >"$seeds/safetensors_header/$name"
  fi
  if [ -f "$folder/pytorch_model.bin" ]; then
    unzip -p "$folder/pytorch_model.bin" '*/data.pkl' >"$seeds/unpickler/$name"
  fi
done

for target in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$target
  log=$build/fuzz-$target.log
  mkdir -p "$corpus"
  if ! "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -runs=2000000 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$build/fuzz-artifacts/$target-" "$corpus" "$seeds/$target" >"$log" 2>&1; then
    cat "$log"
    echo "fuzz_$target failed; the input is in $build/fuzz-artifacts/" >&2
    exit 1
  fi
  echo "fuzz_$target: $(grep -Eo '#[0-9]+ +DONE.*' "$log" || tail -n 1 "$log")"
done
