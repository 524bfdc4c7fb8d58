#!/usr/bin/python3
"""A random-weight model carrying a real vocabulary read from a Hugging Face tokenizer.json, for the
llama.cpp cross-check (tests/peers/llama-cpp.test.mjs) of vocabularies whose GGUF files are not in
../shared/tokenizer-vectors (Llama 3, Qwen2):

    /usr/bin/python3 tests/reference/vocab_model.py TOKENIZER_JSON {llama3|qwen2} OUT.gguf

llama3: arch `llama`, pre-tokenizer "llama-bpe", BOS <|begin_of_text|>, EOS <|end_of_text|>.
qwen2:  arch `qwen2`, pre-tokenizer "qwen2", BOS = EOS = <|endoftext|> (as Qwen2's GGUF files have them).
Neither file has tokenizer.ggml.add_bos_token (see tokenizer_json.ggml_vocab_from_tokenizer_json).
The model is small (dim 32, tied embeddings, so the embedding table is most of the file); prints a JSON
line {"path", "n_vocab", "architecture"}.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import configs  # noqa: E402
import gguf_export  # noqa: E402
import tokenizer_json  # noqa: E402
from random_model import random_weights  # noqa: E402

KINDS = {
    # kind: (architecture, base config, pre-tokenizer, BOS, EOS, seed)
    "llama3": ("llama", configs.HF_LLAMA, "llama-bpe", "<|begin_of_text|>", "<|end_of_text|>", 310),
    "qwen2": ("qwen2", configs.HF_QWEN2, "qwen2", "<|endoftext|>", "<|endoftext|>", 311),
}


def main(argv):
    if len(argv) != 4 or argv[2] not in KINDS:
        print(__doc__)
        return 2
    source, kind, out = argv[1], argv[2], argv[3]
    arch, base, pre, bos, eos, seed = KINDS[kind]
    with open(source, encoding="utf-8") as f:
        tj = json.load(f)
    kvs, n_vocab = tokenizer_json.ggml_vocab_from_tokenizer_json(tj, pre, bos, eos)
    cfg = configs.as_float32_file(configs.real_vocab(base, n_vocab, dim=32, hidden_dim=64, rotary_dim=8,
                                                     tied_embeddings=True))
    # as make_fixtures.real_vocab: small embeddings so that greedy decoding wanders
    weights = random_weights(cfg, seed, matrix_std=0.25, embedding_std=0.05)
    writer = gguf_export.write_llama if arch == "llama" else gguf_export.write_qwen2
    writer(out, cfg, weights, f"{kind}-vocab", kvs)
    print(json.dumps({"path": out, "n_vocab": n_vocab, "architecture": arch}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
