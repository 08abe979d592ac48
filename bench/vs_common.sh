# Sourced by bench/embed_vs_torch.sh, bench/embed_vs_onnxruntime.sh and bench/generate_vs_torch.sh:
# their arguments' check, the settings each comparison takes from the environment (ROUNDS, THREADS,
# TOKENS, PYTHON, WORK), its work folder (WORK, or a temporary one removed on exit), and invar's two
# embedding runs.
# take_arguments USAGE "$@": unless there are as many arguments as USAGE names, prints the usage line
# and exits 2; sets tool (the first) and model (the second, without a trailing /).
take_arguments() {
  local usage=$1
  shift
  local -a names
  read -ra names <<<"$usage"
  if [[ $# -ne ${#names[@]} ]]; then
    echo "usage: $0 $usage" >&2
    exit 2
  fi
  tool=$1
  model=${2%/}
}

rounds=${ROUNDS:-3}
threads=${THREADS:-2}
tokens=${TOKENS:-32}
python=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${WORK:-}  # a folder to keep every run's JSON in; by default a temporary one
if [[ -z $work ]]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

# embed_with_invar TOOL MODEL CONFIG BATCH ROUND: invar f32 on BATCH random inputs of $tokens ids
# (written to $work/inputs_BATCH.json for the baselines), then int8 on the same inputs, into
# $work/CONFIG.invar.ROUND.json and $work/CONFIG.int8.ROUND.json.
embed_with_invar() {
  local tool=$1 model=$2 config=$3 batch=$4 round=$5
  "$tool" --model "$model" --random-inputs "$batch" --tokens "$tokens" --dump-inputs "$work/inputs_$batch.json" \
    --threads "$threads" --repeat 1 --products packed >"$work/$config.invar.$round.json"
  "$tool" --model "$model" --inputs "$work/inputs_$batch.json" --threads "$threads" --repeat 1 --products int8 \
    >"$work/$config.int8.$round.json"
}

# print_setup [MORE]: the machine and the settings before the runs (MORE: e.g. "; 32 tokens per input").
print_setup() {
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $threads threads per side; $rounds rounds${1:-}"
}

# summarize_runs <<'EOF' ... EOF: prints the load average, then runs the Python program given on
# stdin with bench/ importable (vs_summary.py) and the work folder and round count as its arguments.
summarize_runs() {
  echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
  PYTHONPATH="$here" "$python" - "$work" "$rounds"
}
