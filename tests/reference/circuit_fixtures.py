"""The circuits fixtures (circuits.py): for a model and a clean prompt, a corrupt prompt of the same length, the
patching grids and three logit attributions, written as STEM.circuits.json beside the model's file.

{clean, corrupt, target, metric_clean, metric_corrupt, residual, heads, residual_metric, head_metric,
 attributions: [{position, token, logit, embedding, heads, mlp, bias}, ...] or null (Post-LN),
 mean_ablation: {heads: [[layer, head], ...], kl_bits: [KL at every position of the clean prompt]}}

The corrupt prompt changes two tokens of the clean one (seeded), chosen so that the metric moves by at least
MIN_GAP nats: the effects divide by that gap, and a small one would magnify float32's rounding in the
engine's effects past the tests' tolerance.
"""

import json

import numpy as np

import circuits
import model

MIN_GAP = 0.25


def corrupt_prompt(cfg, weights, clean, seed, low=0):
    clean_logits = model.forward(cfg, weights, clean)[-1]
    target = int(np.argmax(clean_logits))
    metric_clean = float(circuits._log_softmax(clean_logits)[target])
    rng = np.random.default_rng(seed)
    for _ in range(50):
        corrupt = list(clean)
        for p in (2, len(clean) - 3):
            corrupt[p] = int(rng.integers(low, cfg["vocab_size"]))
        metric = float(circuits._log_softmax(model.forward(cfg, weights, corrupt)[-1])[target])
        if abs(metric_clean - metric) >= MIN_GAP:
            return corrupt, target
    raise RuntimeError(f"no corruption of {clean} moves log p({target}) by {MIN_GAP}")


def write(path, cfg, weights, clean, seed, low=0):
    corrupt, target = corrupt_prompt(cfg, weights, clean, seed, low)
    doc = circuits.patching(cfg, weights, clean, corrupt, target)
    logits = model.forward(cfg, weights, clean)
    last = len(clean) - 1
    runner_up = int(np.argsort(logits[last])[-2])
    early = 3
    asks = [(last, target), (last, runner_up), (early, int(np.argmax(logits[early])))]
    attributions = [circuits.attribution(cfg, weights, clean, p, t) for p, t in asks]
    doc["attributions"] = None if attributions[0] is None else attributions
    if attributions[0] is not None:
        for a in attributions:
            total = a["embedding"] + a["bias"] + sum(map(sum, a["heads"])) + sum(a["mlp"])
            if abs(total - a["logit"]) > 1e-9 * max(1.0, abs(a["logit"])):
                raise RuntimeError(f"{path}: the parts add up to {total}, the logit is {a['logit']}")
    last_layer = cfg["n_layers"] - 1
    doc["mean_ablation"] = circuits.mean_ablation(cfg, weights, clean, [(0, cfg["n_heads"] - 1), (last_layer, 0)])
    with open(path, "w") as f:
        json.dump(doc, f)
