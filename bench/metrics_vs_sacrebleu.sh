#!/usr/bin/env bash
# Whole-command time (process start to exit, reading both files and printing included) of
# `invar metric bleu|chrf|ter` against sacrebleu's CLI on the same corpus, back to back in one
# run, best of N each, and the ratio. sacrebleu is not a dependency of invar: say how to run it.
#
#   SACREBLEU="python3 -m sacrebleu" bench/metrics_vs_sacrebleu.sh build/invar /tmp/mt
#
# DIR holds hyp.txt and ref.txt (build/bench/tool_metrics_corpus --dir DIR writes the 3,000-line
# corpus of docs/performance.md). RUNS (default 5) sets N. Each pair of commands must print the
# same score line, or the script stops: a faster wrong answer is no result.
set -euo pipefail

if [[ $# -ne 2 || -z "${SACREBLEU:-}" ]]; then
  echo "usage: SACREBLEU='command running sacrebleu' $0 INVAR_BINARY CORPUS_DIR" >&2
  exit 2
fi
invar=$1
dir=$2
runs=${RUNS:-5}
read -r -a sacrebleu <<<"$SACREBLEU"

# Milliseconds of the fastest of $runs runs of the command "$@" (its output discarded).
best_ms() {
  local best="" start end ms
  for ((k = 0; k < runs; ++k)); do
    start=$(date +%s%N)
    "$@" >/dev/null
    end=$(date +%s%N)
    ms=$(((end - start) / 1000000))
    if [[ -z $best || $ms -lt $best ]]; then best=$ms; fi
  done
  echo "$best"
}

printf '%-8s %12s %12s %8s\n' metric "invar ms" "sacrebleu ms" ratio
for metric in bleu chrf ter; do
  ours=("$invar" metric "$metric" --hyp "$dir/hyp.txt" --ref "$dir/ref.txt" --threads 1)
  theirs=("${sacrebleu[@]}" "$dir/ref.txt" -i "$dir/hyp.txt" -m "$metric" -f text)
  if [[ "$("${ours[@]}")" != "$("${theirs[@]}")" ]]; then
    echo "$metric: invar and sacrebleu print different scores" >&2
    exit 1
  fi
  a=$(best_ms "${ours[@]}")
  b=$(best_ms "${theirs[@]}")
  printf '%-8s %12d %12d %7.1fx\n' "$metric" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')"
done
