#!/usr/bin/env python3
"""Exports bench/torch_encoder.py's BERT / XLM-R forward + mean pooling to ONNX, in f32 or with ONNX
Runtime's dynamic int8 quantization written into the graph, for timing invar's encoder against ONNX
Runtime (bench/ort_encoder.js, bench/embed_vs_onnxruntime.sh) where neither transformers nor
onnxruntime's Python tools are installed: Debian's python3-torch 1.13 has torch.onnx.

The graph is the one torch.onnx.export traces from the PyTorch forward (opset 17: LayerNormalization
as one node; GELU as its erf formula, which ONNX Runtime fuses back), inputs input_ids and
attention_mask [batch, tokens] (int64), output sentence_embedding [batch, hidden].

--int8 rewrites every linear layer of the encoder as onnxruntime.quantization.quantize_dynamic writes
a MatMul with a constant weight by default (QInt8 weights, per tensor, symmetric; activations uint8,
quantized at run time): DynamicQuantizeLinear of the input, MatMulInteger with the int8 weight,
Cast to float, Mul by input scale × weight scale, then the bias Add: the pattern ONNX Runtime's
graph optimizer fuses into DynamicQuantizeMatMul / MatMulIntegerToFloat and runs on MLAS's int8
kernels. The embedding tables stay f32 (invar's --weights int8 quantizes linear layers only).
Written from ONNX's operator definitions and onnxruntime's documented quantize_dynamic defaults; no
code copied. Bench only: CI never runs it.

  python3 bench/onnx_export.py --model /tmp/xlmr-base --out /tmp/xlmr-base.onnx
  python3 bench/onnx_export.py --model /tmp/xlmr-base --out /tmp/xlmr-base.int8.onnx --int8
"""
import argparse

import torch
import torch.nn.functional as F

from torch_encoder import Encoder  # bench/, the folder Python puts first on the path


class DynamicQuantizedLinear(torch.autograd.Function):
    """y = x Wᵀ + b, exported as ONNX Runtime's dynamic-quantization pattern (see the module text).
    The PyTorch side (used while tracing) computes with the dequantized weight."""

    @staticmethod
    def forward(ctx, x, weight_q, scale, bias):
        return F.linear(x, (weight_q.to(torch.float32) * scale).t(), bias)

    @staticmethod
    def symbolic(g, x, weight_q, scale, bias):
        x_q, x_scale, x_zero = g.op("DynamicQuantizeLinear", x, outputs=3)
        product = g.op("MatMulInteger", x_q, weight_q, x_zero)
        product = g.op("Cast", product, to_i=1)  # TensorProto.FLOAT
        return g.op("Add", g.op("Mul", product, g.op("Mul", x_scale, scale)), bias)


def quantize(weight):
    """[out, in] f32 -> ([in, out] int8, scale): symmetric per tensor, scale = max |w| / 127."""
    scale = weight.abs().max() / 127.0
    q = torch.clamp(torch.round(weight / scale), -127, 127).to(torch.int8)
    return q.t().contiguous(), scale.reshape(())


class Pooled(torch.nn.Module):
    def __init__(self, encoder, int8):
        super().__init__()
        self.encoder = encoder
        if int8:
            quantized = {}
            for name, tensor in encoder.w.items():
                if name.startswith("encoder.layer.") and name.endswith(".weight") and tensor.dim() == 2:
                    quantized[name[: -len(".weight")]] = quantize(tensor)
            original = encoder.linear

            def linear(h, prefix):
                if prefix not in quantized:
                    return original(h, prefix)
                weight_q, scale = quantized[prefix]
                return DynamicQuantizedLinear.apply(h, weight_q, scale, encoder.w[prefix + ".bias"])

            encoder.linear = linear

    def forward(self, input_ids, attention_mask):
        return self.encoder.embed(input_ids, attention_mask)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="BERT / XLM-R folder: config.json, model.safetensors")
    parser.add_argument("--out", required=True, help="the .onnx file to write")
    parser.add_argument("--int8", action="store_true", help="ONNX Runtime's dynamic int8 quantization")
    args = parser.parse_args()
    model = Pooled(Encoder(args.model), args.int8)
    ids = torch.full((2, 8), 5, dtype=torch.int64)
    with torch.no_grad():
        torch.onnx.export(model, (ids, torch.ones_like(ids)), args.out, opset_version=17,
                          input_names=["input_ids", "attention_mask"], output_names=["sentence_embedding"],
                          dynamic_axes={"input_ids": {0: "batch", 1: "tokens"},
                                        "attention_mask": {0: "batch", 1: "tokens"},
                                        "sentence_embedding": {0: "batch"}})


if __name__ == "__main__":
    main()
