#!/usr/bin/env python3
"""Writes a random-weight GGUF with the real shape of a hub catalog model (web/hub-models.json), for
tests/peers/hub-shapes.mjs: the page's load time and speed per catalog shape. Not a test fixture.

    /usr/bin/python3 tests/peers/make-hub-shape.py SHAPE OUT.gguf

The matrices are random Q8_0 blocks (the reference has no K-quantizer, so the Q4_K_M entries are measured in
Q8_0: larger and a little slower to read than the real files). The vocabulary is the reference's 64-token
byte-level BPE padded with plain tokens to the real size, so the embedding and classifier have their real
shapes. Each matrix is encoded as soon as it is drawn, so memory stays near twice the file's size.
"""

import os
import sys
from collections import OrderedDict

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))

import configs  # noqa: E402
import gguf  # noqa: E402
import gguf_export  # noqa: E402
import tiny_vocab  # noqa: E402
from random_model import weight_shapes  # noqa: E402

LLAMA3_1B_SCALING = {"type": "llama3", "factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_context": 8192}

# Real shapes (the models' config.json), at a 2,048-token context: shape -> (base config, writer, overrides).
SHAPES = {
    "smollm2-135m": (configs.HF_LLAMA, "write_llama", dict(
        dim=576, n_layers=30, n_heads=9, n_kv_heads=3, hidden_dim=1536, vocab_size=49152, rotary_dim=64,
        rope_theta=100000.0, tied_embeddings=True)),
    "smollm2-360m": (configs.HF_LLAMA, "write_llama", dict(
        dim=960, n_layers=32, n_heads=15, n_kv_heads=5, hidden_dim=2560, vocab_size=49152, rotary_dim=64,
        rope_theta=100000.0, tied_embeddings=True)),
    "qwen2.5-0.5b": (configs.HF_QWEN2, "write_qwen2", dict(
        dim=896, n_layers=24, n_heads=14, n_kv_heads=2, hidden_dim=4864, vocab_size=151936, rotary_dim=64,
        norm_eps=1e-6)),
    "qwen3-0.6b": (configs.HF_QWEN3, "write_qwen3", dict(
        dim=1024, n_layers=28, n_heads=16, n_kv_heads=8, head_dim=128, rotary_dim=128, hidden_dim=3072,
        vocab_size=151936, norm_eps=1e-6)),
    "llama-3.2-1b": (configs.HF_LLAMA3, "write_llama", dict(
        dim=2048, n_layers=16, n_heads=32, n_kv_heads=8, hidden_dim=8192, vocab_size=128256, rotary_dim=64,
        rope_theta=500000.0, tied_embeddings=True, rope_scaling=LLAMA3_1B_SCALING)),
    # Gemma 3 270M: 5 sliding layers (window 512, base 1e4) to each global one (base 1e6, unscaled at this size).
    "gemma3-270m": (configs.GEMMA3, "write_gemma3", dict(
        dim=640, n_layers=18, n_heads=4, n_kv_heads=1, head_dim=256, rotary_dim=256, hidden_dim=2048,
        vocab_size=262144, norm_eps=1e-6, rope_scaling=None, sliding_window=512,
        sliding_layers=[layer % 6 < 5 for layer in range(18)])),
    "gpt2": (configs.HF_GPT2, "write_gpt2", dict(
        dim=768, n_layers=12, n_heads=12, n_kv_heads=12, hidden_dim=3072, vocab_size=50257)),
}


def padded_vocab(size, pre):
    """The 64-token test vocabulary with plain tokens added up to `size` (their ids follow <|endoftext|>)."""
    kvs = OrderedDict(tiny_vocab.bpe_metadata(pre))
    tokens = list(kvs["tokenizer.ggml.tokens"].value.items)
    types = list(kvs["tokenizer.ggml.token_type"].value.items)
    extra = size - len(tokens)
    kvs["tokenizer.ggml.tokens"] = gguf.array(gguf.STRING, tokens + [f"<x{i}>" for i in range(extra)])
    kvs["tokenizer.ggml.token_type"] = gguf.array(gguf.INT32, types + [1] * extra)
    return list(kvs.items())


def main(argv):
    if len(argv) != 2 or argv[0] not in SHAPES:
        print(__doc__ + "\nshapes: " + ", ".join(SHAPES), file=sys.stderr)
        return 2
    shape, out = argv
    base, writer_name, overrides = SHAPES[shape]
    cfg = dict(base)
    cfg.update(overrides, context_length=2048)
    cfg = configs.as_float32_file(cfg)
    rng = np.random.default_rng(0)
    weights = OrderedDict()
    for name, dims in weight_shapes(cfg).items():
        if len(dims) == 2 and name != "position_embd.weight":
            w = rng.standard_normal(dims, dtype=np.float32) * np.float32(dims[1] ** -0.5)
            weights[name] = gguf_export.encoded(w, gguf.GGML_Q8_0)
        elif name.endswith(".bias"):
            weights[name] = rng.normal(0.0, 0.1, dims).astype(np.float32)
        elif name == "position_embd.weight":
            weights[name] = (0.1 * rng.standard_normal(dims, dtype=np.float32))
        else:
            weights[name] = (1.0 + 0.1 * rng.standard_normal(dims, dtype=np.float32))
    # The writers return the values an engine reads back, decoded: not needed here, and larger than the file.
    gguf_export.as_stored = lambda array, ggml_type: array.rows if isinstance(array, gguf.EncodedMatrix) else array
    pre = {"write_llama": "llama-bpe", "write_qwen2": "qwen2", "write_qwen3": "qwen2", "write_gpt2": "gpt-2",
           "write_gemma3": "gpt-2"}[writer_name]
    getattr(gguf_export, writer_name)(out, cfg, weights, shape, padded_vocab(cfg["vocab_size"], pre), tensor_type="Q8_0")
    print(f"wrote {out}: {os.path.getsize(out) / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
