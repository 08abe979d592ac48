#!/usr/bin/env bash
# Start + first sentence: the whole command `invar embed` on one sentence (process start to exit:
# opening the model, checking and preparing its weights, one forward pass, printing), and its peak
# resident memory, for a model folder and its .invar conversions, in f32, int8 and deterministic
# mode. Warm page cache (one unmeasured run first); best of N wall times, CPU times (user + system:
# steadier than wall time on a loaded machine) and peak RSS, and the most major page faults (pages
# read from disk: 0 when the file stayed in the page cache).
#
#   build/bench/tool_random_model --preset xlmr-base --out /tmp/xlmr-base
#   bench/startup.sh build/invar /tmp/xlmr-base
#
# MODEL is a folder; MODEL.invar and MODEL.int8.invar are written next to it by `invar convert`
# when missing. RUNS (default 5) sets N. Prints one row per configuration.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 INVAR_BINARY MODEL_FOLDER" >&2
  exit 2
fi
invar=$1
model=${2%/}
runs=${RUNS:-5}
threads=${THREADS:-2}

[[ -f $model.invar ]] || "$invar" convert "$model" -o "$model.invar"
[[ -f $model.int8.invar ]] || "$invar" convert "$model" -o "$model.int8.invar" --dtype int8

# "<wall ms> <cpu ms> <MB> <major faults>" over $runs runs of `invar embed "$@"`.
measure() {
  local out
  "$invar" embed "$@" --threads "$threads" <<<"Hello world, this is a start-up test." >/dev/null
  for ((k = 0; k < runs; ++k)); do
    { /usr/bin/time -f '%e %U %S %M %F' "$invar" embed "$@" --threads "$threads" \
        <<<"Hello world, this is a start-up test." >/dev/null; } 2>&1 | tail -1
  done | awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 + $3 < c { c = $2 + $3 }
              NR == 1 || $4 < m { m = $4 } $5 > f { f = $5 }
              END { printf "%d %d %d %d\n", w * 1000, c * 1000, m / 1024, f }'
}

printf '%-34s %8s %8s %8s %8s\n' configuration "wall ms" "cpu ms" "RSS MB" "majflt"
row() {
  local name=$1
  shift
  read -r wall cpu mb faults < <(measure "$@")
  printf '%-34s %8s %8s %8s %8s\n' "$name" "$wall" "$cpu" "$mb" "$faults"
}
row "folder f32" -m "$model"
row "folder f32 --deterministic" -m "$model" --deterministic
row "folder --weights int8" -m "$model" --weights int8
row ".invar f32" -m "$model.invar"
row ".invar f32 --deterministic" -m "$model.invar" --deterministic
row ".invar int8 (convert --dtype int8)" -m "$model.int8.invar" --weights int8
