#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang in build-fuzz/ (the library instrumented,
# only the fuzz executables linked) and runs each for a bounded time on seeds made from the test
# fixtures: safetensors headers, pytorch_model.bin files and their data.pkl, .invar files, config and
# tokenizer files, vocabularies, tokenizer.json, TSV/CSV tables (and JSONL made from them), word vectors
# (.vec and a trained .bin), robustness template files, run files (a part and a progress file),
# st-eval's judgement tables. Fails on any crash, leak, hang or sanitizer
# report; the input that caused it is left in build-fuzz/fuzz-artifacts/.
#   tests/fuzz/run.sh [SECONDS_PER_TARGET]   (default 20)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
build=build-fuzz
targets=(safetensors_header unpickler pytorch_checkpoint invar_file model_folder vocabulary tokenizer_json tables word_vectors
  templates run_files st_eval_tables)

CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINVAR_FUZZ=ON -DINVAR_BENCH=OFF \
  -DINVAR_OPENCL=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target invar_fuzz_seeds "${targets[@]/#/fuzz_}"

seeds=$build/fuzz-seeds
rm -rf "$seeds"
for target in "${targets[@]}"; do mkdir -p "$seeds/$target"; done
mkdir -p "$build/fuzz-artifacts"
"$build/tests/fuzz/invar_fuzz_seeds" "$seeds"
for folder in tests/fixtures/*/*/; do
  group=$(basename "$(dirname "$folder")")
  name=$(basename "$folder")
  if [ -f "$folder/model.safetensors" ]; then
    header_size=$(od -An -t u8 -N 8 "$folder/model.safetensors" | tr -d ' ')
    head -c $((8 + header_size)) "$folder/model.safetensors" >"$seeds/safetensors_header/$name"
  fi
  if [ -f "$folder/pytorch_model.bin" ]; then
    unzip -p "$folder/pytorch_model.bin" '*/data.pkl' >"$seeds/unpickler/$name"
    # fuzz_pytorch_checkpoint: byte 0 = the whole file, byte 1 = data.pkl packed by the target.
    { printf '\0'; cat "$folder/pytorch_model.bin"; } >"$seeds/pytorch_checkpoint/$name.bin"
    { printf '\1'; cat "$seeds/unpickler/$name"; } >"$seeds/pytorch_checkpoint/$name.pkl"
  fi
  if [ -f "$folder/config.json" ]; then
    # fuzz_model_folder: "GROUP/FOLDER/FILE\n" then the file, for each JSON file but the golden.
    for file in "$folder"*.json; do
      [ "$(basename "$file")" = golden.json ] && continue
      { printf '%s/%s/%s\n' "$group" "$name" "$(basename "$file")"; cat "$file"; } \
        >"$seeds/model_folder/${group}_${name}_$(basename "$file")"
    done
  fi
done
# fuzz_tokenizer_json: byte 0 picks the family (0 bert, 2 t5), the rest is tokenizer.json.
{ printf '\0'; cat tests/fixtures/tokenizer-json/bert-base-uncased/tokenizer.json; } >"$seeds/tokenizer_json/bert"
{ printf '\2'; cat tests/fixtures/tokenizer-json/flan-t5-base/tokenizer.json; } >"$seeds/tokenizer_json/t5"
# fuzz_tables: byte 0 picks .tsv (0), .csv (1), .txt (3); +4 reads a header row.
while IFS= read -r file; do
  case "$file" in *.tsv) format='\0' ;; *.csv) format='\5' ;; *) format='\3' ;; esac
  { printf "$format"; cat "$file"; } >"$seeds/tables/$(echo "$file" | tr / _)"
done < <(find tests/fixtures -name '*.tsv' -o -name '*.csv' -o -path '*/st_eval/*.txt')

# fuzz_templates: the bundled test beds, each phenomenon file with the slot table before it.
for file in examples/robustness/{negation,mixed,irony}.tsv; do
  cat examples/robustness/slots.tsv "$file" >"$seeds/templates/$(basename "$file")"
done
cp tests/fixtures/robustness/paper_templates.py "$seeds/templates/"  # the authors' layout

# fuzz_st_eval_tables: byte 0 picks TSV (0) or CSV (1); the paper-layout fixture, and as CSV.
{ printf '\0'; cat tests/fixtures/st_eval/judgements.tsv; } >"$seeds/st_eval_tables/judgements.tsv"
{ printf '\1'; tr '\t' , <tests/fixtures/st_eval/judgements.tsv; } >"$seeds/st_eval_tables/judgements.csv"

for target in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$target
  log=$build/fuzz-$target.log
  mkdir -p "$corpus"
  if ! "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -runs=2000000 -timeout=10 -rss_limit_mb=2048 \
      -malloc_limit_mb=1024 -artifact_prefix="$build/fuzz-artifacts/$target-" "$corpus" "$seeds/$target" \
      >"$log" 2>&1; then
    cat "$log"
    echo "fuzz_$target failed; the input is in $build/fuzz-artifacts/" >&2
    exit 1
  fi
  echo "fuzz_$target: $(grep -Eo '#[0-9]+ +DONE.*' "$log" || tail -n 1 "$log")"
done
