"""The building blocks of the decoder, written straight from their equations.

Everything works on float64 NumPy arrays whose last axis is the feature axis, so
a whole sequence (shape [T, D]) goes through at once.
"""

import math

import numpy as np


# -- normalization --------------------------------------------------------------

def layer_norm(x, weight, bias, eps):
    """LayerNorm: (x - mean) / sqrt(var + eps) * weight + bias, over the last axis.
    var is the biased (population) variance, as in PyTorch and ggml."""
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps) * weight
    return y + bias if bias is not None else y


def rms_norm(x, weight, eps):
    """RMSNorm: x / sqrt(mean(x^2) + eps) * weight. No centering, no bias."""
    ms = (x * x).mean(axis=-1, keepdims=True)
    return x / np.sqrt(ms + eps) * weight


# -- activations ----------------------------------------------------------------

def silu(x):
    """SiLU / swish: x * sigmoid(x)."""
    return x / (1.0 + np.exp(-x))


def gelu_tanh(x):
    """GELU, tanh approximation (GPT-2's "gelu_new", ggml's ggml_gelu):
    0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu_erf(x):
    """GELU, exact form (BERT's and Hugging Face's "gelu", PyTorch's nn.GELU()):
    0.5 x (1 + erf(x / sqrt 2)), x times the standard normal CDF of x. NumPy has no erf; math.erf
    (correctly rounded to about 1 ulp) is applied element by element."""
    x = np.asarray(x, dtype=np.float64)
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def relu(x):
    return np.maximum(x, 0.0)


ACTIVATIONS = {"silu": silu, "gelu": gelu_tanh, "relu": relu}  # the decoders' "gelu" is the tanh form


# -- attention pieces -------------------------------------------------------------

def softmax(x):
    """Softmax over the last axis; subtracting the max keeps exp() finite and
    sends -inf (masked) scores to exactly 0."""
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def causal_mask(n, window=None):
    """[n, n] additive mask: 0 where key j <= query i, -inf where j > i (future). With a sliding window of
    w keys, also -inf where i - j >= w (older than the window)."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    hidden = j > i
    if window:
        hidden = hidden | (i - j >= window)
    return np.where(hidden, -np.inf, 0.0)


# -- positions --------------------------------------------------------------------

def alibi_slopes(n_heads, max_bias=8.0):
    """ALiBi's per-head slopes (Press et al., "Train Short, Test Long"): for n heads, n a power of two,
    2^(-max_bias * i / n) for i = 1..n; otherwise the n' = 2^floor(log2 n) slopes of n' heads, then the
    odd-numbered slopes (i = 1, 3, 5, ...) of 2n' heads until there are n."""
    def of(n):
        return [2.0 ** (-max_bias * i / n) for i in range(1, n + 1)]
    below = 2 ** int(np.floor(np.log2(n_heads)))
    return np.array(of(below) + of(2 * below)[0::2][:n_heads - below])


def alibi_bias(n, slope):
    """[n, n] ALiBi bias of one head: -slope * |i - j| for query i and key j (the future is masked apart)."""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return -slope * np.abs(i - j).astype(np.float64)


def rope_angles(positions, rotary_dim, theta, freq_factors=None):
    """[T, rotary_dim/2] angles pos * theta^(-2i/rotary_dim) / freq_factors[i], one per rotated pair
    (freq_factors: RoPE scaling's per-pair divisors, None for plain RoPE)."""
    i = np.arange(rotary_dim // 2, dtype=np.float64)
    inv_freq = theta ** (-2.0 * i / rotary_dim)
    if freq_factors is not None:
        inv_freq = inv_freq / np.asarray(freq_factors, dtype=np.float64)
    return np.asarray(positions, dtype=np.float64)[:, None] * inv_freq[None, :]


def rope_freq_factors(scaling, rotary_dim, theta):
    """The per-pair frequency divisors a Hugging Face-style rope_scaling dict asks for (None: no scaling).

      {"type": "linear", "factor": f}   every frequency divided by f (positions squeezed f times)
      {"type": "llama3", "factor": f, "low_freq_factor": lo, "high_freq_factor": hi,
       "original_context": n}           Llama 3.1: with wavelength w = 2 pi / frequency, pairs with
                                        w < n / hi keep their frequency, pairs with w > n / lo are divided
                                        by f, and in between the frequency is the blend
                                        (1 - s) * freq / f + s * freq, s = (n / w - lo) / (hi - lo)
      {"type": "yarn", "factor": f, "original_context": n, "beta_fast": bf, "beta_slow": bs}
                                        YaRN: with d(b) = rotary_dim ln(n / (2 pi b)) / (2 ln theta), the
                                        pair index turning b times over n positions, low = floor(d(bf)),
                                        high = ceil(d(bs)): pair i keeps its frequency with weight
                                        k = 1 - clip((i - low) / (high - low)), else is divided by f
                                        (frequency k freq + (1 - k) freq / f); see rope_magnitude too
    """
    if scaling is None:
        return None
    half = rotary_dim // 2
    if scaling["type"] == "linear":
        return np.full(half, float(scaling["factor"]))
    if scaling["type"] == "yarn":
        f, n = float(scaling["factor"]), float(scaling["original_context"])
        turning = lambda b: rotary_dim * np.log(n / (b * 2 * np.pi)) / (2 * np.log(theta))
        low = max(0.0, np.floor(turning(scaling.get("beta_fast", 32.0))))
        high = min(rotary_dim - 1.0, np.ceil(turning(scaling.get("beta_slow", 1.0))))
        kept = 1 - np.clip((np.arange(half) - low) / max(0.001, high - low), 0, 1)
        return 1 / ((1 - kept) / f + kept)
    if scaling["type"] != "llama3":
        raise ValueError(f"unknown RoPE scaling {scaling['type']!r}")
    f, lo, hi, n = (float(scaling[k]) for k in ("factor", "low_freq_factor", "high_freq_factor",
                                                   "original_context"))
    freq = theta ** (-2.0 * np.arange(half, dtype=np.float64) / rotary_dim)
    wavelength = 2 * np.pi / freq
    s = (n / wavelength - lo) / (hi - lo)
    blended = (1 - s) * freq / f + s * freq
    scaled = np.where(wavelength < n / hi, freq, np.where(wavelength > n / lo, freq / f, blended))
    return freq / scaled


def rope_magnitude(scaling):
    """What YaRN multiplies q and k by as it turns them: attn_factor x (1 + 0.1 ln factor); 1 otherwise."""
    if scaling is None or scaling["type"] != "yarn":
        return 1.0
    f = float(scaling["factor"])
    return scaling.get("attn_factor", 1.0) * (1 + 0.1 * np.log(f) if f > 1 else 1.0)


def apply_rope(x, positions, rotary_dim, theta, pairing, freq_factors=None, magnitude=1.0):
    """Rotate pairs of features of x ([T, heads, head_dim]) by position.

    Pair i (i < rotary_dim/2) is turned by the angle pos * theta^(-2i/rotary_dim):
      (a, b) -> (a cos - b sin, a sin + b cos)
    Which features form pair i depends on the convention:
      "adjacent": (x[2i], x[2i+1])              -- Meta's original Llama, GGUF `llama`
      "half":     (x[i], x[i + rotary_dim/2])   -- Hugging Face, GPT-NeoX, GGUF `qwen2`
    Features at index >= rotary_dim pass through unchanged (partial rotary).
    """
    half = rotary_dim // 2
    angles = rope_angles(positions, rotary_dim, theta, freq_factors)[:, None, :]  # [T, 1, half]
    cos, sin = magnitude * np.cos(angles), magnitude * np.sin(angles)
    out = x.copy()
    if pairing == "adjacent":
        a, b = x[..., 0:rotary_dim:2], x[..., 1:rotary_dim:2]
        out[..., 0:rotary_dim:2] = a * cos - b * sin
        out[..., 1:rotary_dim:2] = a * sin + b * cos
    elif pairing == "half":
        a, b = x[..., 0:half], x[..., half:rotary_dim]
        out[..., 0:half] = a * cos - b * sin
        out[..., half:rotary_dim] = a * sin + b * cos
    else:
        raise ValueError(f"unknown RoPE pairing {pairing!r}")
    return out


def sinusoidal_table(n_positions, dim):
    """The original Transformer's fixed position encoding, [n_positions, dim]:
    PE(p, 2i) = sin(p / 10000^(2i/dim)),  PE(p, 2i+1) = cos(p / 10000^(2i/dim))."""
    p = np.arange(n_positions, dtype=np.float64)[:, None]
    two_i = np.arange(0, dim, 2, dtype=np.float64)[None, :]
    angle = p / 10000.0 ** (two_i / dim)
    table = np.zeros((n_positions, dim))
    table[:, 0::2] = np.sin(angle)
    table[:, 1::2] = np.cos(angle)
    return table
