#!/usr/bin/python3
"""Generate every reference fixture into OUTDIR (never into the repository).

    /usr/bin/python3 tests/reference/make_fixtures.py OUTDIR

Deterministic: fixed seeds, so two runs give byte-identical files. See
README.md for the list of fixtures and what each one covers; OUTDIR/MANIFEST.json
lists them too.
"""

import json
import os
import sys
import time

import numpy as np

import configs
import gguf
import gguf_export
import hf_export
import model
import tiny_vocab
import tokenizer_json
from random_model import random_weights

VOCAB_DIR = os.environ.get("GLASSBOX_VOCAB_DIR",
                           os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "..", "..", "..", "shared", "tokenizer-vectors"))
N_TOKENS = 8


def vocab_files_present():
    """The real-vocabulary fixtures need llama.cpp's vocab GGUFs; skip them
    (loudly) where ../shared is absent."""
    names = ("ggml-vocab-llama-spm.gguf", "ggml-vocab-gpt-2.gguf")
    missing = [n for n in names if not os.path.exists(os.path.join(VOCAB_DIR, n))]
    if missing:
        print(f"SKIPPED: {', '.join(missing)} not found in {VOCAB_DIR} (set GLASSBOX_VOCAB_DIR)")
    return not missing


def sample_tokens(cfg, seed):
    return [int(t) for t in np.random.default_rng(seed).integers(0, cfg["vocab_size"], N_TOKENS)]


def write_expected(path, cfg, stored_weights, tokens, **extra):
    """The .json beside a model: tokens, the reference logits for them, config."""
    logits = model.forward(cfg, stored_weights, tokens)
    record = {"tokens": tokens, "logits": logits.tolist(), "config": cfg}
    record.update(extra)
    with open(path, "w") as f:
        json.dump(record, f)


class Fixtures:
    def __init__(self, outdir):
        self.outdir = outdir
        self.manifest = []

    def path(self, name):
        return os.path.join(self.outdir, name)

    def note(self, files, covers, **extra):
        self.manifest.append(dict({"files": files, "covers": covers}, **extra))

    # (a) glassbox variants
    def variants(self):
        for seed, (stem, cfg, covers) in enumerate(configs.VARIANTS, start=100):
            cfg = configs.as_float32_file(cfg)
            weights = random_weights(cfg, seed)
            alignment = 64 if stem == "rmsnorm-sinusoidal-reglu" else 32
            stored = gguf_export.write_glassbox(self.path(stem + ".gguf"), cfg, weights, stem,
                                                alignment=alignment, tokenizer_kvs=tiny_vocab.bpe_metadata("gpt-2"))
            write_expected(self.path(stem + ".json"), cfg, stored, sample_tokens(cfg, seed))
            self.note([stem + ".gguf", stem + ".json"], covers)

    # (b) the llama-like variant in F16, Q8_0 and Q4_0
    def quantized(self):
        stem, cfg, _ = configs.VARIANTS[0]
        cfg = configs.as_float32_file(cfg)
        weights = random_weights(cfg, 100)  # the same weights as llama-like.gguf
        tokens = sample_tokens(cfg, 100)
        for tensor_type in ("F16", "Q8_0", "Q4_0"):
            name = f"{stem}.{tensor_type.lower()}"
            stored = gguf_export.write_glassbox(self.path(name + ".gguf"), cfg, weights, name,
                                                tensor_type=tensor_type,
                                                tokenizer_kvs=tiny_vocab.bpe_metadata("gpt-2"))
            write_expected(self.path(name + ".json"), cfg, stored, tokens)
            self.note([name + ".gguf", name + ".json"],
                      f"llama-like with every 2-D matrix in {tensor_type} (norms F32); logits from "
                      "the dequantized weights")

    # (c-i) llama.cpp architectures, tiny vocabulary, with logits
    def real_format_tiny(self):
        cfg = configs.as_float32_file(configs.HF_LLAMA)
        stored = gguf_export.write_llama(self.path("llama-tiny.gguf"), cfg, random_weights(cfg, 200),
                                         "llama-tiny", tiny_vocab.bpe_metadata("llama-bpe"))
        write_expected(self.path("llama-tiny.json"), cfg, stored, sample_tokens(cfg, 200),
                       note="config is the reference's computation: half-pair RoPE on un-permuted q/k; "
                            "the file stores q/k rows permuted for adjacent-pair RoPE")
        self.note(["llama-tiny.gguf", "llama-tiny.json"],
                  "arch llama: model built with HF half-pair RoPE, attn_q/attn_k rows permuted like "
                  "llama.cpp's converter, so adjacent-pair RoPE on the file must reproduce the logits; "
                  "GQA 4/2, separate output.weight, tiny byte-level BPE vocabulary (pre llama-bpe)")

        cfg = configs.as_float32_file(configs.HF_QWEN2)
        stored = gguf_export.write_qwen2(self.path("qwen2-tiny.gguf"), cfg, random_weights(cfg, 201),
                                         "qwen2-tiny", tiny_vocab.bpe_metadata("qwen2"))
        write_expected(self.path("qwen2-tiny.json"), cfg, stored, sample_tokens(cfg, 201))
        self.note(["qwen2-tiny.gguf", "qwen2-tiny.json"],
                  "arch qwen2: q/k/v biases, half-pair (NeoX) RoPE with theta 1e6, no permutation, "
                  "GQA 4/2, tied (no output.weight), tiny byte-level BPE vocabulary")

        cfg = configs.as_float32_file(configs.HF_GPT2)
        stored = gguf_export.write_gpt2(self.path("gpt2-tiny.gguf"), cfg, random_weights(cfg, 202),
                                        "gpt2-tiny", tiny_vocab.bpe_metadata("gpt-2"))
        write_expected(self.path("gpt2-tiny.json"), cfg, stored, sample_tokens(cfg, 202))
        self.note(["gpt2-tiny.gguf", "gpt2-tiny.json"],
                  "arch gpt2: fused attn_qkv (q|k|v rows) with bias, learned position_embd, LayerNorm "
                  "with biases, GELU FFN 4*dim, tied (no output.weight), tiny byte-level BPE vocabulary")

    # (c-ii) llama.cpp architectures with real vocabularies, for a llama.cpp cross-check
    def real_vocab(self):
        spm = os.path.join(VOCAB_DIR, "ggml-vocab-llama-spm.gguf")
        gpt2 = os.path.join(VOCAB_DIR, "ggml-vocab-gpt-2.gguf")
        if not vocab_files_present():
            return
        jobs = [
            ("llama-spm-vocab", "llama", configs.HF_LLAMA, spm, {}, 300),
            ("llama-bpe-vocab", "llama", configs.HF_LLAMA, gpt2,
             {"tokenizer.ggml.pre": gguf.string("llama-bpe")}, 301),
            ("qwen2-vocab", "qwen2", configs.HF_QWEN2, gpt2,
             {"tokenizer.ggml.pre": gguf.string("qwen2")}, 302),
            ("gpt2-vocab", "gpt2", configs.HF_GPT2, gpt2, {}, 303),
        ]
        writers = {"llama": gguf_export.write_llama, "qwen2": gguf_export.write_qwen2,
                   "gpt2": gguf_export.write_gpt2}
        for stem, arch, base, vocab_path, overrides, seed in jobs:
            kvs, n_vocab = tiny_vocab.copy_tokenizer(vocab_path, overrides)
            extra = {"hidden_dim": 256} if arch == "gpt2" else {}
            cfg = configs.as_float32_file(configs.real_vocab(base, n_vocab, **extra))
            # Small token embeddings and larger layer weights: the blocks, not the
            # current token's own embedding, decide the next token, so greedy
            # decoding wanders instead of repeating one token.
            weights = random_weights(cfg, seed, matrix_std=0.25, embedding_std=0.05, output_std=0.15)
            stored = writers[arch](self.path(stem + ".gguf"), cfg, weights, stem, kvs)
            prompt = [int(t) for t in np.random.default_rng(seed).integers(0, n_vocab, 4)]
            continuation = model.greedy(cfg, stored, prompt, 16)
            distinct = len(set(continuation))
            if distinct < 6:
                raise RuntimeError(f"{stem}: greedy decoding is too repetitive: {continuation}")
            self.note([stem + ".gguf"],
                      f"arch {arch} with the real {os.path.basename(vocab_path)} tokenizer metadata"
                      + (f" ({overrides})" if overrides else "") + "; for a llama.cpp cross-check",
                      reference_greedy={"prompt_ids": prompt, "continuation_ids": continuation})

    # (d) Hugging Face folders
    def hf_folders(self):
        jobs = [
            ("hf-gpt2", configs.HF_GPT2, "gpt2", "F32", 1, 400),
            ("hf-gpt2-openai-names", configs.HF_GPT2, "gpt2", "F32", 1, 400),
            ("hf-gpt2-f16", configs.HF_GPT2, "gpt2", "F16", 1, 400),
            ("hf-llama", configs.HF_LLAMA, "llama", "F32", 1, 401),
            ("hf-llama-sharded", configs.HF_LLAMA, "llama", "F32", 2, 401),
            ("hf-llama-bf16", configs.HF_LLAMA, "llama", "BF16", 1, 401),
            ("hf-qwen2", configs.HF_QWEN2, "qwen2", "F32", 1, 402),
        ]
        for folder, cfg, family, dtype, shards, seed in jobs:
            weights = random_weights(cfg, seed)
            prefix = "" if folder == "hf-gpt2-openai-names" else "transformer."
            stored = hf_export.write_folder(self.path(folder), cfg, weights, family, dtype, shards, prefix)
            write_expected(os.path.join(self.path(folder), "expected.json"), cfg, stored,
                           sample_tokens(cfg, seed), dtype=dtype)
            self.note([folder + "/"], f"{family} Hugging Face folder, {dtype}"
                      + (f", {shards} shards + index" if shards > 1 else "")
                      + (", tensor names without the 'transformer.' prefix (like openai-community/gpt2)"
                         if not prefix else ""))

    # (e) tokenizer.json files
    def tokenizers(self):
        if not vocab_files_present():
            return
        tokenizer_json.write(self.path("tokenizer-gpt2.json"),
                             tokenizer_json.gpt2_tokenizer_json(os.path.join(VOCAB_DIR, "ggml-vocab-gpt-2.gguf")))
        tokenizer_json.write(self.path("tokenizer-llama-spm.json"),
                             tokenizer_json.llama_spm_tokenizer_json(os.path.join(VOCAB_DIR, "ggml-vocab-llama-spm.gguf")))
        self.note(["tokenizer-gpt2.json"], "GPT-2 byte-level BPE tokenizer.json (GPT2Converter layout)")
        self.note(["tokenizer-llama-spm.json"],
                  "Llama 2 SentencePiece tokenizer.json (LlamaConverter layout, merges derived from scores)")


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    start = time.time()
    fixtures = Fixtures(outdir)
    for step in (fixtures.variants, fixtures.quantized, fixtures.real_format_tiny,
                 fixtures.real_vocab, fixtures.hf_folders, fixtures.tokenizers):
        t = time.time()
        step()
        print(f"{step.__name__:18s} {time.time() - t:6.2f} s")
    with open(os.path.join(outdir, "MANIFEST.json"), "w") as f:
        json.dump(fixtures.manifest, f, indent=2, ensure_ascii=False)
    print(f"{len(fixtures.manifest)} fixtures in {outdir} ({time.time() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main(sys.argv))
