"""ggml's Q8_0 and Q4_0 block formats: quantize (as ggml's reference quantizers
do) and dequantize.

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
