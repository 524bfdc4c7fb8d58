#!/usr/bin/python3
"""Generate every reference fixture into OUTDIR (never into the repository).

    /usr/bin/python3 tests/reference/make_fixtures.py OUTDIR

Deterministic: fixed seeds, so two runs give byte-identical files. See
README.md for the list of fixtures and what each one covers; OUTDIR/MANIFEST.json
lists them too. Because of that, a folder made from the same inputs (this
folder's Python files, the vocabulary files, NumPy's version: OUTDIR/INPUTS.sha256)
is kept as it is; GLASSBOX_FIXTURES_REGENERATE=1 makes them again regardless.
"""

import hashlib
import json
import os
import sys
import time

import numpy as np

import circuit_fixtures
import configs
import encoder_fixtures
import ggml_quants
import gguf
import gguf_export
import hf_export
import llama2c
import model
import neuron_fixtures
import score_fixtures
import tiny_vocab
import tokenizer_json
from random_model import IQ4_PLAN, LOW_K_QUANT_PLAN, NIBBLE_QUANT_PLAN, k_quant_weights, random_weights

VOCAB_DIR = os.environ.get("GLASSBOX_VOCAB_DIR",
                           os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "..", "..", "..", "shared", "tokenizer-vectors"))
N_TOKENS = 8
STORIES_MODEL = os.path.join(os.environ.get("GLASSBOX_MODELS_DIR") or
                             os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models"),
                             "stories260K.bin")


# Head ablations checked against the reference ({(layer, head): scale}): every head of one layer off (pre- and
# post-norm), and a mix of switched-off and scaled heads.
ABLATIONS = {
    "llama-like": {(1, h): 0.0 for h in range(4)},
    "transformer-postln": {(0, h): 0.0 for h in range(4)},
    "gpt2-like": {(0, 1): 0.0, (0, 3): 0.0, (1, 2): 0.5},
}


def vocab_files_present():
    """The real-vocabulary fixtures need llama.cpp's vocab GGUFs; skip them
    (loudly) where ../shared is absent."""
    names = ("ggml-vocab-llama-spm.gguf", "ggml-vocab-gpt-2.gguf", "ggml-vocab-phi-3.gguf")
    missing = [n for n in names if not os.path.exists(os.path.join(VOCAB_DIR, n))]
    if missing:
        print(f"SKIPPED: {', '.join(missing)} not found in {VOCAB_DIR} (set GLASSBOX_VOCAB_DIR)")
    return not missing


# llama.cpp's test vector " this is 🦙.cpp": spaces, an emoji (SentencePiece byte fallback) and punctuation.
HF_FOLDER_TEXT = 18


def vocab_vector(vocab_path, index):
    """(text, ids) of one of llama.cpp's tokenizer test vectors: the ids are Hugging Face's tokenization
    (without BOS) recorded in the .out file beside the vocabulary."""
    texts = open(vocab_path + ".inp", encoding="utf-8", newline="").read().split("\n__ggml_vocab_test__\n")[:-1]
    lines = open(vocab_path + ".out", encoding="utf-8", newline="").read().split("\n")
    return texts[index], [int(x) for x in lines[index].split()]


def sample_tokens(cfg, seed):
    return [int(t) for t in np.random.default_rng(seed).integers(0, cfg["vocab_size"], N_TOKENS)]


# The stored types whose products glassbox computes with integer dot products (core/src/kernels/
# quantized_int_dot.hpp), each product's input first rounded to Q8_0 blocks (kernels/quantized_activations.hpp).
INT_DOT_TYPES = (gguf.GGML_Q8_0, gguf.GGML_Q4_0, gguf.GGML_Q4_K, gguf.GGML_Q5_K, gguf.GGML_Q6_K, gguf.GGML_IQ4_NL,
                 gguf.GGML_IQ4_XS)


def int_dot_inputs(gguf_path):
    """The rounding glassbox applies to a GGUF file's products: the input of each matrix stored in one of
    INT_DOT_TYPES rounded by ggml_quants.round_like_q8_0, the others' left alone; None when there is none."""
    infos = gguf.GGUFFile.open(gguf_path).tensor_infos
    return {t.name: ggml_quants.round_like_q8_0 for t in infos
            if t.ggml_type in INT_DOT_TYPES and len(t.ne) == 2} or None


# How near a rounded input may come to a rounding tie (x / d halfway between two integers, or d halfway
# between two halves: ggml_quants.q8_0_tie_distance), relative to the rounded quantity: glassbox's float32 activations differ from the reference's float64 ones by about 1e-7 to 1e-6
# of their size, so an input nearer a tie could round the other way there, and one such flip moves the
# logits of these small models by up to a few percent, far past reference_fixtures_test.cpp's 1e-5.
MIN_TIE_DISTANCE = 2e-6


def tie_distance_recorded(rounding, distances):
    """rounding with each round_like_q8_0 call also appending the least relative tie distance it met."""
    def recorded(x):
        distances.append(ggml_quants.q8_0_tie_distance(x))
        return ggml_quants.round_like_q8_0(x)
    return {name: recorded for name in rounding}


def write_expected(path, cfg, stored_weights, tokens, head_scales=None, rounding=None, **extra):
    """The .json beside a model: tokens, the reference logits for them, config (and the head ablation the
    logits were computed with, if any). rounding: int_dot_inputs' rounding of the products' inputs, as the
    engine rounds them; then no rounded input may lie within MIN_TIE_DISTANCE of a tie."""
    distances = []
    if rounding is not None:
        assert all(fn is ggml_quants.round_like_q8_0 for fn in rounding.values())
        rounding = tie_distance_recorded(rounding, distances)
    logits = model.forward(cfg, stored_weights, tokens, head_scales=head_scales, rounding=rounding)
    if distances and min(distances) < MIN_TIE_DISTANCE:
        raise RuntimeError(f"{path}: a rounded product input lies {min(distances):.2e} (relative) from a "
                           "rounding tie; the engine may round it the other way (choose other tokens)")
    record = {"tokens": tokens, "logits": logits.tolist(), "config": cfg}
    if rounding is not None:
        record["product_inputs"] = "q8_0"  # the integer-dot matrices' inputs rounded (int_dot_inputs)
    if head_scales is not None:
        record["head_scales"] = head_scales
    record.update(extra)
    with open(path, "w") as f:
        json.dump(record, f)


def must_matter(cfg, weights, tokens, stem, knobs):
    """Refuses a fixture whose logits one of `knobs` ({key: the value that switches it off}) hardly moves: a
    test of that knob would pass without it."""
    logits = model.forward(cfg, weights, tokens)
    scale = np.abs(logits).max()
    for key, off in knobs.items():
        moved = np.abs(model.forward(dict(cfg, **{key: off}), weights, tokens) - logits).max() / scale
        if moved < 0.01:
            raise RuntimeError(f"{stem}: switching off {key} moves the logits by only {moved:.1e} of their scale")


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
            if stem == "sandwich-sliding-softcap":
                must_matter(cfg, stored, sample_tokens(cfg, seed), stem,
                            {"sliding_window": 0, "final_logit_softcap": 0, "scaled_embeddings": False,
                             "rope_theta_sliding": None})
            self.note([stem + ".gguf", stem + ".json"], covers)
            circuit_fixtures.write(self.path(stem + ".circuits.json"), cfg, stored, sample_tokens(cfg, seed), seed)
            self.note([stem + ".circuits.json"],
                      f"{stem}: activation patching and direct logit attribution (circuit_fixtures.py)",
                      model=stem + ".gguf")
            neuron_fixtures.write(self.path(stem + ".neurons.json"), cfg, stored, sample_tokens(cfg, seed))
            self.note([stem + ".neurons.json"],
                      f"{stem}: the feed-forwards' hidden units at every layer and position, and one layer's top "
                      "neurons with the tokens where each fires most (neuron_fixtures.py)", model=stem + ".gguf")
            if stem in ABLATIONS:
                self.ablation(stem, cfg, stored, sample_tokens(cfg, seed), ABLATIONS[stem])

    def ablation(self, stem, cfg, stored, tokens, scaled):
        """The logits with some heads switched off or scaled (head ablation): scaled is {(layer, head): scale}."""
        scales = [[scaled.get((layer, head), 1.0) for head in range(cfg["n_heads"])]
                  for layer in range(cfg["n_layers"])]
        name = stem + ".ablated"
        write_expected(self.path(name + ".json"), cfg, stored, tokens, head_scales=scales)
        self.note([stem + ".gguf", name + ".json"],
                  f"{stem} with heads scaled before the output projection: {scales}")

    # (b) the llama-like variant in F16, Q8_0 and Q4_0
    def quantized(self):
        stem, cfg, _ = configs.VARIANTS[0]
        cfg = configs.as_float32_file(cfg)
        weights = random_weights(cfg, 100)  # the same weights as llama-like.gguf
        tokens = sample_tokens(cfg, 100)
        for tensor_type in ("F16", "BF16", "Q8_0", "Q4_0"):
            name = f"{stem}.{tensor_type.lower()}"
            stored = gguf_export.write_glassbox(self.path(name + ".gguf"), cfg, weights, name,
                                                tensor_type=tensor_type,
                                                tokenizer_kvs=tiny_vocab.bpe_metadata("gpt-2"))
            quantized = tensor_type in ("Q8_0", "Q4_0")
            write_expected(self.path(name + ".json"), cfg, stored, tokens,
                           rounding=int_dot_inputs(self.path(name + ".gguf")))
            self.note([name + ".gguf", name + ".json"],
                      f"llama-like with every 2-D matrix in {tensor_type} (norms F32); logits from "
                      "the dequantized weights" + (", each product's input rounded to Q8_0 blocks "
                                                   "(round_like_q8_0)" if quantized else ""))

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

        # llama-tiny's weights quantized by the reference: what `glassbox convert --type q8_0/q4_0` of
        # llama-tiny.gguf must write byte for byte (tests/convert_test.cpp)
        weights = random_weights(cfg, 200)
        for tensor_type in ("Q8_0", "Q4_0"):
            stem = f"llama-tiny.{tensor_type.lower()}"
            stored = gguf_export.write_llama(self.path(stem + ".gguf"), cfg, weights, stem,
                                             tiny_vocab.bpe_metadata("llama-bpe"), tensor_type=tensor_type)
            write_expected(self.path(stem + ".json"), cfg, stored, sample_tokens(cfg, 200),
                           rounding=int_dot_inputs(self.path(stem + ".gguf")))
            self.note([stem + ".gguf", stem + ".json"],
                      f"llama-tiny's weights with every matrix quantized to {tensor_type} by the reference's "
                      "quantizer (token_embd and output too); logits from the dequantized weights, each "
                      "product's input rounded to Q8_0 blocks (round_like_q8_0)")

        cfg = configs.as_float32_file(configs.KQUANT_LLAMA)
        # Block matrices of gain about 1 (std 1/sqrt(dim)): llama.cpp rounds the inputs of K-quant products
        # to 8 bits, and larger weights amplify that far past the margins between the top logits. Small
        # token embeddings: the blocks, not the current token, decide the next one (greedy text wanders).
        weights = k_quant_weights(cfg, 210, matrix_std=cfg["dim"] ** -0.5, output_std=0.3, embedding_std=0.01)
        stored = gguf_export.write_llama(self.path("llama-kquants.gguf"), cfg, weights,
                                         "llama-kquants", tiny_vocab.bpe_metadata("llama-bpe"),
                                         file_type="Q4_K_M")
        # Tokens of seed 280, whose rounded inputs all keep MIN_TIE_DISTANCE from a tie (those of 210 came within
        # 1.2e-6 of one, and glassbox rounded it the other way; of seeds 261 to 339 only 280 keeps the distance).
        write_expected(self.path("llama-kquants.json"), cfg, stored, sample_tokens(cfg, 280),
                       rounding=int_dot_inputs(self.path("llama-kquants.gguf")))
        prompt = sample_tokens(cfg, 211)[:4]
        # ggml rounds the inputs of K-quant products to 8-bit blocks (Q8_K); the same continuation computed
        # that way is what llama.cpp must produce (tests/peers/llama-cpp.test.mjs).
        q8_k_inputs = {name: ggml_quants.round_like_q8_k for name, w in weights.items()
                       if isinstance(w, gguf.EncodedMatrix) and w.ggml_type in (gguf.GGML_Q4_K, gguf.GGML_Q6_K)}
        greedy_q8_k = model.greedy(cfg, stored, prompt, 16, rounding=q8_k_inputs)
        if len(set(greedy_q8_k)) < 6:
            raise RuntimeError(f"llama-kquants: greedy decoding is too repetitive: {greedy_q8_k}")
        self.note(["llama-kquants.gguf", "llama-kquants.json"],
                  "arch llama, dim 256 (row lengths are whole 256-value super-blocks): random Q4_K blocks "
                  "for attn_q/attn_k/attn_output/ffn_gate/ffn_up, random Q6_K for attn_v/ffn_down/output, "
                  "token_embd in BF16; logits from the blocks decoded as ggml defines them, each product's "
                  "input rounded to Q8_0 blocks (round_like_q8_0) as glassbox's integer dots round it. "
                  "reference_greedy_q8_k_inputs: the greedy continuation with the inputs of every K-quant "
                  "product rounded as ggml's CPU code rounds them (quantize_row_q8_K)",
                  reference_greedy={"prompt_ids": prompt, "continuation_ids": model.greedy(cfg, stored, prompt, 16)},
                  reference_greedy_q8_k_inputs={"prompt_ids": prompt, "continuation_ids": greedy_q8_k})

        cfg = configs.as_float32_file(configs.HF_LLAMA3)
        stored = gguf_export.write_llama(self.path("llama3-rope-tiny.gguf"), cfg, random_weights(cfg, 205),
                                         "llama3-rope-tiny", tiny_vocab.bpe_metadata("llama-bpe"))
        write_expected(self.path("llama3-rope-tiny.json"), cfg, stored, sample_tokens(cfg, 205))
        self.note(["llama3-rope-tiny.gguf", "llama3-rope-tiny.json"],
                  "arch llama with Llama 3.1's RoPE scaling (factor 8, low 1, high 8, original context 256): "
                  "a rope_freqs.weight of per-pair divisors, one pair kept, one blended, two slowed")

        cfg = configs.as_float32_file(configs.HF_LLAMA_YARN)
        stored = gguf_export.write_llama(self.path("llama-yarn-tiny.gguf"), cfg, random_weights(cfg, 209),
                                         "llama-yarn-tiny", tiny_vocab.bpe_metadata("llama-bpe"))
        write_expected(self.path("llama-yarn-tiny.json"), cfg, stored, sample_tokens(cfg, 209))
        must_matter(cfg, stored, sample_tokens(cfg, 209), "llama-yarn-tiny", {"rope_scaling": None})
        self.note(["llama-yarn-tiny.gguf", "llama-yarn-tiny.json"],
                  "arch llama with YaRN (rope.scaling.type yarn, factor 4, original context 256, attn_factor "
                  "1.25): pair 0 kept, pair 1 blended, pairs 2-3 slowed; q and k scaled by 1.25 (1 + 0.1 ln 4)")

        cfg = configs.as_float32_file(configs.HF_QWEN3)
        stored = gguf_export.write_qwen3(self.path("qwen3-tiny.gguf"), cfg, random_weights(cfg, 206),
                                         "qwen3-tiny", tiny_vocab.bpe_metadata("qwen2"))
        write_expected(self.path("qwen3-tiny.json"), cfg, stored, sample_tokens(cfg, 206))
        self.note(["qwen3-tiny.gguf", "qwen3-tiny.json"],
                  "arch qwen3: per-head q/k RMSNorm before RoPE, heads 16 wide (q 64 values, dim 32: "
                  "attention.key_length), half-pair RoPE theta 1e6, no biases, GQA 4/2, tied")

        cfg = configs.as_float32_file(configs.GEMMA3)
        stored = gguf_export.write_gemma3(self.path("gemma3-tiny.gguf"), cfg, random_weights(cfg, 207),
                                          "gemma3-tiny", tiny_vocab.bpe_metadata("gpt-2"))
        write_expected(self.path("gemma3-tiny.json"), cfg, stored, sample_tokens(cfg, 207))
        must_matter(cfg, stored, sample_tokens(cfg, 207), "gemma3-tiny",
                    {"sliding_window": 0, "rope_theta_sliding": None, "scaled_embeddings": False})
        self.note(["gemma3-tiny.gguf", "gemma3-tiny.json"],
                  "arch gemma3: sandwich RMSNorms (post_attention_norm, post_ffw_norm), GeGLU, q/k norm, "
                  "embeddings times sqrt(dim), heads 16 wide; layer 0 slides (window 3 keys, RoPE base 1e4, "
                  "unscaled), layer 1 is global (base 1e6, linear scaling by 8); sliding_window_pattern 2")

        self.block_quants("llama-q4_1-q5_0-q5_1", NIBBLE_QUANT_PLAN, "Q5_0", 222,
                          "random Q4_1 blocks for attn_q/ffn_up/token_embd, Q5_0 for attn_k/attn_output/"
                          "ffn_down, Q5_1 for attn_v/ffn_gate/output")
        self.block_quants("llama-q2_k-q3_k-q5_k", LOW_K_QUANT_PLAN, "Q3_K_M", 232,
                          "random Q2_K blocks for attn_q/ffn_up/token_embd, Q3_K for attn_k/attn_output/"
                          "ffn_down, Q5_K for attn_v/ffn_gate/output",
                          token_seed=299)  # Q5_K's inputs rounded: seed 232's tokens come 2e-7 from a tie
        self.block_quants("llama-iq4_nl-iq4_xs", IQ4_PLAN, "IQ4_XS", 242,
                          "random IQ4_NL blocks for attn_q/attn_v/ffn_up/output, IQ4_XS for attn_k/attn_output/"
                          "ffn_gate/ffn_down/token_embd",
                          # Both types take the integer kernels, so their inputs are rounded: the tokens of
                          # seed 242 came within 2.3e-7 of a tie; of 243 to 254 only 254 keeps MIN_TIE_DISTANCE.
                          token_seed=254)

        cfg = configs.as_float32_file(configs.HF_PHI3)
        stored = gguf_export.write_phi3(self.path("phi3-tiny.gguf"), cfg, random_weights(cfg, 203),
                                        "phi3-tiny", tiny_vocab.bpe_metadata("gpt-2"))
        write_expected(self.path("phi3-tiny.json"), cfg, stored, sample_tokens(cfg, 203))
        self.note(["phi3-tiny.gguf", "phi3-tiny.json"],
                  "arch phi3: fused attn_qkv (q|k|v rows, GQA 4/2 so k and v are narrower than q), fused "
                  "ffn_up (gate rows, then up rows), half-pair RoPE, no biases, separate output.weight")

        stored = gguf_export.write_phi3(self.path("phi3-split-qkv.gguf"), cfg, random_weights(cfg, 208),
                                        "phi3-split-qkv", tiny_vocab.bpe_metadata("gpt-2"), fuse_qkv=False)
        write_expected(self.path("phi3-split-qkv.json"), cfg, stored, sample_tokens(cfg, 208))
        self.note(["phi3-split-qkv.gguf", "phi3-split-qkv.json"],
                  "arch phi3 with attn_q / attn_k / attn_v apart (as Phi-4-mini's files store them) and the "
                  "fused gate|up matrix")

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

        cfg = configs.as_float32_file(configs.HF_BLOOM)
        stored = gguf_export.write_bloom(self.path("bloom-tiny.gguf"), cfg, random_weights(cfg, 210),
                                         "bloom-tiny", tiny_vocab.bpe_metadata("gpt-2"))
        write_expected(self.path("bloom-tiny.json"), cfg, stored, sample_tokens(cfg, 210))
        must_matter(cfg, stored, sample_tokens(cfg, 210), "bloom-tiny",
                    {"alibi_max_bias": np.inf, "embedding_norm": False})  # an infinite max bias: slopes 0
        self.note(["bloom-tiny.gguf", "bloom-tiny.json"],
                  "arch bloom: ALiBi over 6 heads (slopes 2^-2, 2^-4, 2^-6, 2^-8, then 2^-1, 2^-3: the "
                  "extension past a power of two), LayerNorm of the embeddings (token_embd_norm + bias), "
                  "fused attn_qkv with bias, GELU, biases everywhere, tied, tiny byte-level BPE vocabulary")

        cfg = configs.as_float32_file(configs.HF_MPT)
        stored = gguf_export.write_mpt(self.path("mpt-tiny.gguf"), cfg, random_weights(cfg, 211),
                                       "mpt-tiny", tiny_vocab.bpe_metadata("gpt-2"))
        write_expected(self.path("mpt-tiny.json"), cfg, stored, sample_tokens(cfg, 211))
        must_matter(cfg, stored, sample_tokens(cfg, 211), "mpt-tiny", {"alibi_max_bias": 8.0})
        self.note(["mpt-tiny.gguf", "mpt-tiny.json"],
                  "arch mpt: ALiBi with mpt.attention.max_alibi_bias 6 (slopes 2^-1.5 .. 2^-6 over 4 heads), "
                  "LayerNorms without biases and no other biases, fused attn_qkv, GELU, tied, tiny byte-level "
                  "BPE vocabulary")

    def block_quants(self, stem, plan, file_type, seed, covers, token_seed=None):
        """llama-kquants' shape and recipe with every matrix in random blocks of the type `plan` gives it.
        MANIFEST gets the greedy continuation, plain and with the inputs of each product rounded as ggml's
        CPU code rounds them for that weight type (what llama.cpp must reproduce). token_seed (default: seed)
        picks the logits' tokens, whose rounded inputs must keep MIN_TIE_DISTANCE from a tie."""
        cfg = configs.as_float32_file(configs.KQUANT_LLAMA)
        weights = k_quant_weights(cfg, seed, matrix_std=cfg["dim"] ** -0.5, output_std=0.3, embedding_std=0.01,
                                  plan=plan)
        stored = gguf_export.write_llama(self.path(stem + ".gguf"), cfg, weights, stem,
                                         tiny_vocab.bpe_metadata("llama-bpe"), file_type=file_type)
        write_expected(self.path(stem + ".json"), cfg, stored,
                       sample_tokens(cfg, seed if token_seed is None else token_seed),
                       rounding=int_dot_inputs(self.path(stem + ".gguf")))
        prompt = sample_tokens(cfg, seed + 1)[:4]
        ggml_rounding = {gguf.GGML_Q4_1: ggml_quants.round_like_q8_1, gguf.GGML_Q5_1: ggml_quants.round_like_q8_1,
                         gguf.GGML_Q5_0: ggml_quants.round_like_q8_0, gguf.GGML_Q2_K: ggml_quants.round_like_q8_k,
                         gguf.GGML_Q3_K: ggml_quants.round_like_q8_k, gguf.GGML_Q5_K: ggml_quants.round_like_q8_k,
                         gguf.GGML_IQ4_NL: ggml_quants.round_like_q8_0, gguf.GGML_IQ4_XS: ggml_quants.round_like_q8_k}
        rounding = {name: ggml_rounding[w.ggml_type] for name, w in weights.items()
                    if isinstance(w, gguf.EncodedMatrix) and name != "token_embd.weight"}
        greedy_ggml = model.greedy(cfg, stored, prompt, 16, rounding=rounding)
        if len(set(greedy_ggml)) < 6:
            raise RuntimeError(f"{stem}: greedy decoding is too repetitive: {greedy_ggml}")
        self.note([stem + ".gguf", stem + ".json"],
                  f"arch llama, shaped as llama-kquants: {covers}; logits from the blocks decoded as ggml "
                  "defines them. reference_greedy_ggml_inputs: the greedy continuation with the inputs of "
                  "every product rounded as ggml's CPU code rounds them (Q8_0 / Q8_1 / Q8_K blocks)",
                  reference_greedy={"prompt_ids": prompt, "continuation_ids": model.greedy(cfg, stored, prompt, 16)},
                  reference_greedy_ggml_inputs={"prompt_ids": prompt, "continuation_ids": greedy_ggml})

    # (c-ii) llama.cpp architectures with real vocabularies, for a llama.cpp cross-check
    def real_vocab(self):
        spm = os.path.join(VOCAB_DIR, "ggml-vocab-llama-spm.gguf")
        gpt2 = os.path.join(VOCAB_DIR, "ggml-vocab-gpt-2.gguf")
        phi3 = os.path.join(VOCAB_DIR, "ggml-vocab-phi-3.gguf")
        if not vocab_files_present():
            return
        jobs = [
            ("llama-spm-vocab", "llama", configs.HF_LLAMA, spm, {}, 300, {}),
            ("phi3-vocab", "phi3", configs.HF_PHI3, phi3, {}, 304, {}),
            ("phi3-split-qkv-vocab", "phi3 (q, k, v apart)", configs.HF_PHI3, phi3, {}, 308, {}),
            ("llama-bpe-vocab", "llama", configs.HF_LLAMA, gpt2,
             {"tokenizer.ggml.pre": gguf.string("llama-bpe")}, 301, {}),
            ("qwen2-vocab", "qwen2", configs.HF_QWEN2, gpt2,
             {"tokenizer.ggml.pre": gguf.string("qwen2")}, 302, {}),
            ("gpt2-vocab", "gpt2", configs.HF_GPT2, gpt2, {}, 303, {"hidden_dim": 256}),
            # 8 rotated pairs: two kept, two blended, four slowed by Llama 3.1's scaling
            ("llama3-rope-vocab", "llama", configs.HF_LLAMA3, gpt2,
             {"tokenizer.ggml.pre": gguf.string("llama-bpe")}, 305, {}),
            # YaRN: four pairs ramp from kept to interpolated, four are slowed
            ("llama-yarn-vocab", "llama", configs.HF_LLAMA_YARN, gpt2,
             {"tokenizer.ggml.pre": gguf.string("llama-bpe")}, 309, {}),
            # heads 32 wide, twice dim / n_heads
            ("qwen3-vocab", "qwen3", configs.HF_QWEN3, gpt2,
             {"tokenizer.ggml.pre": gguf.string("qwen2")}, 306, {"head_dim": 32, "rotary_dim": 32}),
            # three layers (global, sliding, sliding: a bool-array pattern), a window of 4 keys that the
            # 20-token sequences outgrow; a classifier of its own, so that the logits spread as widely as the
            # other fixtures' (tied to Gemma's small embeddings they crowd together, and ggml's float16
            # GELU table then flips near-ties)
            ("gemma3-vocab", "gemma3", configs.GEMMA3, spm, {}, 307,
             {"n_layers": 3, "sliding_layers": [False, True, True], "sliding_window": 4,
              "tied_embeddings": False}),
            # ALiBi over 12 heads (8 slopes of 8 heads, then 4 odd ones of 16), LayerNorm of the embeddings
            ("bloom-vocab", "bloom", configs.HF_BLOOM, gpt2, {}, 310,
             {"dim": 96, "n_heads": 12, "n_kv_heads": 12, "hidden_dim": 256}),
            # MPT-7B's kind (no biases) with ALiBi's max bias 6, which both engines read from the file. (Seed
            # 311's weights put a near tie, 0.0002 of a logit, at the 14th greedy token after "Once upon a
            # time", which llama.cpp's float16 KV cache flipped; glassbox agreed with the float64 reference.)
            ("mpt-vocab", "mpt", configs.HF_MPT, gpt2, {}, 312, {"hidden_dim": 256}),
        ]
        writers = {"llama": gguf_export.write_llama, "qwen2": gguf_export.write_qwen2,
                   "qwen3": gguf_export.write_qwen3, "phi3": gguf_export.write_phi3,
                   "gpt2": gguf_export.write_gpt2, "bloom": gguf_export.write_bloom,
                   "mpt": gguf_export.write_mpt,
                   "phi3 (q, k, v apart)": lambda *a: gguf_export.write_phi3(*a, fuse_qkv=False),
                   "gemma3": lambda *a: gguf_export.write_gemma3(*a, pattern_as_array=True)}
        for stem, arch, base, vocab_path, overrides, seed, cfg_overrides in jobs:
            kvs, n_vocab = tiny_vocab.copy_tokenizer(vocab_path, overrides)
            cfg = configs.as_float32_file(configs.real_vocab(base, n_vocab, **cfg_overrides))
            # Small token embeddings and larger layer weights: the blocks, not the
            # current token's own embedding, decide the next token, so greedy
            # decoding wanders instead of repeating one token.
            # Gemma's embeddings enter sqrt(dim) times larger and its classifier is tied: smaller still.
            embedding_std = 0.01 if cfg.get("scaled_embeddings") else 0.05
            weights = random_weights(cfg, seed, matrix_std=0.25, embedding_std=embedding_std, output_std=0.15)
            stored = writers[arch](self.path(stem + ".gguf"), cfg, weights, stem, kvs)
            prompt = [int(t) for t in np.random.default_rng(seed).integers(0, n_vocab, 4)]
            continuation = model.greedy(cfg, stored, prompt, 16)
            distinct = len(set(continuation))
            if distinct < 6:
                raise RuntimeError(f"{stem}: greedy decoding is too repetitive: {continuation}")
            if cfg.get("rope_scaling") and model.greedy(dict(cfg, rope_scaling=None), stored, prompt, 16) == continuation:
                raise RuntimeError(f"{stem}: RoPE scaling does not change the greedy tokens (a weak cross-check)")
            if cfg.get("sliding_window") and model.greedy(dict(cfg, sliding_window=0), stored, prompt, 16) == continuation:
                raise RuntimeError(f"{stem}: the sliding window does not change the greedy tokens (a weak cross-check)")
            if cfg["position"] == "alibi" and model.greedy(dict(cfg, alibi_max_bias=np.inf), stored, prompt, 16) == continuation:
                raise RuntimeError(f"{stem}: ALiBi does not change the greedy tokens (a weak cross-check)")
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
            ("hf-llama3-rope", configs.HF_LLAMA3, "llama", "F32", 1, 405),
            ("hf-qwen3", configs.HF_QWEN3, "qwen3", "F32", 1, 406),
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

    # (d-ii) Hugging Face folders with their own tokenizer.json (real vocabularies)
    def hf_folders_with_tokenizer(self):
        if not vocab_files_present():
            return
        jobs = [
            ("hf-llama-spm-tokenizer", configs.HF_LLAMA, "llama", "ggml-vocab-llama-spm.gguf",
             tokenizer_json.llama_spm_tokenizer_json, 403),
            ("hf-gpt2-tokenizer", configs.HF_GPT2, "gpt2", "ggml-vocab-gpt-2.gguf",
             tokenizer_json.gpt2_tokenizer_json, 404),
        ]
        for folder, base, family, vocab_file, make_tokenizer, seed in jobs:
            vocab_path = os.path.join(VOCAB_DIR, vocab_file)
            tj = make_tokenizer(vocab_path)
            n_vocab = len(tj["model"]["vocab"])
            cfg = configs.real_vocab(base, n_vocab, dim=32, hidden_dim=128 if family == "gpt2" else 64,
                                     rotary_dim=8 if family == "llama" else None,
                                     tied_embeddings=True)
            weights = random_weights(cfg, seed, matrix_std=0.25, embedding_std=0.05)
            stored = hf_export.write_folder(self.path(folder), cfg, weights, family)
            tokenizer_json.write(os.path.join(self.path(folder), "tokenizer.json"), tj)
            # The ids Hugging Face's own tokenizer gives the text (llama.cpp's test vectors), not ours.
            text, ids = vocab_vector(vocab_path, HF_FOLDER_TEXT)
            bos = [tj["model"]["vocab"]["<s>"]] if family == "llama" else []  # the post-processor's <s>
            write_expected(os.path.join(self.path(folder), "expected.json"), cfg, stored, bos + ids,
                           dtype="F32", text=text, text_ids=ids)
            self.note([folder + "/"], f"{family} Hugging Face folder with its tokenizer.json ({vocab_file}'s "
                      f"vocabulary, {n_vocab} tokens); expected.json has a text, Hugging Face's ids for it "
                      "(text_ids) and the logits of the prompt " + ("<s> + text_ids" if bos else "text_ids"))

    # (f) BERT encoders: GGUF bert and nomic-bert, Hugging Face folders, with a padded batch's outputs (encoder_fixtures.py)
    def encoders(self):
        encoder_fixtures.write_all(self)

    # (g) stories260K's per-token log-probabilities of a text, exact and under the attention variants
    def stories_score(self):
        if not os.path.exists(STORIES_MODEL):
            print(f"SKIPPED: {STORIES_MODEL} not found (scripts/fetch-models.sh; set GLASSBOX_MODELS_DIR)")
            return
        score_fixtures.write(self.path("stories260K-score.json"), STORIES_MODEL)
        cfg, weights = llama2c.read(STORIES_MODEL)
        circuit_fixtures.write(self.path("stories260K.circuits.json"), cfg, weights, score_fixtures.IDS[:12], 260,
                               low=259)
        self.note(["stories260K.circuits.json"], "stories260K (models/): activation patching and direct logit "
                  "attribution of the first 12 tokens of score_fixtures.TEXT (circuit_fixtures.py)")
        neuron_fixtures.write(self.path("stories260K.neurons.json"), cfg, weights, score_fixtures.IDS[:12])
        self.note(["stories260K.neurons.json"], "stories260K (models/): the feed-forwards' hidden units and one "
                  "layer's top neurons over the first 12 tokens of score_fixtures.TEXT (neuron_fixtures.py)")
        self.note(["stories260K-score.json"], "stories260K (models/) scoring a text: per-token log-probabilities "
                  "and loss, exact and under " + ", ".join(score_fixtures.VARIANTS[1:]) + " (score_fixtures.py)")

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


def inputs_digest():
    """A digest of everything the fixtures are made from: the reference's own sources, the vocabulary files
    it reads (by name, size and modification time) and NumPy's version."""
    digest = hashlib.sha256(np.__version__.encode())
    here = os.path.dirname(os.path.abspath(__file__))
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            digest.update(name.encode())
            with open(os.path.join(here, name), "rb") as f:
                digest.update(f.read())
    if os.path.isdir(VOCAB_DIR):
        for name in sorted(os.listdir(VOCAB_DIR)):
            info = os.stat(os.path.join(VOCAB_DIR, name))
            digest.update(f"{name} {info.st_size} {info.st_mtime_ns}".encode())
    if os.path.exists(STORIES_MODEL):
        info = os.stat(STORIES_MODEL)
        digest.update(f"stories260K.bin {info.st_size} {info.st_mtime_ns}".encode())
    return digest.hexdigest()


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    stamp = os.path.join(outdir, "INPUTS.sha256")
    digest = inputs_digest()
    if (os.environ.get("GLASSBOX_FIXTURES_REGENERATE") != "1" and os.path.exists(stamp)
            and os.path.exists(os.path.join(outdir, "MANIFEST.json")) and open(stamp).read().strip() == digest):
        print(f"fixtures in {outdir} are up to date (made from the same inputs, {digest[:12]})")
        return 0
    if os.path.exists(stamp):
        os.remove(stamp)
    start = time.time()
    fixtures = Fixtures(outdir)
    for step in (fixtures.variants, fixtures.quantized, fixtures.real_format_tiny,
                 fixtures.real_vocab, fixtures.hf_folders, fixtures.hf_folders_with_tokenizer,
                 fixtures.tokenizers, fixtures.encoders, fixtures.stories_score):
        t = time.time()
        step()
        print(f"{step.__name__:18s} {time.time() - t:6.2f} s")
    with open(os.path.join(outdir, "MANIFEST.json"), "w") as f:
        json.dump(fixtures.manifest, f, indent=2, ensure_ascii=False)
    print(f"{len(fixtures.manifest)} fixtures in {outdir} ({time.time() - start:.1f} s)")
    with open(stamp, "w") as f:
        f.write(digest + "\n")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main(sys.argv))
