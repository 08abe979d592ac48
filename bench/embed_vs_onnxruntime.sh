#!/usr/bin/env bash
# Steady-state encoder embedding, invar against ONNX Runtime (onnxruntime-node, its CPU execution
# provider, bench/ort_encoder.js) on the same random full-size model exported by bench/onnx_export.py
# in f32 and with ONNX Runtime's dynamic int8 quantization, and random token ids (5 .. vocab-1, no
# padding): batch 1 and 32 × TOKENS ids (default 32), THREADS threads on each side (default 2:
# ONNX Runtime's intra-op pool, one inter-op thread). invar runs as bench_encoder's rows run
# (EncoderModel::embed, mean pooling, bench/tool_embed_ids) in f32 (oneDNN on packed weights, the
# default) and int8 (--weights int8). Each process loads its model, embeds once untimed, then times
# one embed (wall and process CPU time). The four processes alternate ROUNDS times (default 3) per
# batch size; every round checks that invar's f32 embeddings are within 1e-4 of ONNX Runtime's f32,
# and reports the lowest cosine of each int8 side to invar's f32. Prints, per batch size, min /
# median seconds, the speed-ups ONNX Runtime time ÷ invar time (f32 against f32, int8 against int8),
# and the load average before and after.
#
#   build/bench/tool_random_model --preset xlmr-base --out /tmp/xlmr-base
#   python3 bench/onnx_export.py --model /tmp/xlmr-base --out /tmp/xlmr-base.onnx
#   python3 bench/onnx_export.py --model /tmp/xlmr-base --out /tmp/xlmr-base.int8.onnx --int8
#   npm install --prefix /tmp/ort onnxruntime-node@1.30.0
#   NODE_PATH=/tmp/ort/node_modules bench/embed_vs_onnxruntime.sh build/bench/tool_embed_ids /tmp/xlmr-base \
#       /tmp/xlmr-base.onnx /tmp/xlmr-base.int8.onnx
#
# Needs node with onnxruntime-node on NODE_PATH, and Debian's python3-numpy (PYTHON, default
# /usr/bin/python3) for the summary. Exits 1 when invar's f32 embeddings differ from ONNX Runtime's
# by more than 1e-4 in any round.
set -euo pipefail

source "$(dirname "$0")/vs_common.sh"
take_arguments "TOOL_EMBED_IDS MODEL_FOLDER MODEL.onnx MODEL_INT8.onnx" "$@"
onnx=$3
onnx_int8=$4

print_setup "; $tokens tokens per input"
for batch in 1 32; do
  config="batch$batch"
  for round in $(seq "$rounds"); do
    embed_with_invar "$tool" "$model" "$config" "$batch" "$round"
    node "$here/ort_encoder.js" --model "$onnx" --inputs "$work/inputs_$batch.json" --threads "$threads" \
      --repeat 1 >"$work/$config.ort.$round.json"
    node "$here/ort_encoder.js" --model "$onnx_int8" --inputs "$work/inputs_$batch.json" --threads "$threads" \
      --repeat 1 >"$work/$config.ort-int8.$round.json"
  done
done
summarize_runs <<'EOF'
import sys
from vs_summary import compare_embeddings, summarize
work, rounds = sys.argv[1], int(sys.argv[2])
sides = (("invar", "ort"), ("int8", "ort-int8"), ("ort", None), ("ort-int8", None))
sys.exit(summarize(work, rounds, ["batch1", "batch32"], 14, "embeddings", compare_embeddings("ort", "ONNX Runtime f32"),
                   sides))
EOF
