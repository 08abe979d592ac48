#!/usr/bin/env bash
# Start + first sentence: the whole command `invar embed` on one sentence (process start to exit:
# opening the model, checking and preparing its weights, one forward pass, printing) — or, for a
# Marian folder (one with source.spm), `invar translate` of one source to 8 new tokens — and its peak
# resident memory, for a model folder and its .invar conversions, in f32 (linear layers on oneDNN
# and on OpenBLAS), int8 and deterministic mode. Warm page cache (one unmeasured run first); best of
# N wall times, CPU times (user + system: steadier than wall time on a loaded machine) and peak RSS,
# and the most major page faults (pages read from disk: 0 when the file stayed in the page cache).
#
#   build/bench/tool_random_model --preset xlmr-base --out /tmp/xlmr-base
#   bench/startup.sh build/invar-full /tmp/xlmr-base [BASELINE_BINARY]
#   build/bench/tool_random_model --preset opus-mt-base --out /tmp/opus-mt-base
#   bench/startup.sh build/invar-full /tmp/opus-mt-base [BASELINE_BINARY]
#
# MODEL is a folder; MODEL.invar and MODEL.int8.invar are written next to it by `invar convert`
# when missing. RUNS (default 5) sets N. Prints one row per configuration. With a BASELINE_BINARY
# (an older build), its runs alternate with the new binary's in the same loop, and each row also
# gives the baseline's figures and the ratios new ÷ baseline: one run, one machine state.
# Configurations the baseline lacks (--linear) are measured on the new binary alone.
set -euo pipefail

if [[ $# -ne 2 && $# -ne 3 ]]; then
  echo "usage: $0 INVAR_BINARY MODEL_FOLDER [BASELINE_BINARY]" >&2
  exit 2
fi
invar=$1
model=${2%/}
baseline=${3:-}
runs=${RUNS:-5}
threads=${THREADS:-2}
sentence="Hello world, this is a start-up test."
command=(embed)
[[ -f $model/source.spm ]] && command=(translate --max-new-tokens 8)

[[ -f $model.invar ]] || "$invar" convert "$model" -o "$model.invar"
[[ -f $model.int8.invar ]] || "$invar" convert "$model" -o "$model.int8.invar" --dtype int8

# One run: "<wall s> <user s> <sys s> <KB> <major faults>".
once() {
  local binary=$1
  shift
  { /usr/bin/time -f '%e %U %S %M %F' "$binary" "${command[@]}" "$@" --threads "$threads" <<<"$sentence" >/dev/null; } 2>&1 |
    tail -1
}

# "<wall ms> <cpu ms> <MB> <major faults>" from the lines of once().
best() {
  awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 + $3 < c { c = $2 + $3 }
       NR == 1 || $4 < m { m = $4 } $5 > f { f = $5 }
       END { printf "%d %d %d %d\n", w * 1000, c * 1000, m / 1024, f }'
}

if [[ -z $baseline ]]; then
  printf '%-36s %8s %8s %8s %8s\n' configuration "wall ms" "cpu ms" "RSS MB" "majflt"
else
  printf '%-36s %8s %8s %8s %8s | %8s %8s %8s | %6s %6s %6s\n' configuration "wall ms" "cpu ms" "RSS MB" "majflt" \
    "base wl" "base cpu" "base RSS" "wall" "cpu" "RSS"
fi
row() {
  local name=$1 new_only=$2
  shift 2
  local new_file base_file
  new_file=$(mktemp)
  base_file=$(mktemp)
  "$invar" "${command[@]}" "$@" --threads "$threads" <<<"$sentence" >/dev/null
  [[ -n $baseline && $new_only == 0 ]] && "$baseline" "${command[@]}" "$@" --threads "$threads" <<<"$sentence" >/dev/null
  for ((k = 0; k < runs; ++k)); do
    [[ -n $baseline && $new_only == 0 ]] && once "$baseline" "$@" >>"$base_file"
    once "$invar" "$@" >>"$new_file"
  done
  read -r wall cpu mb faults < <(best <"$new_file")
  if [[ -z $baseline ]]; then
    printf '%-36s %8s %8s %8s %8s\n' "$name" "$wall" "$cpu" "$mb" "$faults"
  elif [[ $new_only == 1 ]]; then
    printf '%-36s %8s %8s %8s %8s | %8s %8s %8s | %6s %6s %6s\n' "$name" "$wall" "$cpu" "$mb" "$faults" - - - - - -
  else
    read -r base_wall base_cpu base_mb _ < <(best <"$base_file")
    printf '%-36s %8s %8s %8s %8s | %8s %8s %8s | %6.2f %6.2f %6.2f\n' "$name" "$wall" "$cpu" "$mb" "$faults" \
      "$base_wall" "$base_cpu" "$base_mb" "$(bc -l <<<"$wall / $base_wall")" "$(bc -l <<<"$cpu / $base_cpu")" \
      "$(bc -l <<<"$mb / $base_mb")"
  fi
  rm -f "$new_file" "$base_file"
}
row "folder f32" 0 -m "$model"
row "folder f32 --linear openblas" 1 -m "$model" --linear openblas
row "folder f32 --deterministic" 0 -m "$model" --deterministic
row "folder --weights int8" 0 -m "$model" --weights int8
row ".invar f32" 0 -m "$model.invar"
row ".invar f32 --linear openblas" 1 -m "$model.invar" --linear openblas
row ".invar f32 --deterministic" 0 -m "$model.invar" --deterministic
row ".invar int8 (convert --dtype int8)" 0 -m "$model.int8.invar" --weights int8
