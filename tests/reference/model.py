"""A float64 decoder-only transformer, configured by a plain dict.

The configuration (all keys required; README.md has the equations):

  vocab_size, dim, n_layers, n_heads, n_kv_heads, hidden_dim, context_length
  norm            "layernorm" (weight and bias; no bias where norm_bias is False, MPT) | "rmsnorm" (weight only)
  norm_eps        epsilon inside the square root
  norm_placement  "pre":  x = x + f(norm(x)); a final norm before the classifier
                  "post": x = norm(x + f(x)); no final norm
                  "sandwich": x = x + norm'(f(norm(x))) (Gemma; norm' has its own weights
                  post_attention_norm / post_ffw_norm); a final norm
  position        "rope" | "learned" (table added to the token embedding)
                  | "sinusoidal" (fixed table added, embeddings not scaled)
                  | "alibi" (nothing added; head h's scores get -slope_h * (i - j), ops.alibi_slopes with
                  alibi_max_bias, default 8)
  embedding_norm  True: the embeddings are normalized (token_embd_norm.weight/.bias) before the first
                  layer (BLOOM)
  rope_theta, rotary_dim, rope_pairing ("adjacent" | "half")   (rope only)
  rope_scaling    None | {"type": "linear" | "llama3" | "yarn", ...}: per-pair frequency divisors
                  (ops.rope_freq_factors; rope only), and YaRN's scaling of q and k (ops.rope_magnitude)
  head_dim        None (dim / n_heads) or each head's width, when q/k/v are wider or narrower than dim
  qk_norm         True: each head's q and k are RMS-normalized over head_dim (own weights
                  attn_q_norm / attn_k_norm, [head_dim]) before RoPE (Qwen3)
  sliding_window  0/None, or w: the layers flagged in sliding_layers (list of bools) see only
                  the keys i - w + 1 .. i, and turn RoPE with rope_theta_sliding (None: rope_theta)
                  and no rope_scaling (Gemma 3's local layers)
  scaled_embeddings  True: token embeddings times sqrt(dim) (Gemma)
  final_logit_softcap  0/None, or c: logits = c * tanh(logits / c) (Gemma 2)
  activation      "silu" | "gelu" (tanh approximation) | "relu"
  ffn_gated       True: down(act(gate x) * up x)   False: down(act(up x))
  qkv_bias, out_bias, ffn_bias   whether those projections add a bias
  tied_embeddings True: logits use token_embd.weight; False: output.weight

Weights are a dict of float64 arrays named like llama.cpp's GGUF tensors,
matrices row-major [out][in] (y = W @ x):

  token_embd.weight [vocab][dim]            position_embd.weight [context][dim]
  blk.{i}.attn_norm.weight/.bias [dim]      blk.{i}.attn_q.weight [heads*hd][dim]
  blk.{i}.attn_k.weight [kv*hd][dim]        blk.{i}.attn_v.weight [kv*hd][dim]
  blk.{i}.attn_output.weight [dim][heads*hd] (+ .bias on q, k, v, output)
  blk.{i}.ffn_norm.weight/.bias [dim]       blk.{i}.ffn_gate.weight [hidden][dim]
  blk.{i}.ffn_up.weight [hidden][dim]       blk.{i}.ffn_down.weight [dim][hidden]
  output_norm.weight/.bias [dim]            output.weight [vocab][dim]

In the post-norm placement, attn_norm is the norm applied after the attention
residual and ffn_norm the one after the feed-forward residual.
"""

import numpy as np

import attention_variants
import ops


def head_dim(cfg):
    return cfg.get("head_dim") or cfg["dim"] // cfg["n_heads"]


def rope_freq_factors(cfg):
    """The config's RoPE scaling as per-pair frequency divisors (None: plain RoPE)."""
    return ops.rope_freq_factors(cfg.get("rope_scaling"), cfg["rotary_dim"], cfg["rope_theta"])


def _round_input(x, rounding, weight_name):
    """x as an engine that rounds a matrix product's input (e.g. ggml: to 8-bit blocks for K-quant
    weights) feeds it to `weight_name`; unchanged when `rounding` has no entry for that matrix."""
    fn = (rounding or {}).get(weight_name)
    return x if fn is None else np.stack([fn(row) for row in x])


def _product(x, matrix, rounding, weight_name):
    """x @ matrix^T as the engine `rounding` describes computes it: the input rounded, plus the correction a
    rounding may give for a product that uses more than the rounded values (ggml's Q8_1 block sums)."""
    y = _round_input(x, rounding, weight_name) @ matrix.T
    fn = (rounding or {}).get(weight_name)
    return y + fn.correction(x) if hasattr(fn, "correction") else y


def _linear(x, weights, name, with_bias, rounding=None):
    """x @ W^T (+ b): x is [T, in], W is [out][in]."""
    y = _product(x, weights[name + ".weight"], rounding, name + ".weight")
    return y + weights[name + ".bias"] if with_bias else y


def slides(cfg, layer):
    """Whether `layer` attends through the sliding window (and turns RoPE its own way)."""
    return bool(cfg.get("sliding_window")) and bool(cfg["sliding_layers"][layer])


def _norm(cfg, weights, name, x):
    if cfg["norm"] == "layernorm":
        return ops.layer_norm(x, weights[name + ".weight"], weights.get(name + ".bias"), cfg["norm_eps"])
    if cfg["norm"] == "rmsnorm":
        return ops.rms_norm(x, weights[name + ".weight"], cfg["norm_eps"])
    raise ValueError(f"unknown norm {cfg['norm']!r}")


def attention(cfg, weights, layer, x, trace=None, rounding=None, head_scales=None, variant=None, patch=None):
    """Causal multi-head self-attention over a whole sequence x [T, dim].

    Query head h reads key/value head h // (n_heads / n_kv_heads): with as many
    kv heads as heads this is MHA, with fewer it is GQA, with one it is MQA.
    head_scales: optional [n_layers][n_heads] factors on each head's output before
    the output projection (head ablation: 0 switches a head off).
    variant: None (exact softmax) or an --attention spelling (attention_variants.py) computed from the same
    q, k, v instead.
    patch: activation patching (circuits.py): {"head": (layer, head, outputs [T, hd])} puts `outputs` in
    place of that head's output (after its scale) at every position; {"replace": {(layer, head): vector [hd]}}
    puts one vector in place of each listed head's output at every position (mean ablation).
    """
    T = x.shape[0]
    hd, H, KV = head_dim(cfg), cfg["n_heads"], cfg["n_kv_heads"]
    if H % KV:
        raise ValueError("n_heads must be a multiple of n_kv_heads")
    p = f"blk.{layer}."
    q = _linear(x, weights, p + "attn_q", cfg["qkv_bias"], rounding).reshape(T, H, hd)
    k = _linear(x, weights, p + "attn_k", cfg["qkv_bias"], rounding).reshape(T, KV, hd)
    v = _linear(x, weights, p + "attn_v", cfg["qkv_bias"], rounding).reshape(T, KV, hd)
    if cfg.get("qk_norm"):
        q = ops.rms_norm(q, weights[p + "attn_q_norm.weight"], cfg["norm_eps"])
        k = ops.rms_norm(k, weights[p + "attn_k_norm.weight"], cfg["norm_eps"])
    sliding = slides(cfg, layer)
    if cfg["position"] == "rope":
        positions = np.arange(T)
        factors, theta = rope_freq_factors(cfg), cfg["rope_theta"]
        if sliding:
            factors, theta = None, cfg.get("rope_theta_sliding") or theta
        magnitude = ops.rope_magnitude(cfg.get("rope_scaling"))
        q = ops.apply_rope(q, positions, cfg["rotary_dim"], theta, cfg["rope_pairing"], factors, magnitude)
        k = ops.apply_rope(k, positions, cfg["rotary_dim"], theta, cfg["rope_pairing"], factors, magnitude)
    group = H // KV
    mask = ops.causal_mask(T, cfg["sliding_window"] if sliding else None)
    slopes = ops.alibi_slopes(H, cfg.get("alibi_max_bias", 8.0)) if cfg["position"] == "alibi" else None
    heads = []
    for h in range(H):
        kv = h // group
        scale = 1.0 if head_scales is None else head_scales[layer][h]
        if variant is not None and attention_variants.runs_in(variant, layer):
            heads.append(scale * attention_variants.head_output(variant, q[:, h, :], k[:, kv, :], v[:, kv, :], mask))
            continue
        scores = q[:, h, :] @ k[:, kv, :].T / np.sqrt(hd) + mask  # [T queries, T keys]
        if slopes is not None:
            scores = scores + ops.alibi_bias(T, slopes[h])
        probs = ops.softmax(scores)
        if trace is not None:
            trace.setdefault("attention", []).append(probs)
        out = scale * (probs @ v[:, kv, :])
        if patch is not None and patch.get("head") is not None and patch["head"][:2] == (layer, h):
            out = patch["head"][2]
        if patch is not None and (layer, h) in patch.get("replace", {}):
            out = np.broadcast_to(patch["replace"][(layer, h)], out.shape)
        if trace is not None:
            trace.setdefault("head_outputs", []).append(out)
        heads.append(out)
    return _linear(np.concatenate(heads, axis=1), weights, p + "attn_output", cfg["out_bias"], rounding)


def feed_forward(cfg, weights, layer, x, rounding=None, trace=None):
    """trace (a dict) collects the hidden units the down projection reads, one [T, hidden_dim] entry per layer:
    "ffn_pre" (before the activation: the gate projection, or the up projection of a plain feed-forward),
    "ffn_up" (a gated one's up projection; zeros in a plain one) and "ffn_hidden" (the activation)."""
    act = ops.ACTIVATIONS[cfg["activation"]]
    p = f"blk.{layer}."
    up = _linear(x, weights, p + "ffn_up", cfg["ffn_bias"], rounding)
    if cfg["ffn_gated"]:
        pre = _linear(x, weights, p + "ffn_gate", cfg["ffn_bias"], rounding)
        hidden = act(pre) * up
    else:
        pre, hidden = up, act(up)
    if trace is not None:
        trace.setdefault("ffn_pre", []).append(pre)
        trace.setdefault("ffn_up", []).append(up if cfg["ffn_gated"] else np.zeros_like(up))
        trace.setdefault("ffn_hidden", []).append(hidden)
    return _linear(hidden, weights, p + "ffn_down", cfg["ffn_bias"], rounding)


def embed(cfg, weights, tokens):
    x = weights["token_embd.weight"][np.asarray(tokens)]
    if cfg.get("scaled_embeddings"):
        x = x * np.sqrt(cfg["dim"])
    T = x.shape[0]
    if T > cfg["context_length"]:
        raise ValueError("sequence longer than the context length")
    if cfg["position"] == "learned":
        x = x + weights["position_embd.weight"][:T]
    elif cfg["position"] == "sinusoidal":
        x = x + ops.sinusoidal_table(T, cfg["dim"])
    elif cfg["position"] not in ("rope", "alibi"):
        raise ValueError(f"unknown position scheme {cfg['position']!r}")
    return x


def _patch_stream(patch, layer, x):
    """x entering `layer` with activation patching's {"stream": (layer, position, row)} put in."""
    if patch is None or patch.get("stream") is None or patch["stream"][0] != layer:
        return x
    x = x.copy()
    x[patch["stream"][1]] = patch["stream"][2]
    return x


def hidden_states(cfg, weights, tokens, trace=None, rounding=None, head_scales=None, variant=None, patch=None):
    """The final hidden state of every position, [T, dim] (before the classifier).

    trace (a dict) collects "layer_inputs" (x entering each layer, then leaving the last), "layer_outputs",
    "attention", "head_outputs" and the feed-forwards' hidden units (feed_forward()); patch: activation
    patching (circuits.py), the stream entering a layer (n_layers: leaving the last) at one position replaced,
    or one head's output (attention())."""
    x = embed(cfg, weights, tokens)
    if cfg.get("embedding_norm"):
        x = _norm(cfg, weights, "token_embd_norm", x)
    for layer in range(cfg["n_layers"]):
        p = f"blk.{layer}."
        x = _patch_stream(patch, layer, x)
        if trace is not None:
            trace.setdefault("layer_inputs", []).append(x)
        if cfg["norm_placement"] == "pre":
            x = x + attention(cfg, weights, layer, _norm(cfg, weights, p + "attn_norm", x), trace, rounding,
                              head_scales, variant, patch)
            x = x + feed_forward(cfg, weights, layer, _norm(cfg, weights, p + "ffn_norm", x), rounding, trace)
        elif cfg["norm_placement"] == "sandwich":
            attended = attention(cfg, weights, layer, _norm(cfg, weights, p + "attn_norm", x), trace, rounding,
                                 head_scales, variant, patch)
            x = x + _norm(cfg, weights, p + "post_attention_norm", attended)
            fed = feed_forward(cfg, weights, layer, _norm(cfg, weights, p + "ffn_norm", x), rounding, trace)
            x = x + _norm(cfg, weights, p + "post_ffw_norm", fed)
        elif cfg["norm_placement"] == "post":
            x = _norm(cfg, weights, p + "attn_norm", x + attention(cfg, weights, layer, x, trace, rounding,
                                                                  head_scales, variant, patch))
            x = _norm(cfg, weights, p + "ffn_norm", x + feed_forward(cfg, weights, layer, x, rounding, trace))
        else:
            raise ValueError(f"unknown norm placement {cfg['norm_placement']!r}")
        if trace is not None:
            trace.setdefault("layer_outputs", []).append(x)
    x = _patch_stream(patch, cfg["n_layers"], x)
    if trace is not None:
        trace.setdefault("layer_inputs", []).append(x)
    if cfg["norm_placement"] in ("pre", "sandwich"):
        x = _norm(cfg, weights, "output_norm", x)
    return x


def softcap(cfg, logits):
    """Gemma 2's final soft-capping, where the config has a cap."""
    cap = cfg.get("final_logit_softcap")
    return cap * np.tanh(logits / cap) if cap else logits


def classifier(cfg, weights):
    return weights["token_embd.weight"] if cfg["tied_embeddings"] else weights["output.weight"]


def _classifier_name(cfg):
    return "token_embd.weight" if cfg["tied_embeddings"] else "output.weight"


def forward(cfg, weights, tokens, trace=None, rounding=None, head_scales=None, variant=None, patch=None):
    """Logits [T, vocab] for every position of the token sequence (causal).

    rounding: optional {weight name: function of a row}, applied to the input of each product with that
    matrix, to reproduce an engine that rounds those inputs (the fixtures' logits never use it).
    head_scales: head ablation, and variant: the attention computed, as in attention()."""
    h = hidden_states(cfg, weights, tokens, trace, rounding, head_scales, variant, patch)
    return softcap(cfg, _product(h, classifier(cfg, weights), rounding, _classifier_name(cfg)))


def greedy(cfg, weights, prompt, n_new, rounding=None):
    """Greedy continuation (recomputes the whole prefix each step: slow but plain)."""
    tokens = list(prompt)
    out_matrix = classifier(cfg, weights)
    for _ in range(n_new):
        last = hidden_states(cfg, weights, tokens, rounding=rounding)[-1:]
        tokens.append(int(np.argmax(softcap(cfg, _product(last, out_matrix, rounding, _classifier_name(cfg))[0]))))
    return tokens[len(prompt):]
