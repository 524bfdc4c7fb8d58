"""Rounding float values to the narrow storage formats used by model files.

The reference computes in float64, but a model file stores float32, float16 or
bfloat16 numbers. To produce expected outputs that an engine reading the file can
match, we first round every weight to exactly the value the file will hold, then
compute with those values. These helpers do that rounding (round-to-nearest-even,
the IEEE default used by NumPy, PyTorch and ggml).
"""

import numpy as np


def round_to_f32(x):
    """The float64 array holding exactly the float32 values a file would store."""
    return np.asarray(x, dtype=np.float64).astype(np.float32).astype(np.float64)


def round_to_f16(x):
    """The float64 array holding exactly the float16 values a file would store."""
    return np.asarray(x, dtype=np.float64).astype(np.float32).astype(np.float16).astype(np.float64)


def f32_to_bf16_bits(x):
    """bfloat16 bit patterns (uint16) of float values, rounding to nearest even.

    bfloat16 is the upper half of a float32. NumPy has no bfloat16 type, so we do
    the rounding on the integer bits: add 0x7FFF plus the lowest kept bit, then
    drop the low 16 bits. (NaN inputs are not expected in model weights.)
    """
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounding = ((bits >> 16) & 1) + 0x7FFF
    return ((bits + rounding) >> 16).astype(np.uint16)


def bf16_bits_to_f64(bits):
    """float64 values of bfloat16 bit patterns (uint16)."""
    wide = np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16
    return wide.view(np.float32).astype(np.float64)


def round_to_bf16(x):
    """The float64 array holding exactly the bfloat16 values a file would store."""
    return bf16_bits_to_f64(f32_to_bf16_bits(x))
