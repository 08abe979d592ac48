#!/usr/bin/env python3
"""A lean PyTorch BertModel / XLMRobertaModel forward + mean pooling, for timing invar's encoder
against a lower bound of Hugging Face transformers 4.19 (+ sentence-transformers' mean pooling) where
transformers is not installed.

Hugging Face's forward is PyTorch operations plus Python around them. This script runs the
operations modeling_bert.py / modeling_roberta.py run in eval mode under torch.no_grad(): word +
token-type + position embeddings (RoBERTa's positions counted from padding_idx + 1 over non-pad
tokens, BERT's from 0) and LayerNorm; per layer separate query/key/value F.linear, heads split by
view + permute, matmul of queries and transposed keys scaled by 1/sqrt(head_dim), the additive
mask ((1 - mask) * the dtype's minimum), softmax, matmul with the values, the output dense +
residual + LayerNorm, the intermediate dense + GELU (erf), the output dense + residual +
LayerNorm; then sentence-transformers' mean pooling (mask-weighted sum over tokens ÷ the token
count). Dropout is the identity in eval mode and is left out. Less Python than transformers has, so
its time is at most Hugging Face's on the same PyTorch. Written from the behaviour of transformers
4.19; no code copied. Bench only: CI never runs it.

  python3 bench/torch_encoder.py --model /tmp/xlmr-base --inputs inputs.json --threads 2 --repeat 3
  python3 bench/torch_encoder.py --model tests/fixtures/core/xlmr --check-golden

Prints JSON: the mean-pooled embedding of each input (all inputs the same length, no padding) and
wall and process CPU seconds of each timed forward + pooling (after one untimed warm-up; model load
excluded). With --check-golden: the largest absolute differences to the folder's golden.json
(tests/fixtures/core layout: per case input_ids, attention_mask, hidden_states, last_hidden_state,
mean_pooled; padded_batch), exit 1 above 1e-4.
"""
import argparse
import json
import math
import time

import torch
import torch.nn.functional as F

from torch_marian import read_safetensors  # bench/, the folder Python puts first on the path

PREFIXES = ("roberta.", "bert.")


class Encoder:
    def __init__(self, folder):
        c = json.load(open(folder + "/config.json"))
        if c.get("hidden_act", "gelu") != "gelu" or c.get("position_embedding_type", "absolute") != "absolute":
            raise SystemExit("only gelu activations and absolute positions are implemented here")
        w = {}
        for name, tensor in read_safetensors(folder + "/model.safetensors").items():
            for prefix in PREFIXES:  # the base model's names, whatever head the checkpoint was saved with
                if name.startswith(prefix):
                    name = name[len(prefix) :]
            w[name] = tensor
        self.w = w
        self.d = c["hidden_size"]
        self.heads = c["num_attention_heads"]
        self.head_dim = self.d // self.heads
        self.eps = c.get("layer_norm_eps", 1e-12)
        self.layers = c["num_hidden_layers"]
        # RoBERTa (and XLM-R) count positions from padding_idx + 1; BERT from 0.
        self.roberta = c.get("model_type") in ("roberta", "xlm-roberta")
        self.pad = c.get("pad_token_id", 0)

    def norm(self, h, prefix):
        return F.layer_norm(h, (self.d,), self.w[prefix + ".weight"], self.w[prefix + ".bias"], self.eps)

    def linear(self, h, prefix):
        return F.linear(h, self.w[prefix + ".weight"], self.w[prefix + ".bias"])

    def heads_of(self, x):
        batch, length, _ = x.shape
        return x.view(batch, length, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, ids, mask):
        """ids, mask [B, L] -> every hidden state [B, L, d], embeddings first."""
        w = self.w
        if self.roberta:
            kept = ids.ne(self.pad).int()
            positions = (torch.cumsum(kept, dim=1).type_as(kept) * kept).long() + self.pad
        else:
            positions = torch.arange(ids.shape[1])[None, :].expand_as(ids)
        types = torch.zeros_like(ids)
        h = (F.embedding(ids, w["embeddings.word_embeddings.weight"])
             + F.embedding(types, w["embeddings.token_type_embeddings.weight"])
             + F.embedding(positions, w["embeddings.position_embeddings.weight"]))
        h = self.norm(h, "embeddings.LayerNorm")
        additive = (1.0 - mask[:, None, None, :].to(torch.float32)) * torch.finfo(torch.float32).min
        states = [h]
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q = self.heads_of(self.linear(h, p + "attention.self.query"))
            k = self.heads_of(self.linear(h, p + "attention.self.key"))
            v = self.heads_of(self.linear(h, p + "attention.self.value"))
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim) + additive
            context = torch.matmul(F.softmax(scores, dim=-1), v).permute(0, 2, 1, 3).contiguous()
            context = context.view(h.shape[0], h.shape[1], self.d)
            h = self.norm(self.linear(context, p + "attention.output.dense") + h, p + "attention.output.LayerNorm")
            inner = F.gelu(self.linear(h, p + "intermediate.dense"))
            h = self.norm(self.linear(inner, p + "output.dense") + h, p + "output.LayerNorm")
            states.append(h)
        return states

    def embed(self, ids, mask):
        """sentence-transformers' mean pooling of the last hidden state."""
        h = self.forward(ids, mask)[-1]
        weights = mask[:, :, None].to(h.dtype)
        return (h * weights).sum(1) / torch.clamp(weights.sum(1), min=1e-9)


def check_golden(model, folder):
    """Largest absolute differences to golden.json; True when all are within 1e-4."""
    golden = json.load(open(folder + "/golden.json"))
    worst = {"hidden_states": 0.0, "last_hidden_state": 0.0, "mean_pooled": 0.0, "padded_batch": 0.0}
    for case in golden["cases"]:
        ids = torch.tensor([case["input_ids"]])
        mask = torch.tensor([case.get("attention_mask", [1] * len(case["input_ids"]))])
        states = model.forward(ids, mask)
        for got, want in zip(states, case["hidden_states"]):
            worst["hidden_states"] = max(worst["hidden_states"], float((got - torch.tensor(want)).abs().max()))
        worst["last_hidden_state"] = max(worst["last_hidden_state"],
                                         float((states[-1] - torch.tensor(case["last_hidden_state"])).abs().max()))
        worst["mean_pooled"] = max(worst["mean_pooled"],
                                   float((model.embed(ids, mask) - torch.tensor(case["mean_pooled"])).abs().max()))
    batch = golden["padded_batch"]
    ids, mask = torch.tensor(batch["input_ids"]), torch.tensor(batch["attention_mask"])
    got = model.forward(ids, mask)[-1] * mask[:, :, None]  # outputs at pad positions are not compared
    want = torch.tensor(batch["last_hidden_state"]) * mask[:, :, None]
    pooled = model.embed(ids, mask) - torch.tensor(batch["mean_pooled"])
    worst["padded_batch"] = max(float((got - want).abs().max()), float(pooled.abs().max()))
    return worst, all(v <= 1e-4 for v in worst.values())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="BERT / XLM-R folder: config.json, model.safetensors")
    parser.add_argument("--inputs", help="JSON file: a list of id lists, all the same length")
    parser.add_argument("--check-golden", action="store_true", help="compare with the folder's golden.json")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="timed runs after one warm-up")
    parser.add_argument("--no-vectors", action="store_true", help="leave the embeddings out of the JSON")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model = Encoder(args.model)
    with torch.no_grad():
        if args.check_golden:
            worst, ok = check_golden(model, args.model)
            print(json.dumps({"max_abs_diff": worst, "within_1e-4": ok}))
            raise SystemExit(0 if ok else 1)
        if not args.inputs:
            raise SystemExit("give --inputs or --check-golden")
        ids = torch.tensor(json.load(open(args.inputs)))
        mask = torch.ones_like(ids)
        vectors = model.embed(ids, mask)  # warm-up
        runs = []
        for _ in range(args.repeat):
            cpu, wall = time.process_time(), time.perf_counter()
            vectors = model.embed(ids, mask)
            runs.append({"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu})
    out = {"runs": runs, "torch": torch.__version__, "threads": torch.get_num_threads()}
    if not args.no_vectors:
        out["embeddings"] = vectors.tolist()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
