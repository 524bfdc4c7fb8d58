"""Tiny but well-formed `tokenizer.ggml.*` metadata for the 64-token test models.

The tiny models need 64 tokens to keep the expected-logits files small, so they
cannot carry a real vocabulary. Instead they get a miniature byte-level BPE
vocabulary ("gpt2" tokenizer model): "Ċ" (the newline byte), "Ġ" (the space
byte), 22 letters, 39 merged pieces each with its merge rule, and
<|endoftext|> (id 63, bos = eos) last. Every merged piece is the concatenation
of two earlier tokens. llama.cpp loads files with this vocabulary.

Why not a tiny SentencePiece ("llama") vocabulary: llama.cpp's SPM tokenizer
falls back to the byte tokens <0x00>..<0xFF> for any character not in the
vocabulary and assumes all 256 exist (a missing one throws std::out_of_range
and aborts the process), and 256 byte tokens do not fit in 64.
"""

import gguf

LETTERS = list("etaoinshrdlucmfwygpbvk")
# Merged pieces, written with "_" for the word-start marker ("▁" or "Ġ").
MERGED = ["_t", "he", "_a", "in", "th", "er", "_the", "an", "re", "on", "_s", "at",
          "en", "nd", "_w", "ou", "ed", "_o", "is", "it", "_h", "or", "ing", "_c",
          "es", "ar", "_b", "al", "le", "_f", "ll", "_m", "_d", "ro", "_p", "st", "ha",
          "_i", "ve"]
SIZE = 64


def _first_split(piece, known):
    """The first (left, right) split of `piece` into two known tokens."""
    for k in range(1, len(piece)):
        if piece[:k] in known and piece[k:] in known:
            return piece[:k], piece[k:]
    raise ValueError(f"{piece!r} cannot be built from earlier tokens")


def bpe_metadata(pre="gpt-2"):
    """Ordered (key, Value) pairs of a 64-token byte-level BPE vocabulary."""
    tokens = ["\u010a", "\u0120"] + LETTERS  # Ċ = byte 0x0A, Ġ = byte 0x20 in GPT-2's byte map
    merged = [m.replace("_", "\u0120") for m in MERGED][:SIZE - 1 - len(tokens)]
    merges = []
    known = set(tokens)
    for piece in merged:
        left, right = _first_split(piece, known)
        merges.append(f"{left} {right}")
        known.add(piece)
    tokens += merged + ["<|endoftext|>"]
    eos = len(tokens) - 1
    types = [1] * eos + [3]
    assert len(tokens) == SIZE
    return [
        ("tokenizer.ggml.model", gguf.string("gpt2")),
        ("tokenizer.ggml.pre", gguf.string(pre)),
        ("tokenizer.ggml.tokens", gguf.array(gguf.STRING, tokens)),
        ("tokenizer.ggml.token_type", gguf.array(gguf.INT32, types)),
        ("tokenizer.ggml.merges", gguf.array(gguf.STRING, merges)),
        ("tokenizer.ggml.bos_token_id", gguf.u32(eos)),
        ("tokenizer.ggml.eos_token_id", gguf.u32(eos)),
    ]


def copy_tokenizer(vocab_path, overrides=()):
    """All `tokenizer.*` metadata of a GGUF file (e.g. a llama.cpp vocab file),
    in file order, with some keys replaced or added."""
    source = gguf.GGUFFile.open(vocab_path)
    kvs = [(k, v) for k, v in source.metadata.items() if k.startswith("tokenizer.")]
    replaced = dict(overrides)
    kvs = [(k, replaced.pop(k, v)) for k, v in kvs] + list(replaced.items())
    return kvs, len(source.value("tokenizer.ggml.tokens"))
