"""ggml's block formats: Q8_0 and Q4_0 (quantize as ggml's reference quantizers
do, and dequantize); Q4_1, Q5_0, Q5_1, the K-quants Q2_K, Q3_K, Q4_K, Q5_K
and Q6_K, and the non-linear IQ4_NL and IQ4_XS (dequantize, plus seeded random blocks: every byte pattern is a valid
block, so random bytes with a small scale make a random weight matrix without
writing a quantizer); and the roundings ggml's CPU code applies to the
activations before a product with each of them (Q8_0, Q8_1, Q8_K).

Both formats cut a row into blocks of 32 consecutive values (along ne0, the row
length) and store one float16 scale `d` per block plus 32 small integers:

  Q8_0, 34 bytes a block: d (f16), then 32 int8 q.        value = d * q
    d = amax / 127 where amax = max |x| in the block; q = roundf(x / d).
  Q4_0, 18 bytes a block: d (f16), then 16 bytes of 4-bit q. value = d * (q - 8)
    d = m / -8 where m is the block's value of largest magnitude, WITH its sign;
    q = min(15, trunc(x / d + 8.5)); byte j holds q[j] in its low nibble and
    q[j + 16] in its high nibble (first half low, second half high).

The arithmetic is done in float32 like ggml's C code (quantize_row_q8_0_ref /
quantize_row_q4_0_ref), so the bytes should match what ggml itself writes. Note
that the reciprocal `id = 1/d` is taken from the float32 d, before d is rounded
to float16 for storage.
"""

import numpy as np

BLOCK = 32
Q8_0_BLOCK_BYTES = 2 + 32
Q4_0_BLOCK_BYTES = 2 + 16
K_BLOCK = 256  # values per K-quant super-block
Q4_K_BLOCK_BYTES = 2 + 2 + 12 + 128
Q6_K_BLOCK_BYTES = 128 + 64 + 16 + 2
Q4_1_BLOCK_BYTES = 2 + 2 + 16
Q5_0_BLOCK_BYTES = 2 + 4 + 16
Q5_1_BLOCK_BYTES = 2 + 2 + 4 + 16
Q2_K_BLOCK_BYTES = 16 + 64 + 2 + 2
Q3_K_BLOCK_BYTES = 32 + 64 + 12 + 2
Q5_K_BLOCK_BYTES = 2 + 2 + 12 + 32 + 128
IQ4_NL_BLOCK_BYTES = 2 + 16
IQ4_XS_BLOCK_BYTES = 2 + 2 + 4 + 128


def _blocks(x):
    flat = np.asarray(x, dtype=np.float32).reshape(-1)
    if flat.size % BLOCK:
        raise ValueError(f"{flat.size} values is not a multiple of the block size {BLOCK}")
    return flat.reshape(-1, BLOCK)


def _reciprocal(d):
    # C: `const float id = d ? 1.0f/d : 0.0f;`
    safe = np.where(d == 0, np.float32(1), d)
    return np.where(d == 0, np.float32(0), np.float32(1) / safe).astype(np.float32)


def _roundf(v):
    # C roundf rounds halves away from zero (NumPy's round goes to even). Do the
    # +0.5 in float64, where it is exact for these magnitudes.
    v = v.astype(np.float64)
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def quantize_q8_0(x):
    """Bytes of x (any shape, size a multiple of 32) in Q8_0."""
    b = _blocks(x)
    amax = np.max(np.abs(b), axis=1)
    d = (amax / np.float32(127)).astype(np.float32)
    q = _roundf(b * _reciprocal(d)[:, None]).astype(np.int8)
    out = np.zeros((b.shape[0], Q8_0_BLOCK_BYTES), dtype=np.uint8)
    out[:, 0:2] = d.astype(np.float16).reshape(-1, 1).view(np.uint8)
    out[:, 2:] = q.view(np.uint8)
    return out.tobytes()


def dequantize_q8_0(data, count):
    """float64 values of `count` Q8_0-coded numbers."""
    raw = np.frombuffer(data, dtype=np.uint8, count=count // BLOCK * Q8_0_BLOCK_BYTES)
    raw = raw.reshape(-1, Q8_0_BLOCK_BYTES)
    d = raw[:, 0:2].copy().view(np.float16).astype(np.float64)  # shape (blocks, 1)
    q = raw[:, 2:].copy().view(np.int8).astype(np.float64)
    return (d * q).reshape(-1)


def quantize_q4_0(x):
    """Bytes of x (any shape, size a multiple of 32) in Q4_0."""
    b = _blocks(x)
    # The value of largest magnitude, keeping its sign; the first one wins ties
    # (C loop: `if (amax < fabsf(v))`), which argmax also does.
    m = b[np.arange(b.shape[0]), np.argmax(np.abs(b), axis=1)]
    d = (m / np.float32(-8)).astype(np.float32)
    scaled = (b * _reciprocal(d)[:, None]).astype(np.float32)
    shifted = (scaled + np.float32(8.5)).astype(np.float32)
    q = np.minimum(15, np.trunc(shifted)).astype(np.uint8)  # C: MIN(15, (int8_t)(x + 8.5f))
    packed = q[:, :16] | (q[:, 16:] << 4)
    out = np.zeros((b.shape[0], Q4_0_BLOCK_BYTES), dtype=np.uint8)
    out[:, 0:2] = d.astype(np.float16).reshape(-1, 1).view(np.uint8)
    out[:, 2:] = packed
    return out.tobytes()


def dequantize_q4_0(data, count):
    """float64 values of `count` Q4_0-coded numbers."""
    raw = np.frombuffer(data, dtype=np.uint8, count=count // BLOCK * Q4_0_BLOCK_BYTES)
    raw = raw.reshape(-1, Q4_0_BLOCK_BYTES)
    d = raw[:, 0:2].copy().view(np.float16).astype(np.float64)
    packed = raw[:, 2:]
    q = np.concatenate([packed & 0x0F, packed >> 4], axis=1).astype(np.float64) - 8
    return (d * q).reshape(-1)


# -- Q4_1, Q5_0, Q5_1: blocks of 32 with a min or a fifth bit ------------------------
#
# Q4_1, 20 bytes: d (f16), m (f16), 16 bytes of nibbles.            value = d * q + m
# Q5_0, 22 bytes: d (f16), qh (4 bytes), 16 bytes of nibbles.       value = d * (q - 16)
# Q5_1, 24 bytes: d (f16), m (f16), qh (4 bytes), 16 nibble bytes.  value = d * q + m
# As in Q4_0, nibble byte j holds value j (low nibble) and value j + 16 (high).
# qh is a little-endian uint32 whose bit j is bit 4 of value j's q (so q is 0..31).


def _blocks_of_32(data, count, block_bytes):
    if count % BLOCK:
        raise ValueError(f"{count} values is not a multiple of the block size {BLOCK}")
    raw = np.frombuffer(data, dtype=np.uint8, count=count // BLOCK * block_bytes)
    return raw.reshape(-1, block_bytes)


def _nibbles(packed):
    """[blocks, 32] int64 q from [blocks, 16] bytes: low nibbles first, then high."""
    return np.concatenate([packed & 0x0F, packed >> 4], axis=1).astype(np.int64)


def _fifth_bits(qh):
    """[blocks, 32] of 0 / 16 from [blocks, 4] bytes: bit j of the little-endian word for value j."""
    word = qh.astype(np.int64) @ (1 << (8 * np.arange(4, dtype=np.int64)))  # [blocks]
    return ((word[:, None] >> np.arange(32, dtype=np.int64)) & 1) << 4


def dequantize_q4_1(data, count):
    """float64 values of `count` Q4_1-coded numbers."""
    raw = _blocks_of_32(data, count, Q4_1_BLOCK_BYTES)
    d, m = _f16(raw[:, 0:2]), _f16(raw[:, 2:4])
    return (d[:, None] * _nibbles(raw[:, 4:]) + m[:, None]).reshape(-1)


def dequantize_q5_0(data, count):
    """float64 values of `count` Q5_0-coded numbers."""
    raw = _blocks_of_32(data, count, Q5_0_BLOCK_BYTES)
    d = _f16(raw[:, 0:2])
    q = _nibbles(raw[:, 6:]) | _fifth_bits(raw[:, 2:6])
    return (d[:, None] * (q - 16)).reshape(-1)


def dequantize_q5_1(data, count):
    """float64 values of `count` Q5_1-coded numbers."""
    raw = _blocks_of_32(data, count, Q5_1_BLOCK_BYTES)
    d, m = _f16(raw[:, 0:2]), _f16(raw[:, 2:4])
    q = _nibbles(raw[:, 8:]) | _fifth_bits(raw[:, 4:8])
    return (d[:, None] * q + m[:, None]).reshape(-1)


def _random_32_blocks(rng, n_values, block_bytes, scale_bytes, d, m=None):
    """Random bytes after the first scale_bytes, which hold d (and m) as f16."""
    n_blocks = n_values // BLOCK
    out = np.zeros((n_blocks, block_bytes), dtype=np.uint8)
    out[:, scale_bytes:] = rng.integers(0, 256, (n_blocks, block_bytes - scale_bytes), dtype=np.uint8)
    out[:, 0:2] = d.astype(np.float16).reshape(-1, 1).view(np.uint8)
    if m is not None:
        out[:, 2:4] = m.astype(np.float16).reshape(-1, 1).view(np.uint8)
    return out.tobytes()


def random_q4_1(rng, n_values, std):
    """Bytes of n_values random Q4_1 values spread about `std`: uniform q (0..15, standard deviation 4.6)
    and m about -7.5 d, so that each block centres near zero."""
    n_blocks = n_values // BLOCK
    d = std / 4.6 * rng.uniform(0.8, 1.2, n_blocks)
    return _random_32_blocks(rng, n_values, Q4_1_BLOCK_BYTES, 4, d, -7.5 * d * rng.uniform(0.9, 1.1, n_blocks))


def random_q5_0(rng, n_values, std):
    """Bytes of n_values random Q5_0 values spread about `std` (q - 16 uniform in -16..15, deviation 9.2)."""
    d = std / 9.2 * rng.uniform(0.8, 1.2, n_values // BLOCK)
    return _random_32_blocks(rng, n_values, Q5_0_BLOCK_BYTES, 2, d)


def random_q5_1(rng, n_values, std):
    """Bytes of n_values random Q5_1 values spread about `std`, m about -15.5 d (q is 0..31)."""
    n_blocks = n_values // BLOCK
    d = std / 9.2 * rng.uniform(0.8, 1.2, n_blocks)
    return _random_32_blocks(rng, n_values, Q5_1_BLOCK_BYTES, 4, d, -15.5 * d * rng.uniform(0.9, 1.1, n_blocks))


# -- K-quants ------------------------------------------------------------------------
#
# Q4_K, 144 bytes per super-block of 256 values (ggml's block_q4_K):
#   d (f16), dmin (f16), scales[12], qs[128]
#   Eight sub-blocks of 32 values, each with a 6-bit scale sc and a 6-bit min m,
#   packed into scales[12]: for sub-block j < 4, sc = scales[j] & 63 and
#   m = scales[j + 4] & 63; for j >= 4, sc = (scales[j + 4] & 0xF) | (scales[j - 4] >> 6) << 4
#   and m = (scales[j + 4] >> 4) | (scales[j] >> 6) << 4 (the top two bits of the
#   first eight bytes hold the high bits of sub-blocks 4..7).
#   qs holds 4-bit q in four chunks of 32 bytes: chunk c covers values
#   64c .. 64c + 63; its low nibbles are sub-block 2c, its high nibbles sub-block 2c + 1.
#   value = d * sc * q - dmin * m
#
# Q6_K, 210 bytes per super-block of 256 values (ggml's block_q6_K):
#   ql[128] (low 4 bits), qh[64] (high 2 bits), scales[16] (int8), d (f16)
#   Two halves of 128 values; half h uses ql[64h : 64h + 64], qh[32h : 32h + 32],
#   scales[8h : 8h + 8]. Within a half, for l in 0..31:
#     value l      : low nibble of ql[l],      bits 0-1 of qh[l]
#     value l + 32 : low nibble of ql[l + 32], bits 2-3 of qh[l]
#     value l + 64 : high nibble of ql[l],     bits 4-5 of qh[l]
#     value l + 96 : high nibble of ql[l + 32], bits 6-7 of qh[l]
#   q = low | high << 4 (0..63); value i of the half uses scale i // 16.
#   value = d * scale * (q - 32)


def _k_blocks(data, count, block_bytes):
    if count % K_BLOCK:
        raise ValueError(f"{count} values is not a multiple of the K-quant block size {K_BLOCK}")
    raw = np.frombuffer(data, dtype=np.uint8, count=count // K_BLOCK * block_bytes)
    return raw.reshape(-1, block_bytes)


def _f16(two_bytes):
    return np.ascontiguousarray(two_bytes).view(np.float16).astype(np.float64).reshape(-1)


def q4_k_scales_mins(packed):
    """(sc, m), each [blocks, 8], from the 12 packed bytes of each block."""
    p = packed.astype(np.int64)
    sc = np.zeros((p.shape[0], 8), dtype=np.int64)
    m = np.zeros((p.shape[0], 8), dtype=np.int64)
    sc[:, :4] = p[:, 0:4] & 63
    m[:, :4] = p[:, 4:8] & 63
    sc[:, 4:] = (p[:, 8:12] & 0x0F) | ((p[:, 0:4] >> 6) << 4)
    m[:, 4:] = (p[:, 8:12] >> 4) | ((p[:, 4:8] >> 6) << 4)
    return sc, m


def dequantize_q4_k(data, count):
    """float64 values of `count` Q4_K-coded numbers."""
    raw = _k_blocks(data, count, Q4_K_BLOCK_BYTES)
    d, dmin = _f16(raw[:, 0:2]), _f16(raw[:, 2:4])
    sc, m = q4_k_scales_mins(raw[:, 4:16])
    qs = raw[:, 16:].reshape(-1, 4, 32)  # [block, chunk, byte]
    q = np.stack([qs & 0x0F, qs >> 4], axis=2).reshape(-1, 8, 32).astype(np.float64)  # [block, sub-block, 32]
    values = d[:, None, None] * sc[:, :, None] * q - dmin[:, None, None] * m[:, :, None]
    return values.reshape(-1)


def dequantize_q6_k(data, count):
    """float64 values of `count` Q6_K-coded numbers."""
    raw = _k_blocks(data, count, Q6_K_BLOCK_BYTES)
    ql = raw[:, 0:128].reshape(-1, 2, 64).astype(np.int64)
    qh = raw[:, 128:192].reshape(-1, 2, 32).astype(np.int64)
    scales = raw[:, 192:208].copy().view(np.int8).astype(np.float64).reshape(-1, 2, 8)
    d = _f16(raw[:, 208:210])
    low = np.concatenate([ql[:, :, 0:32] & 0x0F, ql[:, :, 32:64] & 0x0F,
                          ql[:, :, 0:32] >> 4, ql[:, :, 32:64] >> 4], axis=2)        # [block, half, 128]
    high = np.concatenate([(qh >> shift) & 3 for shift in (0, 2, 4, 6)], axis=2)      # [block, half, 128]
    q = (low | (high << 4)) - 32
    scale = np.repeat(scales, 16, axis=2)                                             # value i -> scale i // 16
    return (d[:, None, None] * scale * q).reshape(-1)


# Q2_K, 84 bytes per super-block of 256 values (ggml's block_q2_K):
#   scales[16], qs[64], d (f16), dmin (f16)
#   Sixteen groups of 16 values; scales[g] holds group g's 4-bit scale (low nibble)
#   and 4-bit min (high nibble). The 2-bit q: two halves of 128 values, half h uses
#   qs[32h : 32h + 32]; value 128h + 32k + l (k = 0..3, l = 0..31) is bits 2k..2k+1
#   of qs[32h + l]. Group g = value // 16.
#   value = d * scale * q - dmin * min
#
# Q3_K, 110 bytes per super-block of 256 values (ggml's block_q3_K):
#   hmask[32], qs[64], scales[12], d (f16)
#   The low two bits of q sit where Q2_K's do; the third bit of value i is bit
#   i // 32 of hmask[i % 32]; q = low2 - (0 if that bit is set else 4), -4..3.
#   Sixteen 6-bit scales (one per 16 values), stored plus 32: scale g's low four
#   bits are the low nibble of scales[g] (g < 8) or the high nibble of scales[g - 8];
#   its top two bits are bits 2 (g // 4) .. 2 (g // 4) + 1 of scales[8 + g % 4].
#   value = d * (scale - 32) * q
#
# Q5_K, 176 bytes per super-block of 256 values (ggml's block_q5_K):
#   d (f16), dmin (f16), scales[12] (packed as Q4_K's), qh[32], qs[128]
#   The low four bits of q sit where Q4_K's do; bit 4 of value i is bit i // 32 of
#   qh[i % 32] (q is 0..31). value = d * sc * q - dmin * m, with Q4_K's sub-blocks of 32.


def _two_bit_planes(qs):
    """[blocks, 256] int64 2-bit q of Q2_K / Q3_K from [blocks, 64] bytes."""
    halves = qs.reshape(-1, 2, 1, 32).astype(np.int64)               # [block, half, 1, l]
    shifts = (2 * np.arange(4, dtype=np.int64)).reshape(1, 1, 4, 1)  # [.., k, ..]
    return ((halves >> shifts) & 3).reshape(-1, 256)                 # value 128h + 32k + l


def _bit_per_32(planes):
    """[blocks, 256] 0/1: bit i // 32 of byte i % 32 of [blocks, 32] bytes."""
    p = planes.astype(np.int64)[:, None, :]                       # [block, 1, byte]
    return ((p >> np.arange(8, dtype=np.int64)[None, :, None]) & 1).reshape(-1, 256)


def q3_k_scales(packed):
    """[blocks, 16] signed scales (-32..31) from the 12 packed bytes of each block."""
    p = packed.astype(np.int64)
    g = np.arange(16)
    low = np.where(g < 8, p[:, g % 8] & 0x0F, p[:, g % 8] >> 4)
    high = (p[:, 8 + g % 4] >> (2 * (g // 4))) & 3
    return (low | (high << 4)) - 32


def dequantize_q2_k(data, count):
    """float64 values of `count` Q2_K-coded numbers."""
    raw = _k_blocks(data, count, Q2_K_BLOCK_BYTES)
    d, dmin = _f16(raw[:, 80:82]), _f16(raw[:, 82:84])
    scale = np.repeat((raw[:, 0:16] & 0x0F).astype(np.float64), 16, axis=1)  # value i -> group i // 16
    minimum = np.repeat((raw[:, 0:16] >> 4).astype(np.float64), 16, axis=1)
    q = _two_bit_planes(raw[:, 16:80])
    return (d[:, None] * scale * q - dmin[:, None] * minimum).reshape(-1)


def dequantize_q3_k(data, count):
    """float64 values of `count` Q3_K-coded numbers."""
    raw = _k_blocks(data, count, Q3_K_BLOCK_BYTES)
    d = _f16(raw[:, 108:110])
    scale = np.repeat(q3_k_scales(raw[:, 96:108]).astype(np.float64), 16, axis=1)
    q = _two_bit_planes(raw[:, 32:96]) - 4 * (1 - _bit_per_32(raw[:, 0:32]))
    return (d[:, None] * scale * q).reshape(-1)


def dequantize_q5_k(data, count):
    """float64 values of `count` Q5_K-coded numbers."""
    raw = _k_blocks(data, count, Q5_K_BLOCK_BYTES)
    d, dmin = _f16(raw[:, 0:2]), _f16(raw[:, 2:4])
    sc, m = q4_k_scales_mins(raw[:, 4:16])
    qs = raw[:, 48:].reshape(-1, 4, 32)
    low4 = np.stack([qs & 0x0F, qs >> 4], axis=2).reshape(-1, 256).astype(np.int64)
    q = (low4 | (_bit_per_32(raw[:, 16:48]) << 4)).reshape(-1, 8, 32).astype(np.float64)
    values = d[:, None, None] * sc[:, :, None] * q - dmin[:, None, None] * m[:, :, None]
    return values.reshape(-1)


def random_q2_k(rng, n_values, std):
    """Bytes of n_values random Q2_K values: random scale/min nibbles and 2-bit q; d so that the values
    spread about `std` (about 14 d with uniform scales, mins and q), dmin = about 1.5 d so they centre near
    zero (mean scale * q is 7.5 * 1.5, mean min 7.5)."""
    n_blocks = n_values // K_BLOCK
    out = np.zeros((n_blocks, Q2_K_BLOCK_BYTES), dtype=np.uint8)
    out[:, 0:80] = rng.integers(0, 256, (n_blocks, 80), dtype=np.uint8)
    d = (std / 14.0 * rng.uniform(0.8, 1.2, n_blocks)).astype(np.float16)
    dmin = (d.astype(np.float64) * 1.5 * rng.uniform(0.9, 1.1, n_blocks)).astype(np.float16)
    out[:, 80:82] = d.reshape(-1, 1).view(np.uint8)
    out[:, 82:84] = dmin.reshape(-1, 1).view(np.uint8)
    return out.tobytes()


def random_q3_k(rng, n_values, std):
    """Bytes of n_values random Q3_K values: random bits everywhere but d, chosen so the values spread
    about `std` (signed scales -32..31 times q -4..3 spread about 43)."""
    n_blocks = n_values // K_BLOCK
    out = np.zeros((n_blocks, Q3_K_BLOCK_BYTES), dtype=np.uint8)
    out[:, 0:108] = rng.integers(0, 256, (n_blocks, 108), dtype=np.uint8)
    d = (std / 43.0 * rng.uniform(0.8, 1.2, n_blocks)).astype(np.float16)
    out[:, 108:110] = d.reshape(-1, 1).view(np.uint8)
    return out.tobytes()


def random_q5_k(rng, n_values, std):
    """Bytes of n_values random Q5_K values: as random_q4_k with 5-bit q (mean 15.5), so dmin = about
    15.5 d and the spread is about 527 d."""
    n_blocks = n_values // K_BLOCK
    out = np.zeros((n_blocks, Q5_K_BLOCK_BYTES), dtype=np.uint8)
    d = (std / 527.0 * rng.uniform(0.8, 1.2, n_blocks)).astype(np.float16)
    dmin = (d.astype(np.float64) * 15.5 * rng.uniform(0.9, 1.1, n_blocks)).astype(np.float16)
    out[:, 0:2] = d.reshape(-1, 1).view(np.uint8)
    out[:, 2:4] = dmin.reshape(-1, 1).view(np.uint8)
    out[:, 4:] = rng.integers(0, 256, (n_blocks, Q5_K_BLOCK_BYTES - 4), dtype=np.uint8)
    return out.tobytes()


def random_q4_k(rng, n_values, std):
    """Bytes of n_values random Q4_K values: random packed scales/mins and nibbles,
    d chosen so the values spread about `std`, dmin = about 7.5 d so that they
    centre near zero (mean q is 7.5, and sc and m have the same distribution)."""
    n_blocks = n_values // K_BLOCK
    out = np.zeros((n_blocks, Q4_K_BLOCK_BYTES), dtype=np.uint8)
    d = (std / 240.0 * rng.uniform(0.8, 1.2, n_blocks)).astype(np.float16)
    dmin = (d.astype(np.float64) * 7.5 * rng.uniform(0.9, 1.1, n_blocks)).astype(np.float16)
    out[:, 0:2] = d.reshape(-1, 1).view(np.uint8)
    out[:, 2:4] = dmin.reshape(-1, 1).view(np.uint8)
    out[:, 4:] = rng.integers(0, 256, (n_blocks, Q4_K_BLOCK_BYTES - 4), dtype=np.uint8)
    return out.tobytes()


def random_q6_k(rng, n_values, std):
    """Bytes of n_values random Q6_K values: random 6-bit q, random int8 scales,
    d chosen so the values spread about `std`."""
    n_blocks = n_values // K_BLOCK
    out = np.zeros((n_blocks, Q6_K_BLOCK_BYTES), dtype=np.uint8)
    out[:, 0:208] = rng.integers(0, 256, (n_blocks, 208), dtype=np.uint8)
    d = (std / 1350.0 * rng.uniform(0.8, 1.2, n_blocks)).astype(np.float16)
    out[:, 208:210] = d.reshape(-1, 1).view(np.uint8)
    return out.tobytes()


# IQ4_NL, 18 bytes: d (f16), 16 bytes of 4-bit indices ordered as Q4_0's nibbles; value = d * IQ4_VALUES[i].
# IQ4_XS, 136 bytes a super-block of 256: d (f16); scales_h, a little-endian uint16; scales_l, 4 bytes;
#   128 bytes of indices, 16 per sub-block of 32, each ordered as IQ4_NL's. Sub-block j's 6-bit scale:
#   low four bits = nibble j % 2 (low first) of scales_l[j // 2], top two = bits 2j, 2j+1 of scales_h;
#   stored plus 32.                                            value = d * (scale - 32) * IQ4_VALUES[i]
# The 16 values an index selects (ggml's kvalues_iq4nl): finer steps near zero.
IQ4_VALUES = np.array([-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113], dtype=np.int64)


def dequantize_iq4_nl(data, count):
    """float64 values of `count` IQ4_NL-coded numbers."""
    raw = _blocks_of_32(data, count, IQ4_NL_BLOCK_BYTES)
    return (_f16(raw[:, 0:2])[:, None] * IQ4_VALUES[_nibbles(raw[:, 2:])]).reshape(-1)


def iq4_xs_scales(raw):
    """[blocks, 8] signed sub-block scales (-32..31) of [blocks, 136] IQ4_XS bytes."""
    high = raw[:, 2].astype(np.int64) | raw[:, 3].astype(np.int64) << 8
    low = raw[:, 4:8].astype(np.int64)
    j = np.arange(8)
    low4 = (low[:, j // 2] >> (4 * (j % 2))) & 0x0F
    return (low4 | ((high[:, None] >> (2 * j)) & 3) << 4) - 32


def dequantize_iq4_xs(data, count):
    """float64 values of `count` IQ4_XS-coded numbers."""
    raw = _k_blocks(data, count, IQ4_XS_BLOCK_BYTES)
    d = _f16(raw[:, 0:2])
    indices = _nibbles(raw[:, 8:].reshape(-1, 16)).reshape(-1, 8, 32)
    values = d[:, None, None] * iq4_xs_scales(raw)[:, :, None] * IQ4_VALUES[indices]
    return values.reshape(-1)


def random_iq4_nl(rng, n_values, std):
    """Bytes of n_values random IQ4_NL values spread about `std` (uniform indices: the table values spread
    about 66, with mean -5.9)."""
    d = std / 66.0 * rng.uniform(0.8, 1.2, n_values // BLOCK)
    return _random_32_blocks(rng, n_values, IQ4_NL_BLOCK_BYTES, 2, d)


def random_iq4_xs(rng, n_values, std):
    """Bytes of n_values random IQ4_XS values: random scale bits and indices, d chosen so the values spread
    about `std` (signed scales -32..31, deviation 18.5, times table values, about 66: about 1220)."""
    n_blocks = n_values // K_BLOCK
    out = np.zeros((n_blocks, IQ4_XS_BLOCK_BYTES), dtype=np.uint8)
    out[:, 2:] = rng.integers(0, 256, (n_blocks, IQ4_XS_BLOCK_BYTES - 2), dtype=np.uint8)
    d = (std / 1220.0 * rng.uniform(0.8, 1.2, n_blocks)).astype(np.float16)
    out[:, 0:2] = d.reshape(-1, 1).view(np.uint8)
    return out.tobytes()


def round_like_q8_k(x):
    """The values of x (a multiple of 256 values) after ggml's quantize_row_q8_K_ref, the 8-bit blocks
    ggml's CPU code turns the *activations* into before a dot product with Q4_K or Q6_K weights. Per block
    of 256: m = the value of largest magnitude, with its sign; iscale = -127 / m (float32);
    q = min(127, nearest_int(iscale * x)) (halves to even); stored d = 1 / iscale (float32); value d * q."""
    b = np.asarray(x, dtype=np.float32).reshape(-1, K_BLOCK)
    m = b[np.arange(b.shape[0]), np.argmax(np.abs(b), axis=1)]
    out = np.zeros(b.shape)
    nonzero = m != 0
    iscale = (np.float32(-127) / m[nonzero]).astype(np.float32)
    q = np.minimum(127, np.rint((iscale[:, None] * b[nonzero]).astype(np.float32)))
    out[nonzero] = q * (np.float32(1) / iscale).astype(np.float64)[:, None]
    return out.reshape(np.shape(x))


def q8_0_scaled(x):
    """x / d as quantize_row_q8_0 computes it before rounding (see round_like_q8_0), as float32 values."""
    b = np.asarray(x, dtype=np.float32).reshape(-1, BLOCK)
    d = (np.max(np.abs(b), axis=1) / np.float32(127)).astype(np.float32)
    return (b * _reciprocal(d)[:, None]).astype(np.float32)


def q8_0_tie_distance(x):
    """How near round_like_q8_0(x) comes to a rounding tie, relative to the rounded quantity: the least over
    x's blocks of |x / d| to the nearest halfway point between integers, and of twice d's distance to the
    nearest halfway point between halves (its f16 rounding; twice, as d = amax / 127 carries the float error
    of one activation where x / d carries two). An engine computing x in float32 rounds the same way
    wherever this is well above its float error."""
    v = np.abs(q8_0_scaled(x)).astype(np.float64)
    nearest = np.min(np.abs(v - np.floor(v) - 0.5) / np.maximum(v, 1.0))
    b = np.asarray(x, dtype=np.float32).reshape(-1, BLOCK)
    d = (np.max(np.abs(b), axis=1) / np.float32(127)).astype(np.float32)
    d = d[d > 0].astype(np.float64)
    if d.size:
        h = d.astype(np.float16)
        below = np.nextafter(h, np.float16(-np.inf)).astype(np.float64)
        above = np.nextafter(h, np.float16(np.inf)).astype(np.float64)
        h = h.astype(np.float64)
        halfway = np.where(d >= h, (h + above) / 2, (h + below) / 2)
        nearest = min(nearest, 2 * float(np.min(np.abs(d - halfway) / d)))
    return float(nearest)


def round_like_q8_0(x):
    """The values of x (a multiple of 32 values) after ggml's quantize_row_q8_0 (its CPU code's rounding of
    the activations before a product with Q4_0, Q5_0 or Q8_0 weights): per block of 32, d = amax / 127 in
    float32, q = roundf(x / d) (halves away from zero) through the float32 reciprocal, d stored as f16;
    value f16(d) * q."""
    b = np.asarray(x, dtype=np.float32).reshape(-1, BLOCK)
    d = (np.max(np.abs(b), axis=1) / np.float32(127)).astype(np.float32)
    q = _roundf(q8_0_scaled(x))
    return (d.astype(np.float16).astype(np.float64)[:, None] * q).reshape(np.shape(x))


def q8_1_sum_error(x):
    """Per block of 32 values of x: ggml's Q8_1 block sum s = f16(d * sum q) (d in float32, as
    quantize_row_q8_1 stores it) minus the sum of the values round_like_q8_1 gives, f16(d) * sum q."""
    b = np.asarray(x, dtype=np.float32).reshape(-1, BLOCK)
    d = (np.max(np.abs(b), axis=1) / np.float32(127)).astype(np.float32)
    total = _roundf((b * _reciprocal(d)[:, None]).astype(np.float32)).sum(axis=1)
    s = (total.astype(np.float32) * d).astype(np.float32).astype(np.float16).astype(np.float64)
    return s - d.astype(np.float16).astype(np.float64) * total


def block_mins(data, count, block_bytes):
    """The min m (f16, bytes 2..3 of each block) of `count` Q4_1- or Q5_1-coded values, one per block."""
    return _f16(_blocks_of_32(data, count, block_bytes)[:, 2:4])


class Q8_1Product:
    """ggml's product of Q4_1 / Q5_1 weights with an input (as a `rounding` entry of model.py): the input
    rounded to Q8_1 blocks, and, since ggml's dot product adds each weight block's min m times the input
    block's stored sum s rather than the rounded values' sum, the correction sum over blocks of
    m * q8_1_sum_error. mins: [rows, blocks] of the weight matrix."""

    def __init__(self, mins):
        self.mins = mins

    def __call__(self, row):
        return round_like_q8_1(row)

    def correction(self, x):
        return np.stack([q8_1_sum_error(row) for row in x]) @ self.mins.T


def round_like_q8_1(x):
    """ggml's Q8_1 rounding of the activations before a product with Q4_1 or Q5_1 weights: the values are
    Q8_0's. (Q8_1 also stores s = f16(d * sum q), which ggml's dot products use for the weights' min
    term in place of the sum of the rounded values: a difference of about 1e-3 of that term, which this
    rounding alone does not reproduce; Q8_1Product does.)"""
    return round_like_q8_0(x)
