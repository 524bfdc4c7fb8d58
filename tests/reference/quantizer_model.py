#!/usr/bin/python3
"""The reference's side of the llama.cpp quantizer cross-check (tests/peers/quantizer.test.mjs).

    /usr/bin/python3 tests/reference/quantizer_model.py write OUT.gguf
        An F32 random-weight `llama` model (llama-kquants' shape: dim 256, so every row is whole 256-value
        super-blocks; the tiny 64-token vocabulary) for llama.cpp's quantizer to turn into every file type.

    /usr/bin/python3 tests/reference/quantizer_model.py check QUANTIZED.gguf INSPECT.json
        Reads the file llama.cpp's quantizer wrote, decodes every tensor as ggml defines its type, and prints
        one JSON object comparing it with glassbox's run of it (`glassbox inspect --json`, greedy, every
        logit listed): the worst logit difference relative to each step's scale (the reference rounding the
        inputs of the products glassbox computes with integer dots as glassbox does,
        make_fixtures.int_dot_inputs), the reference's greedy continuation with that rounding, the reference's greedy
        continuation of glassbox's prompt (plain, and with the inputs of each product rounded as ggml's CPU
        code rounds them for that weight type: what llama.cpp must reproduce), and each tensor's type.
"""

import json
import sys

import numpy as np

import configs
import ggml_quants
import gguf
import gguf_export
import make_fixtures
import model
import tiny_vocab
from random_model import random_weights

SEED = 240
GREEDY_TOKENS = 16
# The test's prompt, "once upon a time" in the tiny vocabulary with BOS first (the test checks that both
# engines tokenize it so).
PROMPT_IDS = [63, 33, 14, 2, 1, 13, 20, 33, 26, 24, 6, 15, 2]

# The 8-bit blocks ggml's CPU code turns a product's input into, by weight type (its vec_dot_type); F32
# weights take the input as it is. A type missing here fails the check rather than being compared wrongly.
GGML_INPUT_ROUNDING = {
    "F32": None,
    "Q4_0": ggml_quants.round_like_q8_0, "Q5_0": ggml_quants.round_like_q8_0, "Q8_0": ggml_quants.round_like_q8_0,
    "Q4_1": ggml_quants.Q8_1Product, "Q5_1": ggml_quants.Q8_1Product,  # built with the weights' block mins
    "Q2_K": ggml_quants.round_like_q8_k, "Q3_K": ggml_quants.round_like_q8_k, "Q4_K": ggml_quants.round_like_q8_k,
    "Q5_K": ggml_quants.round_like_q8_k, "Q6_K": ggml_quants.round_like_q8_k,
    "IQ4_NL": ggml_quants.round_like_q8_0, "IQ4_XS": ggml_quants.round_like_q8_k,
}


def config():
    return configs.as_float32_file(configs.KQUANT_LLAMA)


def write(path):
    cfg = config()
    # Matrices of gain about 2 and token embeddings that matter: greedy decoding wanders over many tokens
    # rather than settling on one, with margins between the top two logits far above float rounding.
    weights = random_weights(cfg, SEED, matrix_std=cfg["dim"] ** -0.5, embedding_std=0.3, output_std=0.3)
    stored = gguf_export.write_llama(path, cfg, weights, "quantizer-source", tiny_vocab.bpe_metadata("llama-bpe"))
    tokens = list(PROMPT_IDS)
    for _ in range(GREEDY_TOKENS):
        last = model.forward(cfg, stored, tokens)[-1]
        top = np.sort(last)
        if top[-1] - top[-2] < 1e-3 * max(1.0, np.abs(last).max()):
            raise RuntimeError(f"the source model's greedy decoding nears a tie after {tokens}")
        tokens.append(int(np.argmax(last)))
    if len(set(tokens[len(PROMPT_IDS):])) < 8:
        raise RuntimeError(f"the source model's greedy decoding is too repetitive: {tokens}")
    print(json.dumps({"file": path, "config": cfg}))


def read_quantized(path, cfg):
    """{name: float64 weights in the reference's layout}, {name: type name}, and {name: block mins [rows,
    blocks]} of the Q4_1 / Q5_1 matrices, of a llama file."""
    f = gguf.GGUFFile.open(path)
    weights, types, mins = {}, {}, {}
    min_blocks = {gguf.GGML_Q4_1: ggml_quants.Q4_1_BLOCK_BYTES, gguf.GGML_Q5_1: ggml_quants.Q5_1_BLOCK_BYTES}
    for t in f.tensor_infos:
        w = f.tensor(t.name)
        if t.ggml_type in min_blocks:
            start, count = f.data_offset + t.offset, int(np.prod(t.ne))
            data = f.data[start:start + gguf.tensor_nbytes(t.ne, t.ggml_type)]
            mins[t.name] = ggml_quants.block_mins(data, count, min_blocks[t.ggml_type]).reshape(w.shape[0], -1)
        for head_rows, heads in ((".attn_q.", "n_heads"), (".attn_k.", "n_kv_heads")):
            if head_rows in t.name:
                w = gguf_export.llama_unpermute(w, cfg[heads])
                if t.name in mins:
                    mins[t.name] = gguf_export.llama_unpermute(mins[t.name], cfg[heads])
        weights[t.name], types[t.name] = w, gguf.TYPE_NAMES[t.ggml_type]
    return weights, types, mins


def greedy_with_margins(cfg, weights, prompt, rounding=None):
    """The greedy continuation, and at each step the gap between the top two logits over the step's scale
    (max(1, max |logit|)): how far from a tie each choice was."""
    tokens, margins = list(prompt), []
    for _ in range(GREEDY_TOKENS):
        last = model.forward(cfg, weights, tokens, rounding=rounding)[-1]
        top = np.sort(last)
        margins.append(float((top[-1] - top[-2]) / max(1.0, np.abs(last).max())))
        tokens.append(int(np.argmax(last)))
    return tokens[len(prompt):], margins


def tie_watch(rounding, n_tokens, near_ties):
    """rounding (None or {matrix: round_like_q8_0}) noting, per matrix, the positions whose input lies within
    make_fixtures.MIN_TIE_DISTANCE of a rounding tie (model.forward rounds each position's row in order)."""
    if rounding is None:
        return None

    def watched(name):
        calls = [0]

        def fn(x):
            if ggml_quants.q8_0_tie_distance(x) < make_fixtures.MIN_TIE_DISTANCE:
                near_ties.setdefault(name, []).append(calls[0] % n_tokens)
            calls[0] += 1
            return ggml_quants.round_like_q8_0(x)
        return fn
    return {name: watched(name) for name in rounding}


def check(path, inspect_path):
    cfg = config()
    weights, types, mins = read_quantized(path, cfg)
    doc = json.load(open(inspect_path))
    tokens = [t["id"] for t in doc["tokens"]]
    prompt = tokens[:doc["prompt_length"]]
    # glassbox's own rounding: the inputs of its integer-dot matrices (Q8_0, Q4_0, Q4_K, Q5_K, Q6_K, IQ4_NL,
    # IQ4_XS) to Q8_0 blocks.
    glassbox_rounding = make_fixtures.int_dot_inputs(path)
    near_ties = {}  # matrix -> positions whose rounded input lies within MIN_TIE_DISTANCE of a rounding tie
    logits = model.forward(cfg, weights, tokens, rounding=tie_watch(glassbox_rounding, len(tokens), near_ties))
    # A near tie may round the other way in glassbox's float32 (make_fixtures.MIN_TIE_DISTANCE) and move the
    # logits of its position, and of every later one through the cache unless the matrix is the classifier:
    # the strict comparison covers the other positions; every position gets a loose bound.
    unsure = set()
    for name, positions in near_ties.items():
        unsure |= set(positions) if name == "output.weight" else set(range(min(positions), len(tokens)))
    # As reference_fixtures_test.cpp measures: |ours - reference| over max(1, max |reference|) of the position.
    worst, worst_everywhere, compared = 0.0, 0.0, 0
    for step in doc["steps"]:
        if len(step["candidates"]) != cfg["vocab_size"]:
            raise ValueError("the inspection must list every token's logit (--candidates = the vocabulary)")
        ref = logits[step["position"]]
        ours = np.zeros(cfg["vocab_size"])
        for c in step["candidates"]:
            ours[c["id"]] = c["logit"]
        error = float(np.max(np.abs(ours - ref)) / max(1.0, float(np.max(np.abs(ref)))))
        worst_everywhere = max(worst_everywhere, error)
        if step["position"] not in unsure:
            worst, compared = max(worst, error), compared + 1
    rounding = {}
    for name, kind in types.items():
        if name == "token_embd.weight" or name.endswith(("norm.weight", ".bias")):
            continue  # a row lookup or an element-wise product: no rounded input
        if kind not in GGML_INPUT_ROUNDING:
            raise ValueError(f"{name}: no known rounding of ggml's inputs for {kind} weights")
        if GGML_INPUT_ROUNDING[kind]:
            rounding[name] = GGML_INPUT_ROUNDING[kind](mins[name]) if name in mins else GGML_INPUT_ROUNDING[kind]
    result = {
        "types": types,
        "worst_relative_error": worst,
        "steps_compared": len(doc["steps"]),
        "steps_clear_of_ties": compared,
        "worst_relative_error_everywhere": worst_everywhere,
        "prompt_ids": prompt,
        "glassbox_greedy": tokens[doc["prompt_length"]:],
        "reference_greedy": model.greedy(cfg, weights, prompt, GREEDY_TOKENS),
        "reference_greedy_glassbox_inputs": model.greedy(cfg, weights, prompt, GREEDY_TOKENS,
                                                         rounding=glassbox_rounding),
    }
    result["reference_greedy_ggml_inputs"], result["ggml_margins"] = greedy_with_margins(cfg, weights, prompt, rounding)
    print(json.dumps(result))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        write(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
