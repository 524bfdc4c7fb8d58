"""Read a llama2.c checkpoint (Karpathy's run.c format) into model.py's config and weights.

Layout (all little-endian): 7 int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len;
a negative vocab_size means the classifier is stored separately), then float32 arrays:
token_embedding [vocab][dim], rms_att [L][dim], wq [L][dim][dim], wk [L][kv_dim][dim], wv [L][kv_dim][dim],
wo [L][dim][dim], rms_ffn [L][dim], w1 (gate) [L][hidden][dim], w2 (down) [L][dim][hidden],
w3 (up) [L][hidden][dim], rms_final [dim], the RoPE tables (seq_len * head_size, unused here: run.c
computes its angles, Meta's adjacent pairs with theta 10000) and, when not shared, wcls [vocab][dim].
"""

import numpy as np


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    dim, hidden, n_layers, n_heads, n_kv_heads, vocab, seq_len = np.frombuffer(data[:28], dtype="<i4")
    shared = vocab > 0
    vocab = abs(int(vocab))
    floats = np.frombuffer(data[28:], dtype="<f4").astype(np.float64)
    head_size = dim // n_heads
    kv_dim = n_kv_heads * head_size
    at = 0

    def take(*shape):
        nonlocal at
        count = int(np.prod(shape))
        out = floats[at:at + count].reshape(shape)
        at += count
        return out

    w = {"token_embd.weight": take(vocab, dim)}
    per_layer = [("attn_norm.weight", (dim,)), ("attn_q.weight", (dim, dim)), ("attn_k.weight", (kv_dim, dim)),
                 ("attn_v.weight", (kv_dim, dim)), ("attn_output.weight", (dim, dim)),
                 ("ffn_norm.weight", (dim,)), ("ffn_gate.weight", (hidden, dim)),
                 ("ffn_down.weight", (dim, hidden)), ("ffn_up.weight", (hidden, dim))]
    for name, shape in per_layer:
        stacked = take(int(n_layers), *shape)
        for layer in range(n_layers):
            w[f"blk.{layer}.{name}"] = stacked[layer]
    w["output_norm.weight"] = take(dim)
    take(int(seq_len), head_size)  # the stored RoPE tables (cos and sin halves)
    if not shared:
        w["output.weight"] = take(vocab, dim)
    cfg = {
        "vocab_size": vocab, "dim": int(dim), "n_layers": int(n_layers), "n_heads": int(n_heads),
        "n_kv_heads": int(n_kv_heads), "hidden_dim": int(hidden), "context_length": int(seq_len),
        "norm": "rmsnorm", "norm_eps": float(np.float32(1e-5)), "norm_placement": "pre",
        "position": "rope", "rope_theta": 10000.0, "rotary_dim": int(head_size), "rope_pairing": "adjacent",
        "activation": "silu", "ffn_gated": True, "qkv_bias": False, "out_bias": False, "ffn_bias": False,
        "tied_embeddings": bool(shared), "head_dim": None, "qk_norm": False, "rope_scaling": None,
        "sliding_window": 0, "sliding_layers": None, "rope_theta_sliding": None,
        "scaled_embeddings": False, "final_logit_softcap": 0,
    }
    return cfg, w
