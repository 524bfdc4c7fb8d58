"""Hugging Face tokenizer.json files built from llama.cpp's vocabulary GGUFs.

The layout follows what transformers' converters (convert_slow_tokenizer.py)
produce through the `tokenizers` library:

  GPT2Converter:  model BPE (no unk, fuse_unk false, no byte fallback), vocab
      token -> id, merges from vocab.bpe in rank order; pre_tokenizer and
      decoder ByteLevel (add_prefix_space false); <|endoftext|> as added token.
  LlamaConverter: model BPE with unk_token "<unk>", fuse_unk true,
      byte_fallback true; normalizer Prepend("▁") then Replace(" " -> "▁"), no
      pre_tokenizer; decoder Replace("▁" -> " "), ByteFallback, Fuse, Strip one
      leading space; <s> prepended by a TemplateProcessing post-processor;
      <unk>, <s>, </s> as added special tokens.

A SentencePiece model has no merge list, so the converter derives one from the
vocabulary (SentencePieceExtractor.extract with vocab scores): every way to
split a piece into two pieces that are also in the vocabulary becomes a merge;
splits of one piece are ordered by the ids of their halves, and all merges are
then (stably) sorted by the score of the merged piece, highest first.
"""

import json

import gguf


def _added_token(token_id, content, normalized):
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": normalized, "special": True}


def _byte_level(**extra):
    return dict({"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                 "use_regex": True}, **extra)


def gpt2_tokenizer_json(vocab_gguf_path):
    f = gguf.GGUFFile.open(vocab_gguf_path)
    tokens = f.value("tokenizer.ggml.tokens")
    types = f.value("tokenizer.ggml.token_type")
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [_added_token(i, t, True) for i, (t, ty) in enumerate(zip(tokens, types)) if ty == 3],
        "normalizer": None,
        "pre_tokenizer": _byte_level(),
        "post_processor": _byte_level(add_prefix_space=True, trim_offsets=False),
        "decoder": _byte_level(add_prefix_space=True),
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": "",
            "end_of_word_suffix": "",
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": {t: i for i, t in enumerate(tokens)},
            "merges": list(f.value("tokenizer.ggml.merges")),
        },
    }


def spm_merges(tokens, scores):
    """Merges of a SentencePiece BPE vocabulary, ranked like transformers does."""
    vocab = {t: i for i, t in enumerate(tokens)}
    merges = []
    for piece, score in zip(tokens, scores):
        local = []
        for k in range(1, len(piece)):
            left, right = piece[:k], piece[k:]
            if left in vocab and right in vocab:
                local.append((left, right, score))
        local.sort(key=lambda m: (vocab[m[0]], vocab[m[1]]))
        merges.extend(local)
    merges.sort(key=lambda m: m[2], reverse=True)  # stable: ties keep the order above
    return [f"{left} {right}" for left, right, _ in merges]


def llama_spm_tokenizer_json(vocab_gguf_path):
    f = gguf.GGUFFile.open(vocab_gguf_path)
    tokens = f.value("tokenizer.ggml.tokens")
    scores = f.value("tokenizer.ggml.scores")
    # LlamaConverter gives <unk>, <s>, </s> score 0 (they are 0 here already).
    scores = [0.0, 0.0, 0.0] + list(scores[3:])
    bos = tokens[f.value("tokenizer.ggml.bos_token_id")]
    bos_id = f.value("tokenizer.ggml.bos_token_id")
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [_added_token(i, tokens[i], False) for i in range(3)],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "\u2581"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
        ]},
        "pre_tokenizer": None,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": bos, "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {bos: {"id": bos, "ids": [bos_id], "tokens": [bos]}},
        },
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"},
            {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0},
        ]},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": tokens[f.value("tokenizer.ggml.unknown_token_id")],
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": True,
            "ignore_merges": False,
            "vocab": {t: i for i, t in enumerate(tokens)},
            "merges": spm_merges(tokens, scores),
        },
    }


def write(path, obj):
    with open(path, "w", encoding="utf-8") as out:
        json.dump(obj, out, ensure_ascii=False, indent=2)


# -- the other direction: tokenizer.json -> tokenizer.ggml.* ------------------------------------

def ggml_vocab_from_tokenizer_json(tj, pre, bos_token, eos_token):
    """(key, Value) pairs of a byte-level BPE vocabulary ("gpt2" model) from a Hugging Face
    tokenizer.json, laid out as llama.cpp's convert_hf_to_gguf.py lays it out: tokens in id order (an id
    no token has becomes "[PAD<id>]", type 5 unused), type 3 (control) for added tokens marked special,
    4 (user defined) for other added tokens, 1 for the rest; merges "a b" in rank order; the given
    pre-tokenizer name. tokenizer.ggml.add_bos_token is left out on purpose: readers then apply llama.cpp's
    default for the pre-tokenizer (true for llama-bpe, false for qwen2)."""
    model = tj["model"]
    assert model["type"] == "BPE", "byte-level BPE tokenizer.json expected"
    by_id = {i: t for t, i in model["vocab"].items()}
    added = {a["id"]: a for a in tj.get("added_tokens", [])}
    for i, a in added.items():
        by_id[i] = a["content"]
    n = max(by_id) + 1
    tokens, types = [], []
    for i in range(n):
        if i not in by_id:
            tokens.append(f"[PAD{i}]")
            types.append(5)
        else:
            tokens.append(by_id[i])
            types.append((3 if added[i].get("special") else 4) if i in added else 1)
    merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    ids = {t: i for i, t in enumerate(tokens)}
    return [
        ("tokenizer.ggml.model", gguf.string("gpt2")),
        ("tokenizer.ggml.pre", gguf.string(pre)),
        ("tokenizer.ggml.tokens", gguf.array(gguf.STRING, tokens)),
        ("tokenizer.ggml.token_type", gguf.array(gguf.INT32, types)),
        ("tokenizer.ggml.merges", gguf.array(gguf.STRING, merges)),
        ("tokenizer.ggml.bos_token_id", gguf.u32(ids[bos_token])),
        ("tokenizer.ggml.eos_token_id", gguf.u32(ids[eos_token])),
    ], n
