#!/usr/bin/env bash
# Steady-state generation, invar against bench/torch_marian.py (a lean PyTorch MarianMTModel +
# generate(): a lower bound of Hugging Face transformers' generate() time on the same PyTorch), on
# the random opus-mt-base-sized Marian of bench/random_marian.hpp and its sources (20 random ids +
# EOS per source): greedy and beam 5 at batch 1 and 16, min_length = max_length = 64 (as
# bench_generate), THREADS threads on each side (default 2; PyTorch with OMP_WAIT_POLICY=PASSIVE, and
# OPENBLAS_NUM_THREADS=THREADS for the OpenBLAS that Debian's PyTorch runs its products on).
# invar runs as bench_generate's BM_Generate runs (Seq2SeqModel::generate, bench/tool_generate_ids)
# in f32 (oneDNN on packed weights, the default) and int8 (--weights int8); each process loads the
# model, generates once untimed, then times one generate (wall and process CPU time). The three
# processes alternate ROUNDS times (default 3) per configuration; every round checks that invar's
# f32 ids equal PyTorch's. Prints, per configuration, min / median seconds and the speed-ups
# PyTorch time ÷ invar time (min ÷ min, median ÷ median), and the load average before and after.
#
#   build/bench/tool_random_model --preset opus-mt-base --out /tmp/opus-mt-base
#   bench/generate_vs_torch.sh build/bench/tool_generate_ids /tmp/opus-mt-base
#
# Needs Debian's python3-torch and python3-numpy (PYTHON, default /usr/bin/python3). Exits 1 when
# invar's f32 ids differ from PyTorch's in any round.
set -euo pipefail

source "$(dirname "$0")/vs_common.sh"
take_arguments "TOOL_GENERATE_IDS MODEL_FOLDER" "$@"
length=64

print_setup
for batch in 1 16; do
  for beams in 1 5; do
    config="batch${batch}_beams${beams}"
    settings=(--beams "$beams" --max-length "$length" --min-length "$length" --threads "$threads" --repeat 1)
    for round in $(seq "$rounds"); do
      "$tool" --model "$model" --random-sources "$batch" --dump-sources "$work/sources_$batch.json" "${settings[@]}" \
        --products packed >"$work/$config.invar.$round.json"
      "$tool" --model "$model" --random-sources "$batch" "${settings[@]}" --products int8 \
        >"$work/$config.int8.$round.json"
      OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS=$threads "$python" "$here/torch_marian.py" --model "$model" --sources "$work/sources_$batch.json" \
        "${settings[@]}" >"$work/$config.torch.$round.json"
    done
  done
done
summarize_runs <<'EOF'
import sys
from vs_summary import summarize
work, rounds = sys.argv[1], int(sys.argv[2])


def compare(side, runs):
    if side == "invar":
        same = all(r["ids"] == t["ids"] for r, t in zip(runs("invar"), runs("torch")))
        return ("equal to PyTorch's" if same else "DIFFER from PyTorch's"), same
    if side == "torch":
        return "", True
    hyps = [(a, b) for r, f in zip(runs(side), runs("invar")) for a, b in zip(r["ids"], f["ids"])]
    return f"{sum(a == b for a, b in hyps) / len(hyps):.0%} equal to f32", True


configs = [f"batch{batch}_beams{beams}" for batch in (1, 16) for beams in (1, 5)]
sys.exit(summarize(work, rounds, configs, 18, "ids", compare))
EOF
