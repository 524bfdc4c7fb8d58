#!/usr/bin/env python3
"""Writes a random-weight llama2.c checkpoint shaped like stories15M (dim 288, 6 layers, 6 heads, hidden 768,
vocab 32000, context 256) for benchmarks, where a 260K-parameter model would measure call overhead more than
arithmetic. Pair it with models/tokenizer.bin (32000 tokens) and convert it to GGUF with `glassbox convert`.

    /usr/bin/python3 tests/peers/make-bench-model.py OUT.bin [--dim 288 --layers 6 --heads 6 --hidden 768]
"""
import argparse

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("out")
    p.add_argument("--dim", type=int, default=288)
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--layers", type=int, default=6)
    p.add_argument("--heads", type=int, default=6)
    p.add_argument("--kv-heads", type=int, default=6)
    p.add_argument("--vocab", type=int, default=32000)
    p.add_argument("--seq-len", type=int, default=256)
    a = p.parse_args()

    head = a.dim // a.heads
    kv_dim = head * a.kv_heads
    rng = np.random.default_rng(0)
    # llama2.c's order: embedding, rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3, rms_final, two RoPE tables.
    L, d, h, v = a.layers, a.dim, a.hidden, a.vocab
    tensors = [("matrix", (v, d)), ("norm", (L, d)), ("matrix", (L, d, d)), ("matrix", (L, kv_dim, d)),
               ("matrix", (L, kv_dim, d)), ("matrix", (L, d, d)), ("norm", (L, d)), ("matrix", (L, h, d)),
               ("matrix", (L, d, h)), ("matrix", (L, h, d)), ("norm", (d,)),
               ("table", (a.seq_len, head // 2)), ("table", (a.seq_len, head // 2))]
    with open(a.out, "wb") as f:
        np.array([d, h, L, a.heads, a.kv_heads, v, a.seq_len], dtype="<i4").tofile(f)
        for kind, shape in tensors:
            w = rng.normal(0.0, 1.0, size=shape)
            # Norm weights near 1 and small matrices keep the activations in a sane range.
            w = 1.0 + 0.1 * w if kind == "norm" else 0.05 * w
            w.astype("<f4").tofile(f)

if __name__ == "__main__":
    main()
