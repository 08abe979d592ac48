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

if [[ $# -ne 2 ]]; then
  echo "usage: $0 TOOL_GENERATE_IDS MODEL_FOLDER" >&2
  exit 2
fi
tool=$1
model=${2%/}
rounds=${ROUNDS:-3}
threads=${THREADS:-2}
python=${PYTHON:-/usr/bin/python3}
length=64
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-}  # a folder to keep every run's JSON in; by default a temporary one
if [[ -z $work ]]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $threads threads per side; $rounds rounds"
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
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"

"$python" - "$work" "$rounds" <<'EOF'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def runs(config, side):
    return [json.load(open(f"{work}/{config}.{side}.{r}.json")) for r in range(1, rounds + 1)]
differ = False
print(f"{'configuration':<18} {'side':<8} {'wall s min/med':>16} {'cpu s min/med':>16} {'speed-up wall':>14} {'speed-up cpu':>13}  ids")
for batch in (1, 16):
    for beams in (1, 5):
        config = f"batch{batch}_beams{beams}"
        torch_runs = runs(config, "torch")
        def stats(results, key):
            values = [r["runs"][0][key] for r in results]
            return min(values), statistics.median(values)
        t_wall, t_cpu = stats(torch_runs, "wall_s"), stats(torch_runs, "cpu_s")
        f32 = runs(config, "invar")
        for side, results in (("invar", f32), ("int8", runs(config, "int8")), ("torch", torch_runs)):
            wall, cpu = stats(results, "wall_s"), stats(results, "cpu_s")
            if side == "torch":
                ratios, ids = "", ""
            else:
                ratios = f"{t_wall[0] / wall[0]:6.2f} /{t_wall[1] / wall[1]:5.2f} {t_cpu[0] / cpu[0]:5.2f} /{t_cpu[1] / cpu[1]:5.2f}"
                if side == "invar":
                    same = all(r["ids"] == t["ids"] for r, t in zip(results, torch_runs))
                    ids = "equal to PyTorch's" if same else "DIFFER from PyTorch's"
                    differ = differ or not same
                else:
                    hyps = [(a, b) for r, f in zip(results, f32) for a, b in zip(r["ids"], f["ids"])]
                    ids = f"{sum(a == b for a, b in hyps) / len(hyps):.0%} equal to f32"
            print(f"{config:<18} {side:<8} {wall[0]:7.3f} /{wall[1]:7.3f} {cpu[0]:7.3f} /{cpu[1]:7.3f}  {ratios:<28} {ids}")
sys.exit(1 if differ else 0)
EOF
