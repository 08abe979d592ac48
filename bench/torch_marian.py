#!/usr/bin/env python3
"""A lean PyTorch MarianMTModel + generate() (greedy and beam search), for timing invar against a
lower bound of Hugging Face transformers 4.19's generate() where transformers is not installed.

Hugging Face's generate() is PyTorch operations plus Python bookkeeping. This script runs the
operations modeling_marian.py runs for a MarianMTModel (separate q/k/v projections, the key/value
cache grown by concatenation, bmm attention, softmax, swish FFN, post-LayerNorm, sinusoidal
positions, scale_embedding, the tied LM head plus final_logits_bias) and the decisions of
generation_utils.py's greedy_search / beam_search with BeamSearchScorer (pad token masked before
log-softmax in beam search as MarianMTModel.adjust_logits_during_generation does, bad_words_ids,
min_length, forced EOS, top-k of 2·num_beams over beams×vocab, length penalty, early stopping,
index_select cache reorder), with less Python around them than transformers has: its time is at
most Hugging Face's on the same PyTorch. Written from the behaviour of transformers 4.19; no code
copied. Bench only: CI never runs it.

  python3 bench/torch_marian.py --model /tmp/opus-mt-base --sources sources.json --beams 5 \
      --max-length 64 --min-length 64 --threads 2 --repeat 3

Prints JSON: the best hypothesis's ids per source (the decoder start first, EOS last unless
max_length cut it, as invar's tool_generate_ids prints them), its score, and wall and process CPU
seconds of each timed generate (after one untimed warm-up; model load excluded).
"""
import argparse
import json
import math
import time

import numpy as np
import torch
import torch.nn.functional as F

SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "BF16": None}
INTEGER_DTYPES = ("I64", "I32")


def read_safetensors(path):
    """{name: float32 tensor}: an 8-byte little-endian header size, a JSON header, the raw data.
    Integer buffers (BERT's and RoBERTa's embeddings.position_ids) are left out: nothing here reads
    them. Shared with bench/torch_encoder.py."""
    with open(path, "rb") as f:
        data = f.read()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size])
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] in INTEGER_DTYPES:
            continue
        dtype = SAFETENSORS_DTYPES.get(entry["dtype"])
        if dtype is None:
            raise SystemExit(f"{path}: {name}: dtype {entry['dtype']} not supported here")
        begin, end = entry["data_offsets"]
        array = np.frombuffer(data, dtype=dtype, count=(end - begin) // np.dtype(dtype).itemsize, offset=8 + size + begin)
        tensors[name] = torch.from_numpy(array.astype(np.float32).reshape(entry["shape"]))
    return tensors


def sinusoidal_positions(rows, dim):
    """MarianSinusoidalPositionalEmbedding's table: sines in the first half, cosines in the second."""
    angles = np.array([[p / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for p in range(rows)])
    table = np.zeros((rows, dim))
    half = (dim + 1) // 2
    table[:, :half] = np.sin(angles[:, 0::2])
    table[:, half:] = np.cos(angles[:, 1::2])
    return torch.tensor(table, dtype=torch.float32)


class Attention:
    def __init__(self, w, prefix, heads):
        self.q_w, self.q_b = w[prefix + "q_proj.weight"], w[prefix + "q_proj.bias"]
        self.k_w, self.k_b = w[prefix + "k_proj.weight"], w[prefix + "k_proj.bias"]
        self.v_w, self.v_b = w[prefix + "v_proj.weight"], w[prefix + "v_proj.bias"]
        self.o_w, self.o_b = w[prefix + "out_proj.weight"], w[prefix + "out_proj.bias"]
        self.heads = heads
        self.dim = self.q_w.shape[0]
        self.head_dim = self.dim // heads
        self.scaling = self.head_dim**-0.5

    def split(self, x, length, batch):
        return x.view(batch, length, self.heads, self.head_dim).transpose(1, 2).contiguous()

    def __call__(self, hidden, keys_from=None, cache=None, mask=None):
        """keys_from: encoder states (cross-attention); cache: (k, v) [B, H, T, hd] or None.
        Returns the output and the new cache, as MarianAttention.forward."""
        batch, length, _ = hidden.shape
        q = F.linear(hidden, self.q_w, self.q_b) * self.scaling
        if keys_from is not None and cache is not None:
            k, v = cache  # cross-attention: the encoder's keys and values, computed at the first step
        elif keys_from is not None:
            k = self.split(F.linear(keys_from, self.k_w, self.k_b), -1, batch)
            v = self.split(F.linear(keys_from, self.v_w, self.v_b), -1, batch)
        elif cache is not None:
            k = torch.cat([cache[0], self.split(F.linear(hidden, self.k_w, self.k_b), -1, batch)], dim=2)
            v = torch.cat([cache[1], self.split(F.linear(hidden, self.v_w, self.v_b), -1, batch)], dim=2)
        else:
            k = self.split(F.linear(hidden, self.k_w, self.k_b), -1, batch)
            v = self.split(F.linear(hidden, self.v_w, self.v_b), -1, batch)
        shape = (batch * self.heads, -1, self.head_dim)
        q = self.split(q, length, batch).view(*shape)
        kf, vf = k.view(*shape), v.view(*shape)
        scores = torch.bmm(q, kf.transpose(1, 2))
        sources = kf.shape[1]
        if mask is not None:
            scores = (scores.view(batch, self.heads, length, sources) + mask).view(batch * self.heads, length, sources)
        probs = F.softmax(scores, dim=-1)
        out = torch.bmm(probs, vf)
        out = out.view(batch, self.heads, length, self.head_dim).transpose(1, 2).reshape(batch, length, self.dim)
        return F.linear(out, self.o_w, self.o_b), (k, v)


class Layer:
    def __init__(self, w, prefix, heads, decoder):
        self.self_attn = Attention(w, prefix + "self_attn.", heads)
        self.self_norm = (w[prefix + "self_attn_layer_norm.weight"], w[prefix + "self_attn_layer_norm.bias"])
        self.cross_attn = Attention(w, prefix + "encoder_attn.", heads) if decoder else None
        if decoder:
            self.cross_norm = (w[prefix + "encoder_attn_layer_norm.weight"], w[prefix + "encoder_attn_layer_norm.bias"])
        self.fc1 = (w[prefix + "fc1.weight"], w[prefix + "fc1.bias"])
        self.fc2 = (w[prefix + "fc2.weight"], w[prefix + "fc2.bias"])
        self.final_norm = (w[prefix + "final_layer_norm.weight"], w[prefix + "final_layer_norm.bias"])


class Marian:
    def __init__(self, folder):
        self.config = json.load(open(folder + "/config.json"))
        c = self.config
        if c.get("activation_function", "gelu") != "swish":
            raise SystemExit("only swish Marian models are implemented here")
        w = read_safetensors(folder + "/model.safetensors")
        shared = next(w[n] for n in ("model.shared.weight", "model.encoder.embed_tokens.weight", "lm_head.weight") if n in w)
        # share_encoder_decoder_embeddings and tie_word_embeddings (both default true): one table.
        self.embed = shared
        self.lm_head = shared if c.get("tie_word_embeddings", True) else w["lm_head.weight"]
        self.final_logits_bias = w.get("final_logits_bias", torch.zeros(1, shared.shape[0]))
        self.d = c["d_model"]
        self.scale = math.sqrt(self.d) if c.get("scale_embedding", False) else 1.0
        rows = c["max_position_embeddings"]
        table = sinusoidal_positions(rows, self.d)
        self.enc_positions = w.get("model.encoder.embed_positions.weight", table)
        self.dec_positions = w.get("model.decoder.embed_positions.weight", table)
        self.encoder = [Layer(w, f"model.encoder.layers.{i}.", c["encoder_attention_heads"], False) for i in range(c["encoder_layers"])]
        self.decoder = [Layer(w, f"model.decoder.layers.{i}.", c["decoder_attention_heads"], True) for i in range(c["decoder_layers"])]
        self.pad = c["pad_token_id"]
        self.eos = c["eos_token_id"]
        self.start = c.get("decoder_start_token_id", self.pad)
        self.forced_eos = c.get("forced_eos_token_id")
        self.bad_words = [ids for ids in (c.get("bad_words_ids") or []) if ids != [self.eos]]
        self.vocab = self.lm_head.shape[0]

    @staticmethod
    def expand_mask(mask, length):
        """[B, S] 1/0 -> [B, 1, length, S] additive: 0 where kept, the dtype's minimum where masked."""
        inverted = 1.0 - mask[:, None, None, :].expand(mask.shape[0], 1, length, mask.shape[1]).to(torch.float32)
        return inverted.masked_fill(inverted.bool(), torch.finfo(torch.float32).min)

    def ffn(self, layer, h):
        residual = h
        h = F.linear(F.silu(F.linear(h, *layer.fc1)), *layer.fc2)
        return F.layer_norm(residual + h, (self.d,), *layer.final_norm)

    def encode(self, ids, mask):
        h = F.embedding(ids, self.embed) * self.scale + F.embedding(torch.arange(ids.shape[1]), self.enc_positions)
        extended = self.expand_mask(mask, ids.shape[1])
        for layer in self.encoder:
            residual = h
            h, _ = layer.self_attn(h, mask=extended)
            h = F.layer_norm(residual + h, (self.d,), *layer.self_norm)
            h = self.ffn(layer, h)
        return h

    def decode_step(self, last_ids, past, encoded, enc_mask):
        """last_ids [R, 1]; past: per layer (self k, self v, cross k, cross v) or None. Logits [R, V]."""
        past_len = 0 if past is None else past[0][0].shape[2]
        positions = torch.arange(past_len, past_len + last_ids.shape[1])
        h = F.embedding(last_ids, self.embed) * self.scale + F.embedding(positions, self.dec_positions)
        cross_mask = self.expand_mask(enc_mask, last_ids.shape[1])
        present = []
        for i, layer in enumerate(self.decoder):
            cache = past[i] if past is not None else None
            residual = h
            h, self_kv = layer.self_attn(h, cache=cache[:2] if cache else None)
            h = F.layer_norm(residual + h, (self.d,), *layer.self_norm)
            residual = h
            h, cross_kv = layer.cross_attn(h, keys_from=encoded, cache=cache[2:] if cache else None, mask=cross_mask)
            h = F.layer_norm(residual + h, (self.d,), *layer.cross_norm)
            h = self.ffn(layer, h)
            present.append(self_kv + cross_kv)
        logits = F.linear(h, self.lm_head) + self.final_logits_bias
        return logits[:, -1, :], present

    def process(self, ids, scores, cur_len, min_length, max_length):
        """The logits processors Hugging Face builds from these settings, in its order."""
        for words in self.bad_words:
            prefix, banned = words[:-1], words[-1]
            if not prefix:
                scores[:, banned] = -float("inf")
            else:
                for row in range(ids.shape[0]):
                    if ids.shape[1] >= len(prefix) and ids[row, ids.shape[1] - len(prefix) :].tolist() == prefix:
                        scores[row, banned] = -float("inf")
        if cur_len < min_length:
            scores[:, self.eos] = -float("inf")
        if self.forced_eos is not None and cur_len == max_length - 1:
            scores[:, :] = -float("inf")
            scores[:, self.forced_eos] = 0
        return scores

    @torch.no_grad()
    def generate(self, sources, beams, max_length, min_length, length_penalty=1.0, early_stopping=False):
        width = max(len(s) for s in sources)
        ids = torch.tensor([s + [self.pad] * (width - len(s)) for s in sources])
        mask = ids.ne(self.pad).long()
        encoded = self.encode(ids, mask)
        if beams == 1:
            return self.greedy(encoded, mask, max_length, min_length)
        return self.beam(encoded, mask, beams, max_length, min_length, length_penalty, early_stopping)

    def greedy(self, encoded, mask, max_length, min_length):
        batch = encoded.shape[0]
        ids = torch.full((batch, 1), self.start, dtype=torch.long)
        unfinished = torch.ones(batch, dtype=torch.long)
        past, cur_len = None, 1
        while True:
            logits, past = self.decode_step(ids[:, -1:], past, encoded, mask)
            processed = self.process(ids, logits, cur_len, min_length, max_length)
            nxt = torch.argmax(processed, dim=-1)
            nxt = nxt * unfinished + self.pad * (1 - unfinished)
            ids = torch.cat([ids, nxt[:, None]], dim=-1)
            cur_len += 1
            unfinished = unfinished.mul((nxt != self.eos).long())
            if unfinished.max() == 0 or cur_len >= max_length:
                break
        out = []
        for row in ids.tolist():
            end = row.index(self.eos) + 1 if self.eos in row[1:] else len(row)
            out.append((row[:end], None))
        return out

    def beam(self, encoded, mask, beams, max_length, min_length, length_penalty, early_stopping):
        batch = encoded.shape[0]
        expand = torch.arange(batch).view(-1, 1).repeat(1, beams).view(-1)
        encoded, mask = encoded.index_select(0, expand), mask.index_select(0, expand)
        ids = torch.full((batch * beams, 1), self.start, dtype=torch.long)
        beam_scores = torch.zeros((batch, beams))
        beam_scores[:, 1:] = -1e9
        beam_scores = beam_scores.view(-1)
        finished = [BeamHypotheses(beams, length_penalty, early_stopping) for _ in range(batch)]
        done = [False] * batch
        past, cur_len = None, 1
        while True:
            logits, past = self.decode_step(ids[:, -1:], past, encoded, mask)
            logits[:, self.pad] = -float("inf")  # MarianMTModel.adjust_logits_during_generation
            scores = self.process(ids, F.log_softmax(logits, dim=-1), cur_len, min_length, max_length)
            scores = scores + beam_scores[:, None].expand_as(scores)
            scores = scores.view(batch, beams * self.vocab)
            scores, tokens = torch.topk(scores, 2 * beams, dim=1, largest=True, sorted=True)
            origins = torch.div(tokens, self.vocab, rounding_mode="floor")
            tokens = tokens % self.vocab
            # BeamSearchScorer.process
            next_scores = torch.zeros((batch, beams))
            next_tokens = torch.zeros((batch, beams), dtype=torch.long)
            next_rows = torch.zeros((batch, beams), dtype=torch.long)
            score_list, token_list, origin_list = scores.tolist(), tokens.tolist(), origins.tolist()
            for b in range(batch):
                if done[b]:
                    next_tokens[b, :] = self.pad
                    continue
                filled = 0
                for rank, (token, score, origin) in enumerate(zip(token_list[b], score_list[b], origin_list[b])):
                    row = b * beams + origin
                    if token == self.eos:
                        if rank < beams:
                            finished[b].add(ids[row].clone(), score)
                    else:
                        next_scores[b, filled], next_tokens[b, filled], next_rows[b, filled] = score, token, row
                        filled += 1
                    if filled == beams:
                        break
                done[b] = done[b] or finished[b].is_done(max(score_list[b]), cur_len)
            beam_scores, rows = next_scores.view(-1), next_rows.view(-1)
            ids = torch.cat([ids[rows, :], next_tokens.view(-1, 1)], dim=-1)
            # MarianMTModel._reorder_cache: the self-attention caches follow their beams.
            past = [(layer[0].index_select(0, rows), layer[1].index_select(0, rows)) + layer[2:] for layer in past]
            cur_len += 1
            if all(done) or cur_len >= max_length:
                break
        # BeamSearchScorer.finalize
        out = []
        for b in range(batch):
            if not done[b]:
                for r in range(beams):
                    finished[b].add(ids[b * beams + r], beam_scores[b * beams + r].item())
            score, hyp = sorted(finished[b].beams, key=lambda x: x[0])[-1]
            hyp = hyp.tolist()
            if len(hyp) < max_length:
                hyp.append(self.eos)
            out.append((hyp, score))
        return out


class BeamHypotheses:
    """The num_beams best finished hypotheses of one source, scored sum_logprobs / len**length_penalty."""

    def __init__(self, beams, length_penalty, early_stopping):
        self.beams_wanted, self.length_penalty, self.early_stopping = beams, length_penalty, early_stopping
        self.beams, self.worst = [], 1e9

    def add(self, hyp, sum_logprobs):
        score = sum_logprobs / (hyp.shape[-1] ** self.length_penalty)
        if len(self.beams) < self.beams_wanted or score > self.worst:
            self.beams.append((score, hyp))
            if len(self.beams) > self.beams_wanted:
                ranked = sorted((s, i) for i, (s, _) in enumerate(self.beams))
                del self.beams[ranked[0][1]]
                self.worst = ranked[1][0]
            else:
                self.worst = min(score, self.worst)

    def is_done(self, best_sum_logprobs, cur_len):
        if len(self.beams) < self.beams_wanted:
            return False
        if self.early_stopping:
            return True
        return self.worst >= best_sum_logprobs / cur_len**self.length_penalty


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="Marian folder: config.json, model.safetensors")
    parser.add_argument("--sources", required=True, help="JSON file: a list of source id lists")
    parser.add_argument("--beams", type=int, default=1)
    parser.add_argument("--max-length", type=int, default=64)
    parser.add_argument("--min-length", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="timed runs after one warm-up")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model = Marian(args.model)
    sources = json.load(open(args.sources))
    hyps = model.generate(sources, args.beams, args.max_length, args.min_length)  # warm-up
    runs = []
    for _ in range(args.repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        hyps = model.generate(sources, args.beams, args.max_length, args.min_length)
        runs.append({"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu})
    print(json.dumps({"ids": [h[0] for h in hyps], "scores": [h[1] for h in hyps], "runs": runs,
                      "torch": torch.__version__, "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
