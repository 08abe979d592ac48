#!/usr/bin/env bash
# Runs every ```sh block of README.md and docs/*.md (docs/cli.md, "Examples in the docs"): each in a
# fresh folder that links the source tree's examples/ and tests/ and the build tree as build/, with
# the built invar first on PATH, under bash -euo pipefail; a block fails the test when it exits
# non-zero. HTML comments on the lines just above a block's fence adjust it:
#   <!-- example: skip: REASON -->        not run (a user's model, external data, the build itself)
#   <!-- example: setup: COMMANDS -->     run first, in the same shell (input files the block reads)
#   <!-- example: replace: WORD VALUE --> every WORD of the block is VALUE (a model name → a fixture)
#   <!-- example: each: VAR V1 V2 ... --> run once per value, with VAR set (a Slurm array's task id)
#   <!-- example: continues -->           in the previous block's folder (its files are the input)
# Blocks that call mpirun run only in a build with INVAR_MPI.
# Usage: doc_examples.sh SOURCE_DIR BUILD_DIR MPI(ON|OFF)
set -euo pipefail
src=$1 build=$2 mpi=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH="$build:$PATH" OMPI_MCA_rmaps_base_oversubscribe=1

ran=0 skipped=0 failed=0
for doc in "$src/README.md" "$src"/docs/*.md; do
  name=${doc#"$src/"}
  blocks="$work/blocks/$name"
  mkdir -p "$blocks"
  # Each sh block as N.sh (its lines) and N.meta (its directives, then "line L").
  awk -v out="$blocks" '
    /^<!-- example: .* -->$/ { meta[++m] = substr($0, 15, length($0) - 18); next }
    !inside && /^```sh[ \t]*$/ { inside = 1; n++; for (i = 1; i <= m; i++) print meta[i] > (out "/" n ".meta");
                                  print "line " NR > (out "/" n ".meta"); m = 0; next }
    inside && /^```/ { inside = 0; close(out "/" n ".sh"); close(out "/" n ".meta"); next }
    inside { print > (out "/" n ".sh"); next }
    { m = 0 }
  ' "$doc"
  folder=""
  for meta in $(ls "$blocks"/*.meta 2>/dev/null | sort -V); do
    block=${meta%.meta}.sh
    touch "$block"
    where="$name:$(sed -n 's/^line //p' "$meta")"
    reason=$(sed -n 's/^skip: //p' "$meta")
    if [[ -n $reason ]]; then
      echo "skipped $where: $reason"
      skipped=$((skipped + 1))
      continue
    fi
    if grep -q mpirun "$block" && [[ $mpi != ON ]]; then
      echo "skipped $where: mpirun needs a build with INVAR_MPI"
      skipped=$((skipped + 1))
      continue
    fi
    body=$(cat "$block")
    while read -r word value; do
      body=${body//"$word"/"$value"}
    done < <(sed -n 's/^replace: //p' "$meta")
    if ! grep -qx continues "$meta" || [[ -z $folder ]]; then
      folder=$(mktemp -d "$work/run.XXXX")
      ln -s "$src/examples" "$folder/examples"
      ln -s "$src/tests" "$folder/tests"
      ln -s "$build" "$folder/build"
    fi
    setup=$(sed -n 's/^setup: //p' "$meta")
    read -r var values <<< "$(sed -n 's/^each: //p' "$meta")"
    for value in ${values:-none}; do
      script="$setup"$'\n'"$body"
      [[ -n ${var:-} ]] && script="export $var=$value"$'\n'"$script"
      # Under ASan the ranks mpirun starts (which inherit this environment) unwind allocations
      # fully, as test_run_control's do: Open MPI's libraries have no frame pointers, and
      # tests/lsan.supp can name them only in full stacks.
      if [[ -n ${ASAN_OPTIONS:-} ]] && grep -q mpirun "$block"; then
        script="export ASAN_OPTIONS=\"\$ASAN_OPTIONS:fast_unwind_on_malloc=0\""$'\n'"$script"
      fi
      if (cd "$folder" && timeout 300 bash -euo pipefail -c "$script") > "$work/log" 2>&1; then
        ran=$((ran + 1))
      else
        echo "FAILED $where${var:+ ($var=$value)}:"
        sed 's/^/    /' "$work/log"
        failed=$((failed + 1))
      fi
    done
  done
done
echo "$ran runs of examples passed, $failed failed, $skipped blocks skipped"
[[ $failed -eq 0 && $ran -gt 0 ]]
