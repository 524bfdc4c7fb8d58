"""Writing a reference model as GGUF, in five tensor/metadata conventions:

  glassbox  our own architecture: every variant knob is a metadata key
  llama     llama.cpp's `llama`: q/k rows permuted for adjacent-pair RoPE
  qwen2     llama.cpp's `qwen2`: q/k/v biases, half-pair ("NeoX") RoPE, no permutation
  qwen3     llama.cpp's `qwen3`: qwen2 without biases, with per-head q/k RMSNorm
  phi3      llama.cpp's `phi3`: fused q|k|v and gate|up matrices, half-pair RoPE
  gpt2      llama.cpp's `gpt2`: fused q|k|v matrix, learned positions
  bloom     llama.cpp's `bloom`: fused q|k|v matrix, ALiBi, LayerNorm of the embeddings
  mpt       llama.cpp's `mpt`: fused q|k|v matrix, ALiBi with the file's max bias, no biases
  bert      llama.cpp's `bert`: a BERT encoder (encoder.py), WordPiece vocabulary, our MLM head names

Each writer returns the weights *as stored* (after F16/BF16 rounding or
Q8_0/Q4_0 quantization and dequantization), in the reference's own naming and
layout, so the expected logits can be computed from exactly what the file holds.

A weight may also be given as a gguf.EncodedMatrix (bytes already in a block
format, e.g. random Q4_K blocks): it is written as it is, in the reference's
layout (the llama writer permutes its rows like any other q/k matrix), and
"as stored" is its decoded value.
"""

import re
from collections import OrderedDict

import numpy as np

import gguf
from model import head_dim, rope_freq_factors

QUANTIZED_FILE_TYPES = ("Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K_M", "Q4_K_M", "Q5_K_M", "IQ4_NL", "IQ4_XS")


def as_stored(array, ggml_type):
    """The values an engine reads back after the array is written in ggml_type."""
    if isinstance(array, gguf.EncodedMatrix):
        return array.decode()
    a = np.asarray(array)
    return gguf.decode_tensor(gguf.encode_tensor(a, ggml_type), list(reversed(a.shape)), ggml_type)


def encoded(array, ggml_type):
    """array (float values) encoded in ggml_type, as an EncodedMatrix."""
    a = np.asarray(array)
    return gguf.EncodedMatrix.from_bytes(ggml_type, gguf.encode_tensor(a, ggml_type), a.shape[0], a.shape[1])


def _matrix_type(array, tensor_type):
    """Only 2-D weight matrices take the file's type; norms, biases stay F32.
    An EncodedMatrix keeps its own type."""
    if isinstance(array, gguf.EncodedMatrix):
        return array.ggml_type
    return gguf.TYPE_BY_NAME[tensor_type] if np.ndim(array) == 2 else gguf.GGML_F32


def _add_tensors(writer, tensors, tensor_type):
    """Add {name: array} to the writer; return {name: stored values}."""
    stored = OrderedDict()
    for name, array in tensors.items():
        ggml_type = _matrix_type(array, tensor_type)
        value = array if isinstance(array, gguf.EncodedMatrix) else np.asarray(array, dtype=np.float32)
        writer.add_tensor(name, value, ggml_type)
        stored[name] = as_stored(array, ggml_type)
    return stored


def _common_header(writer, arch, name, file_type):
    writer.add("general.architecture", gguf.string(arch))
    writer.add("general.name", gguf.string(name))
    writer.add("general.file_type", gguf.u32(gguf.FILE_TYPE[file_type]))
    if file_type in QUANTIZED_FILE_TYPES:
        writer.add("general.quantization_version", gguf.u32(2))


def _add_all(writer, kvs):
    for key, value in kvs:
        writer.add(key, value)


_BLOCK_TENSOR = re.compile(r"^(blk\.\d+)\.(\w+)\.(weight|bias)$")


def _concat_rows(parts):
    if all(isinstance(p, gguf.EncodedMatrix) for p in parts):
        return parts[0].with_rows(np.concatenate([p.rows for p in parts], axis=0))
    if any(isinstance(p, gguf.EncodedMatrix) for p in parts):
        raise ValueError("cannot fuse an encoded matrix with float ones")
    return np.concatenate(parts, axis=0)


def fuse_rows(weights, fused, parts):
    """A copy of the weights where in every block the rows of the `parts`
    tensors (weights and biases alike) are stacked, in that order, into one
    tensor named `fused`, which takes the place of the first part."""
    out = OrderedDict()
    for key, value in weights.items():
        m = _BLOCK_TENSOR.match(key)
        if m and m.group(2) in parts:
            if m.group(2) == parts[0]:
                blk, kind = m.group(1), m.group(3)
                out[f"{blk}.{fused}.{kind}"] = _concat_rows([weights[f"{blk}.{p}.{kind}"] for p in parts])
            continue
        out[key] = value
    return out


def split_rows(stored, fused, parts, sizes):
    """Inverse of fuse_rows on stored (float) values: cut each `fused` tensor
    into `parts` of `sizes` rows."""
    out = OrderedDict()
    for key, value in stored.items():
        m = _BLOCK_TENSOR.match(key)
        if m and m.group(2) == fused:
            if value.shape[0] != sum(sizes):
                raise ValueError(f"{key} has {value.shape[0]} rows, expected {sum(sizes)}")
            for part, piece in zip(parts, np.split(value, np.cumsum(sizes)[:-1], axis=0)):
                out[f"{m.group(1)}.{part}.{m.group(3)}"] = piece
        else:
            out[key] = value
    return out


def _head_metadata(arch, cfg):
    """attention.key_length / value_length, written (as llama.cpp's converter does) only where heads are not
    dim / n_heads wide."""
    if head_dim(cfg) * cfg["n_heads"] == cfg["dim"]:
        return []
    return [(f"{arch}.attention.key_length", gguf.u32(head_dim(cfg))),
            (f"{arch}.attention.value_length", gguf.u32(head_dim(cfg)))]


def _rope_scaling(arch, cfg):
    """(metadata, tensors) for the config's RoPE scaling, as llama.cpp's converter writes them: linear
    scaling as rope.scaling.type/factor keys, Llama 3.1's as a rope_freqs.weight tensor of per-pair
    divisors (float32)."""
    scaling = cfg.get("rope_scaling") if cfg["position"] == "rope" else None
    if scaling is None:
        return [], OrderedDict()
    if scaling["type"] == "linear":
        return [(f"{arch}.rope.scaling.type", gguf.string("linear")),
                (f"{arch}.rope.scaling.factor", gguf.f32(scaling["factor"]))], OrderedDict()
    if scaling["type"] == "yarn":  # llama.cpp's default betas (32, 1): the converter writes no keys for them
        assert scaling.get("beta_fast", 32.0) == 32.0 and scaling.get("beta_slow", 1.0) == 1.0
        kvs = [(f"{arch}.rope.scaling.type", gguf.string("yarn")),
               (f"{arch}.rope.scaling.factor", gguf.f32(scaling["factor"])),
               (f"{arch}.rope.scaling.original_context_length", gguf.u32(scaling["original_context"]))]
        if scaling.get("attn_factor", 1.0) != 1.0:
            kvs.append((f"{arch}.rope.scaling.attn_factor", gguf.f32(scaling["attn_factor"])))
        return kvs, OrderedDict()
    return [], OrderedDict([("rope_freqs.weight", np.asarray(rope_freq_factors(cfg), dtype=np.float32))])


def _window_metadata(arch, cfg, pattern_as_array):
    """Sliding-window attention and the final soft-cap as llama.cpp reads them for gemma3: the window, which
    layers slide (an array of bools, or a number n: the last layer of every n is global), the sliding layers'
    RoPE base, the cap."""
    kvs = []
    if cfg.get("sliding_window"):
        layers = [bool(b) for b in cfg["sliding_layers"]]
        if pattern_as_array:
            pattern = gguf.array(gguf.BOOL, layers)
        else:
            n = next(n for n in range(1, len(layers) + 2)
                     if layers == [l % n < n - 1 for l in range(len(layers))])
            pattern = gguf.u32(n)
        kvs += [(f"{arch}.attention.sliding_window", gguf.u32(cfg["sliding_window"])),
                (f"{arch}.attention.sliding_window_pattern", pattern),
                (f"{arch}.rope.freq_base_swa", gguf.f32(cfg.get("rope_theta_sliding") or cfg["rope_theta"]))]
    if cfg.get("final_logit_softcap"):
        kvs.append((f"{arch}.final_logit_softcapping", gguf.f32(cfg["final_logit_softcap"])))
    return kvs


# -- glassbox --------------------------------------------------------------------

def glassbox_metadata(cfg):
    """The `glassbox.*` keys that describe a configuration (see README.md)."""
    kvs = [
        ("glassbox.vocab_size", gguf.u32(cfg["vocab_size"])),
        ("glassbox.context_length", gguf.u32(cfg["context_length"])),
        ("glassbox.embedding_length", gguf.u32(cfg["dim"])),
        ("glassbox.feed_forward_length", gguf.u32(cfg["hidden_dim"])),
        ("glassbox.block_count", gguf.u32(cfg["n_layers"])),
        ("glassbox.attention.head_count", gguf.u32(cfg["n_heads"])),
        ("glassbox.attention.head_count_kv", gguf.u32(cfg["n_kv_heads"])),
        ("glassbox.attention.layer_norm_epsilon", gguf.f32(cfg["norm_eps"])),
        ("glassbox.norm", gguf.string(cfg["norm"])),
        ("glassbox.norm_placement", gguf.string(cfg["norm_placement"])),
        ("glassbox.position", gguf.string(cfg["position"])),
        ("glassbox.activation", gguf.string(cfg["activation"])),
        ("glassbox.ffn_gated", gguf.boolean(cfg["ffn_gated"])),
    ] + _head_metadata("glassbox", cfg)
    if cfg.get("qk_norm"):
        kvs.append(("glassbox.attention.qk_norm", gguf.boolean(True)))
    if cfg.get("scaled_embeddings"):
        kvs.append(("glassbox.scaled_embeddings", gguf.boolean(True)))
    if cfg["position"] == "alibi":
        kvs.append(("glassbox.attention.max_alibi_bias", gguf.f32(cfg.get("alibi_max_bias", 8.0))))
    kvs += _window_metadata("glassbox", cfg, pattern_as_array=True)
    if cfg["position"] == "rope":
        kvs += [
            ("glassbox.rope.freq_base", gguf.f32(cfg["rope_theta"])),
            ("glassbox.rope.dimension_count", gguf.u32(cfg["rotary_dim"])),
            ("glassbox.rope.pairing", gguf.string(cfg["rope_pairing"])),
        ]
    return kvs


def write_glassbox(path, cfg, weights, name, tensor_type="F32", alignment=32, tokenizer_kvs=()):
    """Tensors are written under the reference's own (llama.cpp-style) names."""
    w = gguf.GGUFWriter(alignment)
    _common_header(w, "glassbox", name, tensor_type)
    _add_all(w, glassbox_metadata(cfg))
    scaling_kvs, scaling_tensors = _rope_scaling("glassbox", cfg)
    _add_all(w, scaling_kvs)
    _add_all(w, tokenizer_kvs)
    stored = _add_tensors(w, OrderedDict(list(scaling_tensors.items()) + list(weights.items())), tensor_type)
    w.write(path)
    return stored


# -- llama / qwen2 -----------------------------------------------------------------

def llama_permute(w, n_heads):
    """Reorder the rows of each head from half pairing to adjacent pairing.

    Hugging Face Llama weights rotate feature i with feature i + hd/2 of each
    head; llama.cpp's `llama` architecture rotates features 2i and 2i+1. So its
    converter moves row i of a head to row 2i and row i + hd/2 to row 2i + 1
    (view the head's rows as [2, hd/2], transpose to [hd/2, 2]). q.k dot
    products are unchanged, since q and k rows move the same way.
    An EncodedMatrix has its rows of bytes moved the same way.
    """
    if isinstance(w, gguf.EncodedMatrix):
        return w.with_rows(llama_permute(w.rows, n_heads))
    rows = w.shape[0]
    return (w.reshape(n_heads, 2, rows // n_heads // 2, *w.shape[1:])
             .swapaxes(1, 2)
             .reshape(w.shape))


def llama_unpermute(w, n_heads):
    """Inverse of llama_permute (adjacent -> half)."""
    rows = w.shape[0]
    return (w.reshape(n_heads, rows // n_heads // 2, 2, *w.shape[1:])
             .swapaxes(1, 2)
             .reshape(w.shape))


def _llm_metadata(arch, cfg, epsilon_key):
    return [
        (f"{arch}.context_length", gguf.u32(cfg["context_length"])),
        (f"{arch}.embedding_length", gguf.u32(cfg["dim"])),
        (f"{arch}.block_count", gguf.u32(cfg["n_layers"])),
        (f"{arch}.feed_forward_length", gguf.u32(cfg["hidden_dim"])),
        (f"{arch}.attention.head_count", gguf.u32(cfg["n_heads"])),
        (f"{arch}.attention.head_count_kv", gguf.u32(cfg["n_kv_heads"])),
        (f"{arch}.rope.freq_base", gguf.f32(cfg["rope_theta"])),
        (f"{arch}.attention.{epsilon_key}", gguf.f32(cfg["norm_eps"])),
        (f"{arch}.vocab_size", gguf.u32(cfg["vocab_size"])),
        (f"{arch}.rope.dimension_count", gguf.u32(cfg["rotary_dim"])),
    ] + _head_metadata(arch, cfg)


def _check_hf_rope_model(cfg, norm_placement="pre", activation="silu"):
    assert cfg["position"] == "rope" and cfg["rope_pairing"] == "half", "expects an HF-convention model"
    assert cfg["rotary_dim"] == head_dim(cfg), "llama/qwen2/phi3 files rotate the whole head"
    assert cfg["norm"] == "rmsnorm" and cfg["norm_placement"] == norm_placement
    assert cfg["activation"] == activation and cfg["ffn_gated"]
    if norm_placement == "pre":
        assert not (cfg.get("sliding_window") or cfg.get("scaled_embeddings") or cfg.get("final_logit_softcap"))


def write_llama(path, cfg, weights, name, tokenizer_kvs, tensor_type="F32", file_type=None):
    """A llama.cpp `llama` file from a model in Hugging Face convention (half-pair
    RoPE). The q and k rows (and biases, if any) are permuted so that a reader
    using adjacent pairs computes the same function. Returns the stored weights
    in the reference's half-pair layout (un-permuted back). file_type names
    general.file_type when the matrices are EncodedMatrix (e.g. "Q4_K_M")."""
    _check_hf_rope_model(cfg)
    w = gguf.GGUFWriter()
    _common_header(w, "llama", name, file_type or tensor_type)
    _add_all(w, _llm_metadata("llama", cfg, "layer_norm_rms_epsilon"))
    scaling_kvs, tensors = _rope_scaling("llama", cfg)
    _add_all(w, scaling_kvs)
    _add_all(w, tokenizer_kvs)
    for key, value in weights.items():
        if ".attn_q." in key:
            value = llama_permute(value, cfg["n_heads"])
        elif ".attn_k." in key:
            value = llama_permute(value, cfg["n_kv_heads"])
        tensors[key] = value
    stored = _add_tensors(w, tensors, tensor_type)
    w.write(path)
    for key in stored:
        if ".attn_q." in key:
            stored[key] = llama_unpermute(stored[key], cfg["n_heads"])
        elif ".attn_k." in key:
            stored[key] = llama_unpermute(stored[key], cfg["n_kv_heads"])
    return stored


def write_qwen2(path, cfg, weights, name, tokenizer_kvs, tensor_type="F32"):
    """A llama.cpp `qwen2` file: same tensors as the reference, no permutation
    (llama.cpp runs qwen2 with half-pair "NeoX" RoPE)."""
    _check_hf_rope_model(cfg)
    assert cfg["qkv_bias"] and not cfg["out_bias"], "qwen2 has q/k/v biases only"
    w = gguf.GGUFWriter()
    _common_header(w, "qwen2", name, tensor_type)
    _add_all(w, _llm_metadata("qwen2", cfg, "layer_norm_rms_epsilon"))
    _add_all(w, tokenizer_kvs)
    stored = _add_tensors(w, weights, tensor_type)
    w.write(path)
    return stored


def write_qwen3(path, cfg, weights, name, tokenizer_kvs, tensor_type="F32"):
    """A llama.cpp `qwen3` file: qwen2's layout without biases, plus blk.{i}.attn_q_norm / attn_k_norm
    ([head_dim] RMSNorm weights applied to each head before RoPE); heads may be wider than dim / n_heads
    (attention.key_length)."""
    _check_hf_rope_model(cfg)
    assert cfg.get("qk_norm") and not (cfg["qkv_bias"] or cfg["out_bias"] or cfg["ffn_bias"])
    w = gguf.GGUFWriter()
    _common_header(w, "qwen3", name, tensor_type)
    _add_all(w, _llm_metadata("qwen3", cfg, "layer_norm_rms_epsilon"))
    _add_all(w, tokenizer_kvs)
    stored = _add_tensors(w, weights, tensor_type)
    w.write(path)
    return stored


def write_gemma3(path, cfg, weights, name, tokenizer_kvs, tensor_type="F32", pattern_as_array=False):
    """A llama.cpp `gemma3` file: the reference's tensors (post_attention_norm / post_ffw_norm after each
    sub-block, attn_q_norm / attn_k_norm), no permutation (half-pair RoPE), tied. Gemma's RMSNorm scales by
    (1 + w); llama.cpp's converter adds the 1 to every norm weight it stores, so the stored weights are
    plain RMSNorm weights, which is what the reference's weights are here. Linear RoPE scaling applies to the
    global layers only (llama.cpp's freq_scale_swa is 1). Real Gemma files tie the classifier to the token
    embedding; llama.cpp also reads a separate output.weight, which the real-vocabulary fixture uses."""
    _check_hf_rope_model(cfg, norm_placement="sandwich", activation="gelu")
    assert cfg.get("qk_norm") and cfg.get("scaled_embeddings")  # real files are tied; llama.cpp reads output.weight too
    assert not (cfg["qkv_bias"] or cfg["out_bias"] or cfg["ffn_bias"]), "gemma3 has no biases"
    assert (cfg.get("rope_scaling") or {"type": "linear"})["type"] == "linear"
    w = gguf.GGUFWriter()
    _common_header(w, "gemma3", name, tensor_type)
    _add_all(w, _llm_metadata("gemma3", cfg, "layer_norm_rms_epsilon"))
    scaling_kvs, tensors = _rope_scaling("gemma3", cfg)
    _add_all(w, scaling_kvs)
    _add_all(w, _window_metadata("gemma3", cfg, pattern_as_array))
    _add_all(w, tokenizer_kvs)
    stored = _add_tensors(w, weights, tensor_type)
    w.write(path)
    return stored


# -- phi3 ------------------------------------------------------------------------

PHI3_SLIDING_WINDOW = 2047  # what Phi-3-mini-4k files carry; longer than any fixture's context


def write_phi3(path, cfg, weights, name, tokenizer_kvs, tensor_type="F32", fuse_qkv=True):
    """A llama.cpp `phi3` file (Phi-3 as convert_hf_to_gguf.py writes it):

      blk.{i}.attn_qkv.weight  rows q (n_heads*hd), then k, then v (n_kv_heads*hd
                               each): Phi-3's qkv_proj, read by llama.cpp as views
                               at offsets 0, n_embd and n_embd + n_embd_gqa
      blk.{i}.ffn_up.weight    2*hidden rows: gate first, then up (Phi-3's
                               gate_up_proj; llama.cpp's fused SwiGLU applies SiLU
                               to the first half and multiplies by the second)
      half-pair ("NeoX") RoPE over the whole head, q/k not permuted, no biases,
      RMSNorm, a separate output.weight (Phi-3's lm_head is not tied).
    fuse_qkv=False writes attn_q / attn_k / attn_v apart, as some phi3 files do (Phi-4-mini's converter);
    llama.cpp reads either.
    """
    _check_hf_rope_model(cfg)
    assert not (cfg["qkv_bias"] or cfg["out_bias"] or cfg["ffn_bias"]), "phi3 has no biases"
    assert not cfg["tied_embeddings"], "phi3 files carry output.weight"
    assert cfg["n_heads"] * head_dim(cfg) == cfg["dim"]
    w = gguf.GGUFWriter()
    _common_header(w, "phi3", name, tensor_type)
    _add_all(w, _llm_metadata("phi3", cfg, "layer_norm_rms_epsilon"))
    _add_all(w, [
        ("phi3.rope.scaling.original_context_length", gguf.u32(cfg["context_length"])),
        ("phi3.attention.sliding_window", gguf.u32(PHI3_SLIDING_WINDOW)),
    ])
    _add_all(w, tokenizer_kvs)
    tensors = fuse_rows(weights, "attn_qkv", ("attn_q", "attn_k", "attn_v")) if fuse_qkv else weights
    tensors = fuse_rows(tensors, "ffn_up", ("ffn_gate", "ffn_up"))
    stored = _add_tensors(w, tensors, tensor_type)
    w.write(path)
    kv_dim = cfg["n_kv_heads"] * head_dim(cfg)
    if fuse_qkv:
        stored = split_rows(stored, "attn_qkv", ("attn_q", "attn_k", "attn_v"), (cfg["dim"], kv_dim, kv_dim))
    return split_rows(stored, "ffn_up", ("ffn_gate", "ffn_up"), (cfg["hidden_dim"], cfg["hidden_dim"]))


# -- gpt2 ------------------------------------------------------------------------

def write_gpt2(path, cfg, weights, name, tokenizer_kvs, tensor_type="F32"):
    """A llama.cpp `gpt2` file. q, k, v are fused into blk.{i}.attn_qkv (rows q
    then k then v, as in GPT-2's c_attn); the classifier is tied, and, like
    llama.cpp's current converter, no output.weight is written (llama.cpp then
    uses token_embd.weight)."""
    assert cfg["norm"] == "layernorm" and cfg["norm_placement"] == "pre"
    assert cfg["position"] == "learned" and cfg["activation"] == "gelu" and not cfg["ffn_gated"]
    assert cfg["qkv_bias"] and cfg["out_bias"] and cfg["ffn_bias"] and cfg["tied_embeddings"]
    assert cfg["n_kv_heads"] == cfg["n_heads"]
    w = gguf.GGUFWriter()
    _common_header(w, "gpt2", name, tensor_type)
    _add_all(w, [
        ("gpt2.context_length", gguf.u32(cfg["context_length"])),
        ("gpt2.embedding_length", gguf.u32(cfg["dim"])),
        ("gpt2.feed_forward_length", gguf.u32(cfg["hidden_dim"])),
        ("gpt2.block_count", gguf.u32(cfg["n_layers"])),
        ("gpt2.attention.head_count", gguf.u32(cfg["n_heads"])),
        ("gpt2.attention.layer_norm_epsilon", gguf.f32(cfg["norm_eps"])),
    ])
    _add_all(w, tokenizer_kvs)
    stored = _add_tensors(w, fuse_rows(weights, "attn_qkv", ("attn_q", "attn_k", "attn_v")), tensor_type)
    w.write(path)
    return split_rows(stored, "attn_qkv", ("attn_q", "attn_k", "attn_v"), (cfg["dim"],) * 3)


# -- bloom -----------------------------------------------------------------------

def write_bloom(path, cfg, weights, name, tokenizer_kvs, tensor_type="F32"):
    """A llama.cpp `bloom` file, as its converter (BloomModel) writes one: q, k, v fused into
    blk.{i}.attn_qkv (rows q then k then v: the converter regroups BLOOM's per-head q|k|v rows), the
    embedding LayerNorm as token_embd_norm, biases everywhere, tied (no output.weight), and no
    max_alibi_bias key (llama.cpp fixes 8 for bloom)."""
    assert cfg["norm"] == "layernorm" and cfg["norm_placement"] == "pre" and cfg.get("embedding_norm")
    assert cfg["position"] == "alibi" and cfg.get("alibi_max_bias", 8.0) == 8.0
    assert cfg["activation"] == "gelu" and not cfg["ffn_gated"]
    assert cfg["qkv_bias"] and cfg["out_bias"] and cfg["ffn_bias"] and cfg["tied_embeddings"]
    assert cfg["n_kv_heads"] == cfg["n_heads"] and head_dim(cfg) * cfg["n_heads"] == cfg["dim"]
    w = gguf.GGUFWriter()
    _common_header(w, "bloom", name, tensor_type)
    _add_all(w, [
        ("bloom.context_length", gguf.u32(cfg["context_length"])),
        ("bloom.embedding_length", gguf.u32(cfg["dim"])),
        ("bloom.feed_forward_length", gguf.u32(cfg["hidden_dim"])),
        ("bloom.block_count", gguf.u32(cfg["n_layers"])),
        ("bloom.attention.head_count", gguf.u32(cfg["n_heads"])),
        ("bloom.attention.head_count_kv", gguf.u32(cfg["n_kv_heads"])),
        ("bloom.attention.layer_norm_epsilon", gguf.f32(cfg["norm_eps"])),
    ])
    _add_all(w, tokenizer_kvs)
    stored = _add_tensors(w, fuse_rows(weights, "attn_qkv", ("attn_q", "attn_k", "attn_v")), tensor_type)
    w.write(path)
    return split_rows(stored, "attn_qkv", ("attn_q", "attn_k", "attn_v"), (cfg["dim"],) * 3)


# -- mpt -------------------------------------------------------------------------

def write_mpt(path, cfg, weights, name, tokenizer_kvs, tensor_type="F32"):
    """A llama.cpp `mpt` file, as its converter (MPTModel) writes MPT-7B's kind: q, k, v fused into
    blk.{i}.attn_qkv (its Wqkv), LayerNorms without biases and no other biases, tied (no output.weight), and
    mpt.attention.max_alibi_bias (llama.cpp's ALiBi switch: absent or 0 would mean none)."""
    assert cfg["norm"] == "layernorm" and not cfg.get("norm_bias", True) and cfg["norm_placement"] == "pre"
    assert cfg["position"] == "alibi" and cfg["activation"] == "gelu" and not cfg["ffn_gated"]
    assert not (cfg["qkv_bias"] or cfg["out_bias"] or cfg["ffn_bias"]) and cfg["tied_embeddings"]
    assert head_dim(cfg) * cfg["n_heads"] == cfg["dim"] and not cfg.get("embedding_norm")
    w = gguf.GGUFWriter()
    _common_header(w, "mpt", name, tensor_type)
    _add_all(w, [
        ("mpt.context_length", gguf.u32(cfg["context_length"])),
        ("mpt.embedding_length", gguf.u32(cfg["dim"])),
        ("mpt.block_count", gguf.u32(cfg["n_layers"])),
        ("mpt.feed_forward_length", gguf.u32(cfg["hidden_dim"])),
        ("mpt.attention.head_count", gguf.u32(cfg["n_heads"])),
        ("mpt.attention.head_count_kv", gguf.u32(cfg["n_kv_heads"])),
        ("mpt.attention.layer_norm_epsilon", gguf.f32(cfg["norm_eps"])),
        ("mpt.attention.max_alibi_bias", gguf.f32(cfg.get("alibi_max_bias", 8.0))),
    ])
    _add_all(w, tokenizer_kvs)
    stored = _add_tensors(w, fuse_rows(weights, "attn_qkv", ("attn_q", "attn_k", "attn_v")), tensor_type)
    w.write(path)
    kv_dim = cfg["n_kv_heads"] * head_dim(cfg)
    return split_rows(stored, "attn_qkv", ("attn_q", "attn_k", "attn_v"), (cfg["dim"], kv_dim, kv_dim))


# -- bert ------------------------------------------------------------------------

# llama.cpp's enum llama_pooling_type, as bert.pooling_type stores it
POOLING_TYPE = {"none": 0, "mean": 1, "cls": 2, "last": 3, "rank": 4}
# The MLM head is not something llama.cpp's converter keeps (it drops cls.predictions.*); glassbox writes it
# under these names, the decoder tied to token_embd.weight. (llama.cpp's own `cls` / `cls.output` tensors are a
# sequence classifier, something else.)
MLM_HEAD_TENSORS = ("mlm_dense.weight", "mlm_dense.bias", "mlm_norm.weight", "mlm_norm.bias", "mlm_output.bias")


def bert_metadata(cfg, pooling):
    """The `bert.*` keys llama.cpp's converter writes (BertModel.set_gguf_parameters): sizes, the LayerNorm
    epsilon, causal = false, and the pooling type when the folder has a sentence-transformers pooling config
    (pooling None: no key, as for a plain BertModel folder). A nomic-bert's are the same under `nomic-bert.`,
    plus RoPE's base (rope.freq_base, from rotary_emb_base; no rope.dimension_count: whole heads turn)."""
    arch = cfg["architecture"]
    kvs = [
        (f"{arch}.block_count", gguf.u32(cfg["n_layers"])),
        (f"{arch}.context_length", gguf.u32(cfg["context_length"])),
        (f"{arch}.embedding_length", gguf.u32(cfg["dim"])),
        (f"{arch}.feed_forward_length", gguf.u32(cfg["hidden_dim"])),
        (f"{arch}.attention.head_count", gguf.u32(cfg["n_heads"])),
        (f"{arch}.attention.layer_norm_epsilon", gguf.f32(cfg["norm_eps"])),
        (f"{arch}.attention.causal", gguf.boolean(False)),
    ]
    if cfg.get("position") == "rope":
        kvs.append((f"{arch}.rope.freq_base", gguf.f32(cfg["rope_theta"])))
    if pooling is not None:
        kvs.append((f"{arch}.pooling_type", gguf.u32(POOLING_TYPE[pooling])))
    return kvs


def write_bert(path, cfg, weights, pieces, pooling="mean", name="bert", tensor_type="F32", lowercase=True):
    """A llama.cpp `bert` file of an encoder (encoder.py's config and weights, whose names are already
    llama.cpp's: token_embd, token_types, position_embd, token_embd_norm, blk.{i}.attn_q/attn_k/attn_v/
    attn_output (+ .bias), attn_output_norm, ffn_up, ffn_down (+ .bias), layer_output_norm), with the
    vocabulary `pieces` (Hugging Face form, "##" for continuing pieces; wordpiece_vocab.gguf_tokenizer_kvs)
    and, when the weights have them, the MLM head tensors MLM_HEAD_TENSORS. pooling: "mean" | "cls" | None
    (no bert.pooling_type key). Returns the weights as stored (after F16/BF16 rounding).
    A nomic-bert config (configs.nomic_bert_tiny) is written as llama.cpp's converter writes NomicBertModel:
    architecture `nomic-bert`, q|k|v rows stacked in blk.{i}.attn_qkv (its Wqkv), ffn_up (fc11) and ffn_gate
    (fc12) apart, no position table and no projection biases (the weights have none)."""
    import wordpiece_vocab

    arch = cfg["architecture"]
    assert arch in ("bert", "nomic-bert") and not cfg.get("causal")
    assert (arch == "nomic-bert") == (cfg.get("position") == "rope" and cfg.get("ffn_gated", False)
                                      and not cfg.get("biases", True))
    if len(pieces) != cfg["vocab_size"]:
        raise ValueError(f"{len(pieces)} pieces for a vocabulary of {cfg['vocab_size']}")
    has_mlm = all(n in weights for n in MLM_HEAD_TENSORS)
    if bool(cfg.get("mlm_head")) != has_mlm:
        raise ValueError("the config's mlm_head and the weights disagree")
    w = gguf.GGUFWriter()
    _common_header(w, arch, name, tensor_type)
    _add_all(w, bert_metadata(cfg, pooling))
    _add_all(w, wordpiece_vocab.gguf_tokenizer_kvs(pieces, cfg["n_token_types"], lowercase))
    if arch == "bert":
        stored = _add_tensors(w, weights, tensor_type)
        w.write(path)
        return stored
    qkv = ("attn_q", "attn_k", "attn_v")
    stored = _add_tensors(w, fuse_rows(weights, "attn_qkv", qkv), tensor_type)
    w.write(path)
    return split_rows(stored, "attn_qkv", qkv, (cfg["dim"],) * 3)
