#!/usr/bin/env bash
# invar's main job on its embedded default: installs what is missing, builds the invar CLI, and runs
# the Language Invariant Property benchmark on the bundled example (examples/lip) with the TF-IDF
# classifier: the result table on stdout, an HTML report and per-text predictions under out/.
#   scripts/run-example.sh [extra `invar lip` options, e.g. --preset invar --runs 5]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" --target invar_cli >/dev/null
mkdir -p out
build/invar lip --example --report out/lip-report.html --predictions out/lip-predictions.jsonl "$@"
echo
echo "report: out/lip-report.html   per-text predictions: out/lip-predictions.jsonl"
