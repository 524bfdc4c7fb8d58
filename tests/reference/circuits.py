"""Direct logit attribution and activation patching in float64, from model.py's forward pass, for the engine's
glassbox/logit_attribution.hpp and glassbox/activation_patching.hpp (docs/inspect.md).

attribution(cfg, weights, tokens, position, token): the logit of `token` at `position` (before any soft-cap)
split into the embedding (the stream entering layer 0), each head (model.attention with every other head's
scale 0 and no output bias: W_o[:, slice h] o_h), each feed-forward (its output less the down projection's
bias) and the biases (attention output and down-projection biases, the final norm's bias), through the final
norm with its scale at the position held fixed (RMSNorm: / rms * weight; LayerNorm: each part centred first).
Sandwich models' post-sub-block norms are held fixed the same way, at their own input's statistics. Post-LN
models have no such split: None.

patching(cfg, weights, clean, corrupt, target): metric = log p(target) at the last position; for every layer
l = 0..n_layers and position p, the corrupt run with the stream entering layer l at p replaced by the clean
run's; for every head, the corrupt run with that head's output at every position replaced by the clean run's.
Effects (metric_patched - metric_corrupt) / (metric_clean - metric_corrupt). Every cell is run (no shortcut).
"""

import numpy as np

import model


def _fixed_norm(cfg, weight, total):
    """The norm with its statistics held at those of `total` (what it really normalizes), for parts of it."""
    if cfg["norm"] == "layernorm":
        sigma = np.sqrt(np.var(total) + cfg["norm_eps"])
        return lambda part: weight * (part - part.mean()) / sigma
    rms = np.sqrt(np.mean(total * total) + cfg["norm_eps"])
    return lambda part: weight * part / rms


def attribution(cfg, weights, tokens, position, token):
    if cfg["norm_placement"] == "post":
        return None
    L, H = cfg["n_layers"], cfg["n_heads"]
    x = model.embed(cfg, weights, tokens)
    if cfg.get("embedding_norm"):
        x = model._norm(cfg, weights, "token_embd_norm", x)
    embedding = x[position].copy()
    no_out_bias = dict(cfg, out_bias=False)
    heads, mlps, biases = [], [], []
    sandwich = cfg["norm_placement"] == "sandwich"
    for layer in range(L):
        p = f"blk.{layer}."
        a_in = model._norm(cfg, weights, p + "attn_norm", x)
        full = model.attention(cfg, weights, layer, a_in)
        parts = []
        for h in range(H):
            only = [[1.0 if (l, g) == (layer, h) else 0.0 for g in range(H)] for l in range(L)]
            parts.append(model.attention(no_out_bias, weights, layer, a_in, head_scales=only)[position])
        bias = weights[p + "attn_output.bias"] if cfg["out_bias"] else np.zeros(cfg["dim"])
        if sandwich:
            post = _fixed_norm(cfg, weights[p + "post_attention_norm.weight"], full[position])
            parts, bias = [post(v) for v in parts], post(bias)
            full = model._norm(cfg, weights, p + "post_attention_norm", full)
        heads.append(parts)
        biases.append(bias)
        x = x + full
        fed = model.feed_forward(cfg, weights, layer, model._norm(cfg, weights, p + "ffn_norm", x))
        bias = weights[p + "ffn_down.bias"] if cfg["ffn_bias"] else np.zeros(cfg["dim"])
        part = fed[position] - bias
        if sandwich:
            post = _fixed_norm(cfg, weights[p + "post_ffw_norm.weight"], fed[position])
            part, bias = post(part), post(bias)
            fed = model._norm(cfg, weights, p + "post_ffw_norm", fed)
        mlps.append(part)
        biases.append(bias)
        x = x + fed
    final = x[position]
    u = model.classifier(cfg, weights)[token]
    norm = _fixed_norm(cfg, weights["output_norm.weight"], final)
    logit_of = lambda part: float(u @ norm(part))
    final_bias = weights.get("output_norm.bias") if cfg["norm"] == "layernorm" else None
    return {
        "position": position,
        "token": token,
        "logit": float(u @ model._norm(cfg, weights, "output_norm", final[None])[0]),
        "embedding": logit_of(embedding),
        "heads": [[logit_of(v) for v in layer] for layer in heads],
        "mlp": [logit_of(v) for v in mlps],
        "bias": sum(logit_of(v) for v in biases) + (float(u @ final_bias) if final_bias is not None else 0.0),
    }


def _log_softmax(v):
    z = v - v.max()
    return z - np.log(np.exp(z).sum())


def patching(cfg, weights, clean, corrupt, target=None):
    L, H, T = cfg["n_layers"], cfg["n_heads"], len(clean)
    assert len(corrupt) == T
    trace = {}
    clean_logits = model.forward(cfg, weights, clean, trace=trace)[-1]
    if target is None:
        target = int(np.argmax(clean_logits))
    metric = lambda patch: float(_log_softmax(model.forward(cfg, weights, corrupt, patch=patch)[-1])[target])
    metric_clean = float(_log_softmax(clean_logits)[target])
    metric_corrupt = metric(None)
    gap = metric_clean - metric_corrupt
    effect = lambda m: 0.0 if abs(gap) < 1e-6 else (m - metric_corrupt) / gap
    stream = trace["layer_inputs"]  # L + 1 entries, [T, dim] each
    residual = [[metric({"stream": (l, p, stream[l][p])}) for p in range(T)] for l in range(L + 1)]
    outputs = trace["head_outputs"]  # layer-major, [T, hd] each
    heads = [[metric({"head": (l, h, outputs[l * H + h])}) for h in range(H)] for l in range(L)]
    return {
        "clean": list(clean), "corrupt": list(corrupt), "target": target,
        "metric_clean": metric_clean, "metric_corrupt": metric_corrupt,
        "residual_metric": residual, "head_metric": heads,
        "residual": [[effect(m) for m in row] for row in residual],
        "heads": [[effect(m) for m in row] for row in heads],
    }


def mean_ablation(cfg, weights, tokens, heads):
    """Mean ablation: each (layer, head) in `heads` replaced at every position by its output averaged over
    `tokens` in the model as trained. The KL(trained || ablated) of the next-token distributions at every
    position, in bits."""
    trace = {}
    trained = model.forward(cfg, weights, tokens, trace=trace)
    outputs = trace["head_outputs"]  # layer-major, [T, hd] each
    H = cfg["n_heads"]
    means = {(l, h): outputs[l * H + h].mean(axis=0) for l, h in heads}
    ablated = model.forward(cfg, weights, tokens, patch={"replace": means})
    kl = []
    for p_logits, q_logits in zip(trained, ablated):
        log_p, log_q = _log_softmax(p_logits), _log_softmax(q_logits)
        kl.append(float(np.sum(np.exp(log_p) * (log_p - log_q)) / np.log(2.0)))
    return {"heads": [list(h) for h in heads], "kl_bits": kl}
