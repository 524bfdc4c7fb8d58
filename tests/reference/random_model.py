"""Which tensors a configuration needs, and seeded random values for them.

All weights are rounded to float32 right away: every file we write holds at
least float32 precision, so the float32-rounded values are "the model", and the
reference logits are computed from exactly those numbers.
"""

from collections import OrderedDict

import numpy as np

from floats import round_to_f32
from model import head_dim


def weight_shapes(cfg):
    """Ordered {tensor name: NumPy shape} of every tensor the config uses."""
    D, V, F = cfg["dim"], cfg["vocab_size"], cfg["hidden_dim"]
    q_dim = cfg["n_heads"] * head_dim(cfg)
    kv_dim = cfg["n_kv_heads"] * head_dim(cfg)
    norm_has_bias = cfg["norm"] == "layernorm"
    shapes = OrderedDict()
    shapes["token_embd.weight"] = (V, D)
    if cfg["position"] == "learned":
        shapes["position_embd.weight"] = (cfg["context_length"], D)
    for i in range(cfg["n_layers"]):
        p = f"blk.{i}."
        shapes[p + "attn_norm.weight"] = (D,)
        if norm_has_bias:
            shapes[p + "attn_norm.bias"] = (D,)
        for name, rows in (("attn_q", q_dim), ("attn_k", kv_dim), ("attn_v", kv_dim)):
            shapes[p + name + ".weight"] = (rows, D)
            if cfg["qkv_bias"]:
                shapes[p + name + ".bias"] = (rows,)
        shapes[p + "attn_output.weight"] = (D, q_dim)
        if cfg["out_bias"]:
            shapes[p + "attn_output.bias"] = (D,)
        shapes[p + "ffn_norm.weight"] = (D,)
        if norm_has_bias:
            shapes[p + "ffn_norm.bias"] = (D,)
        names = ("ffn_gate", "ffn_up") if cfg["ffn_gated"] else ("ffn_up",)
        for name in names:
            shapes[p + name + ".weight"] = (F, D)
            if cfg["ffn_bias"]:
                shapes[p + name + ".bias"] = (F,)
        shapes[p + "ffn_down.weight"] = (D, F)
        if cfg["ffn_bias"]:
            shapes[p + "ffn_down.bias"] = (D,)
    if cfg["norm_placement"] == "pre":
        shapes["output_norm.weight"] = (D,)
        if norm_has_bias:
            shapes["output_norm.bias"] = (D,)
    if not cfg["tied_embeddings"]:
        shapes["output.weight"] = (V, D)
    return shapes


def random_weights(cfg, seed, matrix_std=0.3, embedding_std=None, output_std=None):
    """Seeded random weights: matrices ~ N(0, matrix_std), norm weights ~ 1 +
    N(0, 0.1) (so they are near one but a swapped weight/bias still shows),
    biases ~ N(0, 0.1). The embedding tables and classifier may use their own
    scale (default: matrix_std)."""
    rng = np.random.default_rng(seed)
    weights = OrderedDict()
    for name, shape in weight_shapes(cfg).items():
        if name.endswith(".bias"):
            w = rng.normal(0.0, 0.1, shape)
        elif "norm" in name:
            w = 1.0 + rng.normal(0.0, 0.1, shape)
        elif name in ("token_embd.weight", "position_embd.weight"):
            w = rng.normal(0.0, embedding_std or matrix_std, shape)
        elif name == "output.weight":
            w = rng.normal(0.0, output_std or matrix_std, shape)
        else:
            w = rng.normal(0.0, matrix_std, shape)
        weights[name] = round_to_f32(w)
    return weights
