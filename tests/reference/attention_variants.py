"""The attention variants (glassbox's --attention), one head at a time, from the equations.

Each takes one head's q [T, hd] and k [T, hd] (after RoPE), v [T, hd] and the model's own additive mask
[T, T] (causal, or a sliding window), and returns the head's output [T, hd]:

  exact               softmax(q k^T / sqrt(hd) + mask) v
  window:W            the same with the keys older than the W most recent (the query's own included) masked
  global-window:G,W   the window, plus keys 0..G-1 visible to every query
  linear              phi = elu + 1 on q and k (before any scaling);
                      out_t = sum_{s<=t} (phi(q_t).phi(k_s)) v_s / sum_{s<=t} phi(q_t).phi(k_s)
                      (written as the full masked matrix: the engine's running sums must equal it)
  low-rank:R          the exact attention matrix truncated to its best rank R (numpy's SVD), its weights on
                      keys the query does not see (the future, into which truncation smears some) set to 0,
                      times v
"""

import numpy as np

import ops


def parse(spelling):
    """'window:4' -> ('window', {'window': 4}) and so on; 'exact' -> ('exact', {})."""
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


def head_output(spelling, q, k, v, mask):
    """One head's attention output [T, hd] under the variant."""
    kind, params = parse(spelling)
    T, hd = q.shape
    if kind == "linear":
        weights = elu_plus_one(q) @ elu_plus_one(k).T * (mask == 0)  # causal: keys s <= t only
        return (weights @ v) / weights.sum(axis=1, keepdims=True)
    full_mask = mask + variant_mask(kind, params, T)
    probs = ops.softmax(q @ k.T / np.sqrt(hd) + full_mask)
    if kind == "low-rank":
        u, s, vt = np.linalg.svd(probs)
        r = params["rank"]
        probs = np.where(np.isfinite(full_mask), (u[:, :r] * s[:r]) @ vt[:r], 0.0)
    return probs @ v
