"""The model configurations behind every fixture (see model.py for the keys)."""

import numpy as np


def tiny(**overrides):
    """A 64-token, 32-wide model; every fixture starts from this and changes knobs."""
    cfg = {
        "vocab_size": 64, "dim": 32, "n_layers": 2, "n_heads": 4, "n_kv_heads": 4,
        "hidden_dim": 48, "context_length": 32,
        "norm": "rmsnorm", "norm_eps": 1e-5, "norm_placement": "pre",
        "position": "rope", "rope_theta": 10000.0, "rotary_dim": 8, "rope_pairing": "adjacent",
        "activation": "silu", "ffn_gated": True,
        "qkv_bias": False, "out_bias": False, "ffn_bias": False,
        "tied_embeddings": True,
        "head_dim": None, "qk_norm": False, "rope_scaling": None,
        "sliding_window": 0, "sliding_layers": None, "rope_theta_sliding": None,
        "scaled_embeddings": False, "final_logit_softcap": 0,
    }
    cfg.update(overrides)
    if cfg["position"] != "rope":
        cfg.update(rope_theta=None, rotary_dim=None, rope_pairing=None, rope_scaling=None)
    return cfg


def as_float32_file(cfg):
    """A GGUF file stores eps and RoPE theta as float32; compute with those values."""
    out = dict(cfg)
    out["norm_eps"] = float(np.float32(cfg["norm_eps"]))
    if out["rope_theta"] is not None:
        out["rope_theta"] = float(np.float32(cfg["rope_theta"]))
    return out


# The glassbox-architecture variants: (file stem, config, what it covers).
VARIANTS = [
    ("llama-like", tiny(n_kv_heads=2, hidden_dim=64),
     "RMSNorm pre-norm, RoPE adjacent pairs, SwiGLU, GQA 4 heads / 2 kv heads, tied classifier"),
    ("rope-half-partial", tiny(n_layers=3, rope_pairing="half", rotary_dim=4, rope_theta=500.0,
                               qkv_bias=True, tied_embeddings=False),
     "RoPE half pairing on the first half of each head (rotary_dim = head_dim/2), "
     "theta 500, q/k/v biases, separate classifier"),
    ("gpt2-like", tiny(norm="layernorm", position="learned", activation="gelu", ffn_gated=False,
                       qkv_bias=True, out_bias=True, ffn_bias=True),
     "LayerNorm (with bias) pre-norm, learned positions, GELU (tanh) plain FFN, all biases, MHA, tied"),
    ("transformer-postln", tiny(norm="layernorm", norm_placement="post", position="sinusoidal",
                                activation="relu", ffn_gated=False,
                                qkv_bias=True, out_bias=True, ffn_bias=True),
     "original Transformer decoder: post-norm LayerNorm (no final norm), sinusoidal positions, "
     "ReLU plain FFN, MHA, biases, tied"),
    ("mqa-postln-geglu", tiny(n_layers=3, n_kv_heads=1, norm_placement="post", activation="gelu",
                              tied_embeddings=False),
     "MQA (1 kv head), RMSNorm post-norm, GeGLU (gelu-gated FFN), RoPE adjacent, separate classifier"),
    ("rmsnorm-sinusoidal-reglu", tiny(position="sinusoidal", activation="relu", ffn_bias=True,
                                      n_kv_heads=2, tied_embeddings=False),
     "RMSNorm pre-norm, sinusoidal positions, ReLU-gated FFN (ReGLU) with biases, GQA, separate "
     "classifier; written with general.alignment = 64"),
    ("layernorm-gqa", tiny(norm="layernorm", n_kv_heads=2, activation="gelu", ffn_gated=False, hidden_dim=64,
                           qkv_bias=True, ffn_bias=True, tied_embeddings=False),
     "LayerNorm (with bias) pre-norm with GQA 4 heads / 2 kv heads, RoPE adjacent, GELU plain FFN, q/k/v and "
     "FFN biases, separate classifier"),
    ("layernorm-mqa-postln", tiny(norm="layernorm", norm_placement="post", n_kv_heads=1, position="learned",
                                  activation="silu", n_layers=3, out_bias=True),
     "LayerNorm post-norm with MQA (1 kv head), learned positions, SwiGLU, attention-output bias, tied"),
    ("qk-norm-wide-heads", tiny(head_dim=12, rotary_dim=12, qk_norm=True, rope_pairing="half", n_kv_heads=2,
                                rope_scaling={"type": "linear", "factor": 4.0}),
     "q/k RMSNorm per head (Qwen3's), heads 12 wide (q is 48 values, wider than dim 32), GQA 4/2, half-pair "
     "RoPE with linear scaling by 4 (a rope_freqs.weight of 4s), tied"),
    ("sandwich-sliding-softcap", tiny(n_layers=3, norm_placement="sandwich", sliding_window=2,
                                      sliding_layers=[False, True, True], rope_theta_sliding=100.0,
                                      final_logit_softcap=1.5, scaled_embeddings=True, n_kv_heads=1,
                                      tied_embeddings=False),
     "Gemma's pieces on our own architecture: sandwich RMSNorm, scaled embeddings, sliding window of 2 keys "
     "on layers 1 and 2 (a bool-array pattern) with RoPE base 100, logits soft-capped at 1.5, MQA"),
    ("alibi-rmsnorm-gqa", tiny(n_heads=8, n_kv_heads=2, head_dim=8, position="alibi", alibi_max_bias=4.0,
                               embedding_norm=True),
     "ALiBi on our own architecture: 8 heads of 8 (q 64 values, dim 32) sharing 2 kv heads, max bias 4 "
     "(slopes 2^-0.5 .. 2^-4), RMSNorm of the embeddings (token_embd_norm), SwiGLU, tied"),
]

# Gemma 3 (gemma3 files): sandwich RMSNorms, GeGLU, q/k norm, embeddings times sqrt(dim), half-pair RoPE, and
# sliding-window layers (window 3 keys, so the 8-token fixtures see it) with their own RoPE base; the global
# layers' RoPE is linearly scaled (Gemma 3 4B's factor 8), the sliding ones' not. Layer pattern: llama.cpp's
# "every 2nd layer global" (layer 0 slides, layer 1 is global).
GEMMA3 = tiny(n_kv_heads=2, hidden_dim=64, rope_pairing="half", qk_norm=True, head_dim=16, rotary_dim=16,
              norm_placement="sandwich", activation="gelu", scaled_embeddings=True, norm_eps=1e-6,
              rope_theta=1000000.0, rope_theta_sliding=10000.0, sliding_window=3, sliding_layers=[True, False],
              rope_scaling={"type": "linear", "factor": 8.0})

# Llama 3.1's RoPE scaling, at a scale where its three regimes show in 4 rotated pairs: wavelengths 6.3, 63,
# 628 and 6283 positions against original_context / high = 32 and original_context / low = 256, so pair 0 is
# kept, pair 1 blended, pairs 2 and 3 slowed by the factor.
LLAMA3_SCALING = {"type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 8.0,
                  "original_context": 256}

# YaRN at a scale where its three regimes show (theta 1e4, an original context of 256): of 4 rotated pairs,
# pair 0 is kept, pair 1 blended, pairs 2-3 slowed by the factor (of 8 pairs: 0-3 ramp, 4-7 slowed); q and k
# grow by 1 + 0.1 ln 4 and by attn_factor.
YARN_SCALING = {"type": "yarn", "factor": 4.0, "original_context": 256, "attn_factor": 1.25}

# Hugging Face-convention models (half-pair RoPE over the whole head).
HF_LLAMA = tiny(n_kv_heads=2, hidden_dim=64, rope_pairing="half", tied_embeddings=False)
HF_QWEN2 = tiny(n_kv_heads=2, hidden_dim=64, rope_pairing="half", qkv_bias=True, rope_theta=1000000.0)
HF_LLAMA3 = tiny(n_kv_heads=2, hidden_dim=64, rope_pairing="half", tied_embeddings=False,
                rope_scaling=LLAMA3_SCALING, rope_theta=10000.0)
HF_LLAMA_YARN = tiny(n_kv_heads=2, hidden_dim=64, rope_pairing="half", tied_embeddings=False, rotary_dim=8,
                     rope_scaling=YARN_SCALING)
HF_QWEN3 = tiny(n_kv_heads=2, hidden_dim=64, rope_pairing="half", qk_norm=True, head_dim=16, rotary_dim=16,
                rope_theta=1000000.0)
HF_PHI3 = tiny(n_kv_heads=2, hidden_dim=48, rope_pairing="half", tied_embeddings=False)
HF_GPT2 = tiny(norm="layernorm", position="learned", activation="gelu", ffn_gated=False,
               qkv_bias=True, out_bias=True, ffn_bias=True, hidden_dim=128)
# BLOOM (bloom files): LayerNorm of the embeddings, ALiBi over 6 heads (not a power of two: 4 slopes of 4
# heads, then 2 odd ones of 8), GELU, biases everywhere, tied.
HF_BLOOM = tiny(dim=48, n_heads=6, n_kv_heads=6, hidden_dim=96, norm="layernorm", position="alibi",
                activation="gelu", ffn_gated=False, qkv_bias=True, out_bias=True, ffn_bias=True,
                embedding_norm=True, alibi_max_bias=8.0)
# MPT (mpt files): LayerNorm without biases and no other biases (MPT-7B's no_bias), ALiBi with a max bias of 6
# (the file's key) over 4 heads, GELU, tied.
HF_MPT = tiny(hidden_dim=128, norm="layernorm", norm_bias=False, position="alibi", alibi_max_bias=6.0,
              activation="gelu", ffn_gated=False)

# Wide enough that every matrix row is whole 256-value K-quant super-blocks.
KQUANT_LLAMA = tiny(dim=256, n_kv_heads=2, hidden_dim=256, rope_pairing="half", rotary_dim=64,
                    tied_embeddings=False)


def real_vocab(base, vocab_size, **overrides):
    """The same kind of model at the size used with real vocabularies."""
    cfg = dict(base)
    cfg.update(vocab_size=vocab_size, dim=64, n_layers=2, n_heads=4, hidden_dim=128,
               context_length=128, rotary_dim=16 if base["position"] == "rope" else None)
    cfg.update(overrides)
    return cfg


# -- encoders (encoder.py) ----------------------------------------------------------

def bert_tiny(vocab_size, **overrides):
    """A BERT encoder 32 wide (4 heads of 8), 2 layers, FFN 64, 48 positions, 2 token types."""
    cfg = {
        "architecture": "bert", "vocab_size": vocab_size, "dim": 32, "n_layers": 2, "n_heads": 4,
        "hidden_dim": 64, "context_length": 48, "n_token_types": 2, "norm_eps": 1e-12, "activation": "gelu_erf",
        "causal": False,
        "pooling": "mean", "mlm_head": False, "pad_id": 0,
    }
    cfg.update(overrides)
    return cfg


def nomic_bert_tiny(vocab_size, **overrides):
    """A nomic-bert encoder (nomic-embed-text's knobs, encoder.py) of bert_tiny's size: rotary positions in
    NeoX's half-split pairs with nomic-embed-text's base 1000, SwiGLU, no projection biases; mean pooling, as
    nomic-embed-text's sentence-transformers config says."""
    cfg = bert_tiny(vocab_size, architecture="nomic-bert", position="rope", rope_theta=1000.0,
                    rope_pairing="half", activation="silu", ffn_gated=True, biases=False)
    cfg.update(overrides)
    return cfg


def bert_as_float32_file(cfg):
    """A GGUF file stores the LayerNorm epsilon as float32; compute with that value."""
    return dict(cfg, norm_eps=float(np.float32(cfg["norm_eps"])))
