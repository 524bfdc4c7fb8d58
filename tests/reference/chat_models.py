#!/usr/bin/python3
"""Small random-weight GGUF files that carry the chat templates of real instruct models, for the page's chat
(tests/browser/chat.test.mjs) and the llama.cpp cross-check of special-token parsing
(tests/peers/llama-cpp.test.mjs):

    /usr/bin/python3 tests/reference/chat_models.py OUT_DIR

writes OUT_DIR/chat-<name>.gguf for each template in tests/data/chat-templates/ (and chat-broken.gguf, whose
template fails) and prints one JSON line per
file: {"path", "name", "n_vocab", "specials" (spelling: id), "bos", "eos" (spellings), "end" (the id that
ends a reply)}.

The vocabulary: the 256 byte pieces of GPT-2's byte mapping (so any text encodes, byte by byte; no merges),
then the template's special tokens with the types, BOS, EOS and end-of-turn ids their real GGUF files give
them (or, where noted, leave out: Qwen's files name no end of turn, so <|im_end|> ends a reply by its
spelling alone).

The weights are random but shaped so that a reply ends by itself within a few tokens: every token's
embedding carries the same large first component, so the last hidden state always points that way, and only
the end-of-turn token's classifier row reads it (END_PULL), which makes it one of the likeliest tokens at
every step without always being the likeliest.
"""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import configs  # noqa: E402
import gguf  # noqa: E402
import gguf_export  # noqa: E402
from random_model import random_weights, round_to_f32  # noqa: E402

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "chat-templates")
CONTROL, USER_DEFINED = 3, 4

# name: (template file, pre-tokenizer, [(special token, type)], bos, eos, end of turn or None,
#        end of message or None, add_bos)
MODELS = {
    "smollm2": ("smollm2-instruct.jinja", "gpt-2",
                [("<|endoftext|>", CONTROL), ("<|im_start|>", CONTROL), ("<|im_end|>", CONTROL)],
                "<|im_start|>", "<|im_end|>", None, None, False),
    "qwen2.5": ("qwen2.5-instruct.jinja", "qwen2",
                [("<|endoftext|>", CONTROL), ("<|im_start|>", CONTROL), ("<|im_end|>", CONTROL)],
                "<|endoftext|>", "<|endoftext|>", None, None, False),
    "qwen3": ("qwen3.jinja", "qwen2",
              [("<|endoftext|>", CONTROL), ("<|im_start|>", CONTROL), ("<|im_end|>", CONTROL),
               ("<think>", USER_DEFINED), ("</think>", USER_DEFINED)],
              "<|endoftext|>", "<|im_end|>", None, None, False),
    "gemma3": ("gemma-3-it.jinja", "gpt-2",
               [("<pad>", CONTROL), ("<eos>", CONTROL), ("<bos>", CONTROL), ("<unk>", 2),
                ("<start_of_turn>", CONTROL), ("<end_of_turn>", CONTROL)],
               "<bos>", "<eos>", "<end_of_turn>", None, True),
    "llama3.2": ("llama-3.2-instruct.jinja", "llama-bpe",
                 [("<|begin_of_text|>", CONTROL), ("<|end_of_text|>", CONTROL),
                  ("<|start_header_id|>", CONTROL), ("<|end_header_id|>", CONTROL),
                  ("<|eom_id|>", CONTROL), ("<|eot_id|>", CONTROL)],
                 "<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>", "<|eom_id|>", True),
    # Not a real model's: a template that fails for every conversation (as Gemma's fails for two user turns in
    # a row), for the page's error message.
    "broken": (None, "gpt-2",
               [("<|endoftext|>", CONTROL), ("<|im_start|>", CONTROL), ("<|im_end|>", CONTROL)],
               "<|im_start|>", "<|im_end|>", None, None, False),
}
BROKEN_TEMPLATE = "{{ raise_exception('This template takes no user messages') }}"
# The end-of-turn row's weight on the shared direction, per model: tuned by hand so that each model's greedy
# replies to the tests' messages end after a few tokens (too strong: every reply is empty; too weak: none ends).
END_PULL = {"broken": 0.5, "smollm2": 0.5, "qwen2.5": 0.5, "qwen3": 0.5, "gemma3": 0.3, "llama3.2": 0.5}
SHARED = 4.0    # the shared first component of every embedding


def byte_pieces():
    """GPT-2's printable stand-ins for the 256 bytes, in byte order."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    pieces, extra = {}, 0
    for b in range(256):
        if b in printable:
            pieces[b] = chr(b)
        else:
            pieces[b] = chr(256 + extra)
            extra += 1
    return [pieces[b] for b in range(256)]


def write(out_dir, name, seed):
    template_file, pre, specials, bos, eos, eot, eom, add_bos = MODELS[name]
    if template_file is None:
        template = BROKEN_TEMPLATE
    else:
        with open(os.path.join(TEMPLATES, template_file), encoding="utf-8") as f:
            template = f.read()
    tokens = byte_pieces() + [s for s, _ in specials]
    types = [1] * 256 + [t for _, t in specials]
    ids = {s: 256 + i for i, (s, _) in enumerate(specials)}
    kvs = [
        ("tokenizer.ggml.model", gguf.string("gpt2")),
        ("tokenizer.ggml.pre", gguf.string(pre)),
        ("tokenizer.ggml.tokens", gguf.array(gguf.STRING, tokens)),
        ("tokenizer.ggml.token_type", gguf.array(gguf.INT32, types)),
        ("tokenizer.ggml.merges", gguf.array(gguf.STRING, [])),
        ("tokenizer.ggml.bos_token_id", gguf.u32(ids[bos])),
        ("tokenizer.ggml.eos_token_id", gguf.u32(ids[eos])),
        ("tokenizer.ggml.add_bos_token", gguf.boolean(add_bos)),
    ]
    if eot:
        kvs.append(("tokenizer.ggml.eot_token_id", gguf.u32(ids[eot])))
    if eom:
        kvs.append(("tokenizer.ggml.eom_token_id", gguf.u32(ids[eom])))
    kvs.append(("tokenizer.chat_template", gguf.string(template)))

    n_vocab = len(tokens)
    cfg = configs.as_float32_file(configs.real_vocab(configs.HF_LLAMA, n_vocab, dim=32, hidden_dim=64,
                                                     rotary_dim=8, context_length=512))
    weights = random_weights(cfg, seed, matrix_std=0.05, embedding_std=0.05, output_std=1.0)
    end = ids[eot or eos] if name != "qwen2.5" else ids["<|im_end|>"]
    embedding = weights["token_embd.weight"].copy()
    embedding[:, 0] = SHARED
    output = weights["output.weight"].copy()
    output[:, 0] = 0.0
    output[end, 0] = END_PULL[name]
    weights["token_embd.weight"] = round_to_f32(embedding)
    weights["output.weight"] = round_to_f32(output)
    path = os.path.join(out_dir, f"chat-{name}.gguf")
    gguf_export.write_llama(path, cfg, weights, f"chat-{name}", kvs)
    return {"path": path, "name": name, "n_vocab": n_vocab, "specials": ids, "bos": bos, "eos": eos, "end": end}


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    os.makedirs(argv[1], exist_ok=True)
    for seed, name in enumerate(MODELS, start=400):
        print(json.dumps(write(argv[1], name, seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
