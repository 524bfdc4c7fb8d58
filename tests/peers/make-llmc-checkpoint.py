#!/usr/bin/env python3
"""A random-weight GPT-2 checkpoint in llm.c's format (what train_gpt2.c's gpt2_build_from_checkpoint reads),
for the training benchmark (tests/peers/bench-train.mjs): no trained weights are needed to time a step.

  make-llmc-checkpoint.py OUT.bin --layers 6 --dim 384 --heads 6 --context 256 --vocab 512 [--seed 1]

The format: a header of 256 int32 (magic 20240326, version 3, max_seq_len, vocab_size, num_layers, num_heads,
channels, padded_vocab_size, then zeros), then every parameter as float32 in llm.c's order: wte (Vp, C),
wpe (maxT, C), ln1w, ln1b (L, C), qkvw (L, 3C, C), qkvb (L, 3C), attprojw (L, C, C), attprojb (L, C), ln2w,
ln2b (L, C), fcw (L, 4C, C), fcb (L, 4C), fcprojw (L, C, 4C), fcprojb (L, C), lnfw, lnfb (C).
The padded vocabulary is the vocabulary rounded up to a multiple of 128, as llm.c pads it.
Initialised as GPT-2 is: matrices and embeddings N(0, 0.02), norms' weights 1, biases 0.
"""
import argparse

import numpy as np

MAGIC, VERSION = 20240326, 3


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--layers", type=int, required=True)
    p.add_argument("--dim", type=int, required=True)
    p.add_argument("--heads", type=int, required=True)
    p.add_argument("--context", type=int, required=True)
    p.add_argument("--vocab", type=int, required=True)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if a.dim % a.heads:
        p.error(f"--heads {a.heads} must divide --dim {a.dim}")
    L, C, T, V = a.layers, a.dim, a.context, a.vocab
    Vp = (V + 127) // 128 * 128
    rng = np.random.default_rng(a.seed)
    normal = lambda *shape: rng.normal(0.0, 0.02, shape).astype(np.float32)
    ones = lambda *shape: np.ones(shape, np.float32)
    zeros = lambda *shape: np.zeros(shape, np.float32)
    tensors = [
        normal(Vp, C), normal(T, C),                   # wte, wpe
        ones(L, C), zeros(L, C),                       # ln1w, ln1b
        normal(L, 3 * C, C), zeros(L, 3 * C),          # qkvw, qkvb
        normal(L, C, C), zeros(L, C),                  # attprojw, attprojb
        ones(L, C), zeros(L, C),                       # ln2w, ln2b
        normal(L, 4 * C, C), zeros(L, 4 * C),          # fcw, fcb
        normal(L, C, 4 * C), zeros(L, C),              # fcprojw, fcprojb
        ones(C), zeros(C),                             # lnfw, lnfb
    ]
    tensors[0][V:] = 0  # the padded rows: llm.c never reads them as tokens
    header = np.zeros(256, np.int32)
    header[:8] = [MAGIC, VERSION, T, V, L, a.heads, C, Vp]
    with open(a.out, "wb") as f:
        f.write(header.astype("<i4").tobytes())
        for t in tensors:
            f.write(t.astype("<f4").tobytes())


if __name__ == "__main__":
    main()
