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
    norm_has_bias = cfg["norm"] == "layernorm" and cfg.get("norm_bias", True)
    shapes = OrderedDict()
    shapes["token_embd.weight"] = (V, D)
    if cfg.get("embedding_norm"):
        shapes["token_embd_norm.weight"] = (D,)
        if norm_has_bias:
            shapes["token_embd_norm.bias"] = (D,)
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
        if cfg.get("qk_norm"):
            shapes[p + "attn_q_norm.weight"] = (head_dim(cfg),)
            shapes[p + "attn_k_norm.weight"] = (head_dim(cfg),)
        shapes[p + "attn_output.weight"] = (D, q_dim)
        if cfg["out_bias"]:
            shapes[p + "attn_output.bias"] = (D,)
        if cfg["norm_placement"] == "sandwich":
            shapes[p + "post_attention_norm.weight"] = (D,)
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
        if cfg["norm_placement"] == "sandwich":
            shapes[p + "post_ffw_norm.weight"] = (D,)
    if cfg["norm_placement"] in ("pre", "sandwich"):
        shapes["output_norm.weight"] = (D,)
        if norm_has_bias:
            shapes["output_norm.bias"] = (D,)
    if not cfg["tied_embeddings"]:
        shapes["output.weight"] = (V, D)
    return shapes


def encoder_weight_shapes(cfg):
    """Ordered {tensor name: NumPy shape} of a BERT encoder (encoder.py), MLM head included if it has one; of a
    nomic-bert: no position table, ffn_gate beside ffn_up, biases only on the LayerNorms."""
    D, F = cfg["dim"], cfg["hidden_dim"]
    shapes = OrderedDict([("token_embd.weight", (cfg["vocab_size"], D))])
    if cfg.get("position", "learned") == "learned":
        shapes["position_embd.weight"] = (cfg["context_length"], D)
    shapes.update([("token_types.weight", (cfg["n_token_types"], D)),
                   ("token_embd_norm.weight", (D,)), ("token_embd_norm.bias", (D,))])
    gate = (("ffn_gate", F, D),) if cfg.get("ffn_gated") else ()
    for i in range(cfg["n_layers"]):
        p = f"blk.{i}."
        for name, rows, cols in (("attn_q", D, D), ("attn_k", D, D), ("attn_v", D, D), ("attn_output", D, D),
                                 ("attn_output_norm", D, None), *gate, ("ffn_up", F, D), ("ffn_down", D, F),
                                 ("layer_output_norm", D, None)):
            shapes[p + name + ".weight"] = (rows, cols) if cols else (rows,)
            if cfg.get("biases", True) or not cols:
                shapes[p + name + ".bias"] = (rows,)
    if cfg.get("mlm_head"):
        shapes.update([("mlm_dense.weight", (D, D)), ("mlm_dense.bias", (D,)), ("mlm_norm.weight", (D,)),
                       ("mlm_norm.bias", (D,)), ("mlm_output.bias", (cfg["vocab_size"],))])
    return shapes


def random_weights(cfg, seed, matrix_std=0.3, embedding_std=None, output_std=None):
    """Seeded random weights: matrices ~ N(0, matrix_std), norm weights ~ 1 +
    N(0, 0.1) (so they are near one but a swapped weight/bias still shows),
    biases ~ N(0, 0.1). The embedding tables and classifier may use their own
    scale (default: matrix_std)."""
    rng = np.random.default_rng(seed)
    weights = OrderedDict()
    encoder = cfg.get("architecture") in ("bert", "nomic-bert")
    shapes = encoder_weight_shapes(cfg) if encoder else weight_shapes(cfg)
    for name, shape in shapes.items():
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


# Which block type each matrix of the K-quant fixture gets: roughly llama.cpp's Q4_K_M mix (Q6_K for
# attn_v, ffn_down and the classifier), with the token embedding in BF16 for BF16 coverage.
K_QUANT_PLAN = {"attn_q": "Q4_K", "attn_k": "Q4_K", "attn_output": "Q4_K", "ffn_gate": "Q4_K",
                "ffn_up": "Q4_K", "attn_v": "Q6_K", "ffn_down": "Q6_K", "output": "Q6_K", "token_embd": "BF16"}
# The fixtures of the other block types: each type in two or three matrices, one of them the classifier
# or the token embedding (a row lookup rather than a product).
NIBBLE_QUANT_PLAN = {"attn_q": "Q4_1", "attn_k": "Q5_0", "attn_v": "Q5_1", "attn_output": "Q5_0",
                     "ffn_gate": "Q5_1", "ffn_up": "Q4_1", "ffn_down": "Q5_0", "output": "Q5_1",
                     "token_embd": "Q4_1"}
IQ4_PLAN = {"attn_q": "IQ4_NL", "attn_k": "IQ4_XS", "attn_v": "IQ4_NL", "attn_output": "IQ4_XS",
            "ffn_gate": "IQ4_XS", "ffn_up": "IQ4_NL", "ffn_down": "IQ4_XS", "output": "IQ4_NL",
            "token_embd": "IQ4_XS"}
LOW_K_QUANT_PLAN = {"attn_q": "Q2_K", "attn_k": "Q3_K", "attn_v": "Q5_K", "attn_output": "Q3_K",
                    "ffn_gate": "Q5_K", "ffn_up": "Q2_K", "ffn_down": "Q3_K", "output": "Q5_K",
                    "token_embd": "Q2_K"}


def k_quant_weights(cfg, seed, matrix_std, output_std, embedding_std=None, plan=None):
    """random_weights, with every matrix replaced by a gguf.EncodedMatrix: random
    blocks of the type `plan` (default K_QUANT_PLAN) gives its kind of matrix
    (ggml_quants.random_q4_k, random_q6_k, ...) or BF16. Every row length must be a
    multiple of the block (256 for the K-quants)."""
    import gguf
    import ggml_quants

    plan = plan or K_QUANT_PLAN
    weights = random_weights(cfg, seed, matrix_std, embedding_std=embedding_std, output_std=output_std)
    rng = np.random.default_rng(seed + 1)
    random_blocks = {kind: getattr(ggml_quants, "random_" + kind.lower())
                     for kind in ("Q4_K", "Q6_K", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q5_K",
                                  "IQ4_NL", "IQ4_XS")}
    for name, w in weights.items():
        if np.ndim(w) != 2:
            continue
        kind = plan[name.split(".")[-2]]
        ggml_type = gguf.TYPE_BY_NAME[kind]
        rows, cols = w.shape
        if kind == "BF16":
            data = gguf.encode_tensor(w, ggml_type)
        else:
            std = {"output.weight": output_std, "token_embd.weight": embedding_std}.get(name) or matrix_std
            data = random_blocks[kind](rng, rows * cols, std)
        weights[name] = gguf.EncodedMatrix.from_bytes(ggml_type, data, rows, cols)
    return weights
