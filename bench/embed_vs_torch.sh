#!/usr/bin/env bash
# Steady-state encoder embedding, invar against bench/torch_encoder.py (a lean PyTorch
# XLMRobertaModel / BertModel forward + mean pooling: a lower bound of Hugging Face transformers'
# time on the same PyTorch), on a random full-size model (bench/tool_random_model, e.g. xlmr-base)
# and random token ids (5 .. vocab-1, no padding): batch 1 and 32 × TOKENS ids (default 32),
# THREADS threads on each side (default 2; PyTorch with OMP_WAIT_POLICY=PASSIVE, and
# OPENBLAS_NUM_THREADS=THREADS for the OpenBLAS that Debian's PyTorch runs its products on).
# invar runs as bench_encoder's rows run (EncoderModel::embed, mean pooling, bench/tool_embed_ids)
# in f32 (oneDNN on packed weights, the default) and int8 (--weights int8); each process loads the
# model, embeds once untimed, then times one embed (wall and process CPU time). The three processes
# alternate ROUNDS times (default 3) per batch size; every round checks that invar's f32 embeddings
# are within 1e-4 of PyTorch's, and reports the lowest cosine of int8 to f32. Prints, per batch size,
# min / median seconds and the speed-ups PyTorch time ÷ invar time (min ÷ min, median ÷ median), and
# the load average before and after.
#
#   build/bench/tool_random_model --preset xlmr-base --out /tmp/xlmr-base
#   bench/embed_vs_torch.sh build/bench/tool_embed_ids /tmp/xlmr-base
#
# Needs Debian's python3-torch and python3-numpy (PYTHON, default /usr/bin/python3). Exits 1 when
# invar's f32 embeddings differ from PyTorch's by more than 1e-4 in any round.
set -euo pipefail

source "$(dirname "$0")/vs_common.sh"
take_arguments "TOOL_EMBED_IDS MODEL_FOLDER" "$@"

print_setup "; $tokens tokens per input"
for batch in 1 32; do
  config="batch$batch"
  for round in $(seq "$rounds"); do
    embed_with_invar "$tool" "$model" "$config" "$batch" "$round"
    OMP_WAIT_POLICY=PASSIVE OPENBLAS_NUM_THREADS=$threads "$python" "$here/torch_encoder.py" --model "$model" \
      --inputs "$work/inputs_$batch.json" --threads "$threads" --repeat 1 >"$work/$config.torch.$round.json"
  done
done
summarize_runs <<'EOF'
import sys
from vs_summary import compare_embeddings, summarize
work, rounds = sys.argv[1], int(sys.argv[2])
sys.exit(summarize(work, rounds, ["batch1", "batch32"], 14, "embeddings", compare_embeddings("torch", "PyTorch")))
EOF
