"""The BERT encoder fixtures (make_fixtures.py calls `write_all`): a tiny BERT with the tiny WordPiece
vocabulary as GGUF `bert` (without and with the MLM head) and as Hugging Face folders (BertModel,
BertForMaskedLM, sentence-transformers), and a tiny GGUF `nomic-bert`, each with the reference's outputs for
one padded batch of three texts. README.md ("Encoder fixtures") describes the expected-output files.
"""

import json
import os

import numpy as np

import configs
import encoder
import gguf_export
import hf_export
import wordpiece_vocab
from floats import round_to_f32
from random_model import random_weights

PIECES = wordpiece_vocab.TINY_PIECES

# The batch: three texts of different lengths (9, 5 and 17 tokens), [CLS] ... [SEP] already in. A model with
# an MLM head gets the third text with "capital" masked.
_TEXTS = [
    "[CLS] the cat sat on the mat . [SEP]",
    "[CLS] hello world ! [SEP]",
    "[CLS] paris is the capital of france . the bird ##s sing ##ing un ##believ ##able [SEP]",
]
# (text, position) of the MLM logits recorded: the [MASK], and an ordinary token of another text
MLM_POSITIONS = [(2, 4), (0, 2)]
# An engine in float32 is held to 1e-5 of the largest value (README.md "Tolerances"); a knob that moves the
# outputs by less than ten times that could be wrong in the engine without a test noticing.
MIN_KNOB_EFFECT = 1e-4


def batch_pieces(mlm):
    texts = [t.split() for t in _TEXTS]
    if mlm:
        texts[2][texts[2].index("capital")] = "[MASK]"
    return texts


def _f32(a):
    """float32-rounded values as nested lists (what the expected files hold)."""
    return round_to_f32(np.asarray(a)).tolist()


def swapped_gate_and_up(weights):
    """The weights with every block's ffn_gate and ffn_up exchanged (SwiGLU's halves taken the wrong way)."""
    out = dict(weights)
    for name in weights:
        if ".ffn_gate." in name:
            up = name.replace(".ffn_gate.", ".ffn_up.")
            out[name], out[up] = weights[up], weights[name]
    return out


def knobs_matter(cfg, weights, texts, name):
    """Refuse a fixture in which bidirectional attention, the padding mask or the exact GELU (a nomic-bert:
    NeoX's RoPE pairing, RoPE itself, which half of SwiGLU is the gate) hardly change the outputs: a test
    against it would pass with any of them wrong."""
    base = encoder.encode(cfg, weights, texts)
    scale = np.abs(base["hidden"]).max()
    lengths = base["lengths"]
    real = lambda h: np.concatenate([h[b, :n] for b, n in enumerate(lengths)])
    states = lambda c, w=weights, n=lengths: encoder.hidden_states(c, w, base["tokens"], n)
    variants = {
        "causal attention": states(dict(cfg, causal=True)),
        "no padding mask": states(cfg, n=np.full_like(lengths, lengths.max())),
    }
    if cfg["activation"] == "gelu_erf":
        variants["tanh GELU"] = states(dict(cfg, activation="gelu"))
    if cfg.get("position") == "rope":
        variants["adjacent (non-NeoX) RoPE pairs"] = states(dict(cfg, rope_pairing="adjacent"))
        variants["no RoPE"] = states(dict(cfg, position="none"))
    if cfg.get("ffn_gated"):
        variants["ffn_gate and ffn_up swapped"] = states(cfg, w=swapped_gate_and_up(weights))
    for what, hidden in variants.items():
        moved = np.abs(real(hidden) - real(base["hidden"])).max() / scale
        if moved < MIN_KNOB_EFFECT:
            raise RuntimeError(f"{name}: {what} moves the hidden states by only {moved:.1e} of their scale")


def write_expected(path, cfg, weights, texts, normalize=False):
    """The expected outputs of a padded batch (README.md "Encoder fixtures")."""
    ids = [wordpiece_vocab.ids_of(PIECES, t) for t in texts]
    trace = {}
    out = encoder.encode(cfg, weights, ids, trace=trace)
    for b, n in enumerate(out["lengths"]):  # padding receives no attention anywhere
        assert all(float(np.abs(p[b, :, :, n:]).max(initial=0.0)) == 0.0 for p in trace["attention"])
    record = {
        "config": cfg,
        "pieces": texts,
        "tokens": ids,
        "lengths": out["lengths"].tolist(),
        "padded_tokens": out["tokens"].tolist(),
        "token_types": [[0] * len(t) for t in ids],
        "pooling": cfg["pooling"],
        "normalize": normalize,
        "hidden_states": [_f32(out["hidden"][b, :n]) for b, n in enumerate(out["lengths"])],
        "pooled": _f32(out["pooled"]),
        "pooled_normalized": _f32(out["pooled_normalized"]),
    }
    if cfg["mlm_head"]:
        record["mlm_logits"] = [
            {"text": b, "position": p, "token": ids[b][p],
             "logits": _f32(encoder.mlm_logits(cfg, weights, out["hidden"][b, p]))}
            for b, p in MLM_POSITIONS]
    with open(path, "w") as f:
        json.dump(record, f)
    return record


def write_all(fixtures):
    """Every encoder fixture into fixtures.outdir, each noted in the manifest."""
    vocab = len(PIECES)

    # GGUF bert: no MLM head, mean pooling
    cfg = configs.bert_as_float32_file(configs.bert_tiny(vocab, pooling="mean"))
    weights = random_weights(cfg, 500)
    stored = gguf_export.write_bert(fixtures.path("bert-tiny.gguf"), cfg, weights, PIECES, "mean", "bert-tiny")
    knobs_matter(cfg, stored, [wordpiece_vocab.ids_of(PIECES, t) for t in batch_pieces(False)], "bert-tiny")
    write_expected(fixtures.path("bert-tiny.json"), cfg, stored, batch_pieces(False))
    fixtures.note(["bert-tiny.gguf", "bert-tiny.json"],
                  "arch bert (llama.cpp's converter layout): learned positions, token types, embedding LayerNorm, "
                  "Post-LN blocks with biases, exact GELU, bert.pooling_type mean, the tiny WordPiece vocabulary "
                  f"({vocab} pieces, specials at 0-4); a padded batch of 3 texts", encoder=True)

    # GGUF bert with the MLM head (glassbox's mlm_* tensors), [CLS] pooling
    cfg = configs.bert_as_float32_file(configs.bert_tiny(vocab, pooling="cls", mlm_head=True))
    stored = gguf_export.write_bert(fixtures.path("bert-tiny-mlm.gguf"), cfg, random_weights(cfg, 501), PIECES,
                                    "cls", "bert-tiny-mlm")
    write_expected(fixtures.path("bert-tiny-mlm.json"), cfg, stored, batch_pieces(True))
    fixtures.note(["bert-tiny-mlm.gguf", "bert-tiny-mlm.json"],
                  "arch bert with the MLM head (mlm_dense, mlm_norm, mlm_output.bias; decoder tied to token_embd), "
                  "bert.pooling_type cls; MLM logits at 2 positions (one a [MASK])", encoder=True)

    # GGUF nomic-bert (nomic-embed-text v1/v1.5's layout): rotary positions (NeoX pairs), SwiGLU, fused qkv,
    # no projection biases, mean pooling
    cfg = configs.bert_as_float32_file(configs.nomic_bert_tiny(vocab, pooling="mean"))
    stored = gguf_export.write_bert(fixtures.path("nomic-bert-tiny.gguf"), cfg, random_weights(cfg, 506), PIECES,
                                    "mean", "nomic-bert-tiny")
    knobs_matter(cfg, stored, [wordpiece_vocab.ids_of(PIECES, t) for t in batch_pieces(False)],
                 "nomic-bert-tiny")
    write_expected(fixtures.path("nomic-bert-tiny.json"), cfg, stored, batch_pieces(False))
    fixtures.note(["nomic-bert-tiny.gguf", "nomic-bert-tiny.json"],
                  "arch nomic-bert (llama.cpp's converter layout): bert's token types, embedding LayerNorm and "
                  "Post-LN, but RoPE on NeoX's half-split pairs (nomic-bert.rope.freq_base 1000, no position table), "
                  "SwiGLU (ffn_gate, ffn_up, ffn_down), q|k|v fused in attn_qkv, biases only on the LayerNorms; "
                  "nomic-bert.pooling_type mean; a padded batch of 3 texts", encoder=True)

    # Hugging Face folders (config.json keeps layer_norm_eps 1e-12 as a double)
    cfg = configs.bert_tiny(vocab, pooling="mean")
    weights = random_weights(cfg, 502)
    rng = np.random.default_rng(503)
    pooler = {"pooler.dense.weight": round_to_f32(rng.normal(0, 0.3, (cfg["dim"], cfg["dim"]))),
              "pooler.dense.bias": round_to_f32(rng.normal(0, 0.1, cfg["dim"]))}
    folder = fixtures.path("hf-bert")
    stored = hf_export.write_bert_folder(folder, cfg, weights, "BertModel", PIECES, extra_tensors=pooler)
    write_expected(os.path.join(folder, "expected.json"), cfg, stored, batch_pieces(False))
    fixtures.note(["hf-bert/"], "BertModel folder (names without prefix, plus the unused pooler.dense that real "
                  "checkpoints carry), tokenizer.json / tokenizer_config.json / vocab.txt; no pooling config, "
                  "expected.json pools by mean", encoder=True)

    cfg = configs.bert_tiny(vocab, pooling="cls", mlm_head=True)
    folder = fixtures.path("hf-bert-mlm")
    stored = hf_export.write_bert_folder(folder, cfg, random_weights(cfg, 504), "BertForMaskedLM", PIECES)
    write_expected(os.path.join(folder, "expected.json"), cfg, stored, batch_pieces(True))
    fixtures.note(["hf-bert-mlm/"], "BertForMaskedLM folder: bert.* names, cls.predictions.transform.dense / "
                  ".LayerNorm, cls.predictions.bias, decoder tied (not stored); expected.json pools by [CLS] and "
                  "has MLM logits at 2 positions", encoder=True)

    cfg = configs.bert_tiny(vocab, pooling="cls")
    folder = fixtures.path("st-bert")
    stored = hf_export.write_bert_folder(folder, cfg, random_weights(cfg, 505), "BertModel", PIECES,
                                         sentence_transformers={"pooling": "cls", "normalize": True})
    write_expected(os.path.join(folder, "expected.json"), cfg, stored, batch_pieces(False), normalize=True)
    fixtures.note(["st-bert/"], "sentence-transformers folder: a BertModel with modules.json (Transformer, "
                  "1_Pooling with pooling_mode_cls_token, 2_Normalize without a folder) and "
                  "sentence_bert_config.json; the embedding is pooled_normalized", encoder=True)

    tokenizer_path = fixtures.path("tokenizer-wordpiece-tiny.json")
    with open(tokenizer_path, "w", encoding="utf-8") as f:
        json.dump(wordpiece_vocab.tokenizer_json(PIECES), f, ensure_ascii=False, indent=2)
    fixtures.note(["tokenizer-wordpiece-tiny.json"], "the tiny WordPiece vocabulary as a BertTokenizerFast "
                  "tokenizer.json (the same file as in the hf-bert folders)", encoder=True)

