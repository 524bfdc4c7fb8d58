"""Per-token log-probabilities of a text under stories260K (models/stories260K.bin), exact and with the
attention variants the engine's `glassbox score --attention` offers (attention_variants.py).

    /usr/bin/python3 tests/reference/score_fixtures.py OUT.json [MODEL.bin]

Writes {text, ids, variants: {spelling: {logprobs, loss}}}: logprobs[i] = log p(ids[i + 1] | ids[0..i])
(natural log, float64 forward pass), loss = mean of their negatives. The ids are what tok512.bin encodes the
text into with BOS first (the engine's test checks it encodes the same); the reference has no tokenizer.
make_fixtures.py calls write() when the model file is present.
"""

import json
import os
import sys

import numpy as np

import llama2c
import model

TEXT = "Once upon a time, there was a little girl named Lily. She loved to play outside in the park."
IDS = [1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410,
       408, 419, 292, 411, 322, 265, 282, 295, 433, 426]  # tok512.bin's encoding of TEXT, BOS first
VARIANTS = ["exact", "window:4", "window:16", "global-window:1,4", "global-window:2,8", "linear", "low-rank:4",
            "performer:16", "performer:256:7", "window:2@3", "linear@1-2", "low-rank:2@2-"]
DEFAULT_MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "stories260K.bin")


def log_softmax(logits):
    z = logits - logits.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def score(cfg, weights, ids, variant):
    logprobs = log_softmax(model.forward(cfg, weights, ids, variant=variant))
    lp = [float(logprobs[i, ids[i + 1]]) for i in range(len(ids) - 1)]
    return {"logprobs": lp, "loss": float(-np.mean(lp))}


def write(path, model_path=DEFAULT_MODEL):
    cfg, weights = llama2c.read(model_path)
    doc = {"text": TEXT, "ids": IDS, "model": "stories260K.bin",
           "variants": {v: score(cfg, weights, IDS, v) for v in VARIANTS}}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        sys.exit(2)
    write(*sys.argv[1:])
