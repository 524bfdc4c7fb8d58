"""The attention variants (glassbox's --attention), one head at a time, from the equations.

Each takes one head's q [T, hd] and k [T, hd] (after RoPE), v [T, hd] and the model's own additive mask
[T, T] (causal, or a sliding window), and returns the head's output [T, hd]:

  exact               softmax(q k^T / sqrt(hd) + mask) v
  window:W            the same with the keys older than the W most recent (the query's own included) masked
  global-window:G,W   the window, plus keys 0..G-1 visible to every query
  linear              phi = elu + 1 on q and k (before any scaling);
                      out_t = sum_{s<=t} (phi(q_t).phi(k_s)) v_s / sum_{s<=t} phi(q_t).phi(k_s)
                      (written as the full masked matrix: the engine's running sums must equal it)
  performer:M[:SEED]  FAVOR+ with M positive orthogonal random features (the engine's draw, re-done here from
                      its written rule: performer_projection below): phi(x)_i = exp(w_i.x' - |x'|^2/2) / sqrt(M),
                      x' = x / hd^(1/4); out_t = sum_{s<=t} (phi(q_t).phi(k_s)) v_s / sum_{s<=t} phi(q_t).phi(k_s),
                      in float64 without the engine's stabilizers (they cancel; float64 does not overflow here)
  ...@L, @A-B, @A-    the variant in those layers only (the others exact): runs_in(spelling, layer)
  low-rank:R          the exact attention matrix truncated to its best rank R (numpy's SVD), its weights on
                      keys the query does not see (the future, into which truncation smears some) set to 0,
                      times v
"""

import numpy as np

import ops


def runs_in(spelling, layer):
    """Whether layer `layer` runs the variant: every layer without a suffix, else the layers it names."""
    kind_part, _, layers = spelling.partition("@")
    if kind_part == "exact":
        return False
    if not layers:
        return True
    first, dash, last = layers.partition("-")
    if not dash:
        return layer == int(first)
    return int(first) <= layer and (not last or layer <= int(last))


def parse(spelling):
    """'window:4' -> ('window', {'window': 4}) and so on; 'exact' -> ('exact', {}). Layers (@...) are
    runs_in's: the variant itself is the part before them."""
    spelling = spelling.partition("@")[0]
    kind, _, rest = spelling.partition(":")
    if kind in ("exact", "linear"):
        return kind, {}
    if kind == "window":
        return kind, {"window": int(rest)}
    if kind == "global-window":
        g, w = rest.split(",")
        return kind, {"global": int(g), "window": int(w)}
    if kind == "low-rank":
        return kind, {"rank": int(rest)}
    if kind == "performer":
        m, _, seed = rest.partition(":")
        return kind, {"features": int(m), "seed": int(seed) if seed else 1}
    raise ValueError(f"the reference has no attention {spelling!r}")


def variant_mask(kind, params, T):
    """The additive mask a mask-like variant adds to the model's own."""
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    hidden = np.zeros((T, T), dtype=bool)
    if kind in ("window", "global-window"):
        hidden = i - j >= params["window"]
        if kind == "global-window":
            hidden &= j >= params["global"]
    return np.where(hidden, -np.inf, 0.0)


def elu_plus_one(x):
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


class Rng:
    """The engine's Rng (glassbox/sampler.hpp): xorshift64* and its float in [0, 1)."""

    MASK = (1 << 64) - 1

    def __init__(self, seed):
        self.state = seed if seed != 0 else 0x9E3779B97F4A7C15

    def next_u32(self):
        s = self.state
        s ^= s >> 12
        s ^= (s << 25) & self.MASK
        s ^= s >> 27
        self.state = s
        return ((s * 0x2545F4914F6CDD1D) & self.MASK) >> 32

    def next_float(self):
        return float(np.float32(self.next_u32() >> 8) / np.float32(16777216.0))

    def gaussian(self):
        """Box-Muller on two uniform draws (1 - u keeps the log finite)."""
        u1 = 1.0 - self.next_float()
        u2 = self.next_float()
        return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


def performer_projection(features, hd, seed):
    """The [features, hd] random directions: blocks of hd Gaussian rows made orthonormal (Gram-Schmidt, twice),
    each row then given the length of a fresh Gaussian vector; rounded to float32 as the engine keeps them."""
    rng = Rng(seed)
    w = np.zeros((features, hd))
    for first in range(0, features, hd):
        block = np.array([rng.gaussian() for _ in range(hd * hd)]).reshape(hd, hd)
        for r in range(hd):
            for _ in range(2):
                for p in range(r):
                    block[r] -= (block[r] @ block[p]) * block[p]
            block[r] /= np.sqrt(block[r] @ block[r])
        for r in range(min(hd, features - first)):
            length = np.sqrt(sum(rng.gaussian() ** 2 for _ in range(hd)))
            w[first + r] = block[r] * length
    return w.astype(np.float32).astype(np.float64)


def performer_features(x, w):
    """FAVOR+'s positive features of the rows of x [T, hd]: exp(w_i.x' - |x'|^2 / 2) / sqrt(M)."""
    xs = x / np.sqrt(np.sqrt(x.shape[1]))
    return np.exp(xs @ w.T - 0.5 * (xs * xs).sum(axis=1, keepdims=True)) / np.sqrt(w.shape[0])


def head_output(spelling, q, k, v, mask):
    """One head's attention output [T, hd] under the variant."""
    kind, params = parse(spelling)
    T, hd = q.shape
    if kind in ("linear", "performer"):
        if kind == "linear":
            phi_q, phi_k = elu_plus_one(q), elu_plus_one(k)
        else:
            w = performer_projection(params["features"], hd, params["seed"])
            phi_q, phi_k = performer_features(q, w), performer_features(k, w)
        weights = phi_q @ phi_k.T * (mask == 0)  # causal: keys s <= t only
        return (weights @ v) / weights.sum(axis=1, keepdims=True)
    full_mask = mask + variant_mask(kind, params, T)
    probs = ops.softmax(q @ k.T / np.sqrt(hd) + full_mask)
    if kind == "low-rank":
        u, s, vt = np.linalg.svd(probs)
        r = params["rank"]
        probs = np.where(np.isfinite(full_mask), (u[:, :r] * s[:r]) @ vt[:r], 0.0)
    return probs @ v
