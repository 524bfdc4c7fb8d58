"""The neurons fixtures, for glassbox/neurons.hpp (top_neurons): a model's feed-forward hidden units at every
layer and position of a prompt, from model.py's forward pass in float64, and one question asked of them, written
as STEM.neurons.json beside the model's file.

{tokens, gated,
 layers: [{pre, up, hidden}, ...]   one per layer, each [T][hidden_dim]: pre is the gate projection (gated) or
                                    the up projection (plain), up a gated feed-forward's up projection (zeros in
                                    a plain one), hidden what the down projection reads (act(pre) * up or act(pre))
 ask: {layer, position, k, per_neuron,
       top: [{neuron, activation, pre, up}, ...]          the k neurons of largest |hidden| at the position
       peaks: [[{position, token, activation}, ...], ...]}  each one's largest activations over the prompt}

The ask is chosen (from the last layer and position backwards) where its answer is unambiguous in float32:
neighbouring |activations| in the top list and neighbouring activations in each peak list are at least MARGIN
apart (scaled by the layer's largest value), ten times the engine test's tolerance, so a test can require the
same neurons and positions in the same order.
"""

import json

import numpy as np

import model

K, PER_NEURON = 5, 3
MARGIN = 1e-3


def _apart(values, margin):
    """Whether the sorted-descending `values` are each more than `margin` from the next."""
    return all(a - b > margin for a, b in zip(values, values[1:]))


def _ask(tokens, layers):
    for layer in reversed(range(len(layers))):
        hidden = layers[layer]["hidden"]
        margin = MARGIN * max(1.0, max(np.abs(layers[layer][key]).max() for key in ("pre", "up", "hidden")))
        for position in reversed(range(len(tokens))):
            row = hidden[position]
            order = sorted(range(row.size), key=lambda n: (-abs(row[n]), n))
            if not _apart([abs(row[n]) for n in order[:K + 1]], margin):
                continue
            top = order[:K]
            peaks = []
            for n in top:
                column = hidden[:, n]
                by_value = sorted(range(len(tokens)), key=lambda p: (-column[p], p))
                if not _apart([column[p] for p in by_value[:PER_NEURON + 1]], margin):
                    break
                peaks.append([{"position": p, "token": tokens[p], "activation": float(column[p])}
                              for p in by_value[:PER_NEURON]])
            if len(peaks) < K:
                continue
            pre, up = layers[layer]["pre"], layers[layer]["up"]
            return {"layer": layer, "position": position, "k": K, "per_neuron": PER_NEURON,
                    "top": [{"neuron": n, "activation": float(row[n]), "pre": float(pre[position, n]),
                             "up": float(up[position, n])} for n in top],
                    "peaks": peaks}
    raise RuntimeError(f"no layer and position of {tokens} has top neurons {MARGIN} apart")


def write(path, cfg, weights, tokens):
    trace = {}
    model.forward(cfg, weights, tokens, trace=trace)
    layers = [{key: trace["ffn_" + key][layer] for key in ("pre", "up", "hidden")}
              for layer in range(cfg["n_layers"])]
    doc = {
        "tokens": list(tokens),
        "gated": bool(cfg["ffn_gated"]),
        "layers": [{key: value.tolist() for key, value in layer.items()} for layer in layers],
        "ask": _ask(list(tokens), layers),
    }
    with open(path, "w") as f:
        json.dump(doc, f)
