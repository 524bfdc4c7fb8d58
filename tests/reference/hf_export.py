"""Writing a reference model as a Hugging Face folder: config.json plus
model.safetensors (or shards and an index).

Tensor names and layouts follow transformers' GPT2LMHeadModel,
LlamaForCausalLM, Qwen2ForCausalLM, BertModel and BertForMaskedLM (and
sentence-transformers' folder layout around a BertModel). GPT-2 is the odd one: its projections
are `Conv1D` modules whose weight is stored [in][out] (the transpose of
nn.Linear's [out][in]), and q, k, v live in one matrix c_attn with columns
q | k | v.
"""

import json
import os
from collections import OrderedDict

import numpy as np

import safetensors_io
from floats import round_to_bf16, round_to_f16
from model import head_dim

TORCH_DTYPE = {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}
ROUND = {"F32": lambda a: a, "F16": round_to_f16, "BF16": round_to_bf16}


# -- Llama / Qwen2 ------------------------------------------------------------------

def llama_tensors(cfg, weights):
    """{HF name: array} for LlamaForCausalLM / Qwen2ForCausalLM / Qwen3ForCausalLM."""
    out = OrderedDict()
    out["model.embed_tokens.weight"] = weights["token_embd.weight"]
    for i in range(cfg["n_layers"]):
        src, dst = f"blk.{i}.", f"model.layers.{i}."
        out[dst + "input_layernorm.weight"] = weights[src + "attn_norm.weight"]
        for ours, theirs in (("attn_q", "q_proj"), ("attn_k", "k_proj"), ("attn_v", "v_proj")):
            out[dst + f"self_attn.{theirs}.weight"] = weights[src + ours + ".weight"]
            if cfg["qkv_bias"]:
                out[dst + f"self_attn.{theirs}.bias"] = weights[src + ours + ".bias"]
        if cfg.get("qk_norm"):
            out[dst + "self_attn.q_norm.weight"] = weights[src + "attn_q_norm.weight"]
            out[dst + "self_attn.k_norm.weight"] = weights[src + "attn_k_norm.weight"]
        out[dst + "self_attn.o_proj.weight"] = weights[src + "attn_output.weight"]
        out[dst + "post_attention_layernorm.weight"] = weights[src + "ffn_norm.weight"]
        out[dst + "mlp.gate_proj.weight"] = weights[src + "ffn_gate.weight"]
        out[dst + "mlp.up_proj.weight"] = weights[src + "ffn_up.weight"]
        out[dst + "mlp.down_proj.weight"] = weights[src + "ffn_down.weight"]
    out["model.norm.weight"] = weights["output_norm.weight"]
    if not cfg["tied_embeddings"]:
        out["lm_head.weight"] = weights["output.weight"]
    return out


def _rope_scaling(scaling):
    """The reference's rope_scaling as transformers spells it in config.json."""
    if scaling is None:
        return None
    if scaling["type"] == "linear":
        return {"rope_type": "linear", "factor": scaling["factor"]}
    return {"rope_type": "llama3", "factor": scaling["factor"], "low_freq_factor": scaling["low_freq_factor"],
            "high_freq_factor": scaling["high_freq_factor"],
            "original_max_position_embeddings": scaling["original_context"]}


def llama_config(cfg, dtype, family):
    assert cfg["position"] == "rope" and cfg["rope_pairing"] == "half"
    assert cfg["rotary_dim"] == head_dim(cfg) and cfg["norm"] == "rmsnorm"
    assert cfg["norm_placement"] == "pre" and cfg["activation"] == "silu" and cfg["ffn_gated"]
    assert not cfg["out_bias"] and not cfg["ffn_bias"]
    architecture = {"llama": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM", "qwen3": "Qwen3ForCausalLM"}
    config = {
        "architectures": [architecture[family]],
        "model_type": family,
        "vocab_size": cfg["vocab_size"],
        "hidden_size": cfg["dim"],
        "intermediate_size": cfg["hidden_dim"],
        "num_hidden_layers": cfg["n_layers"],
        "num_attention_heads": cfg["n_heads"],
        "num_key_value_heads": cfg["n_kv_heads"],
        "hidden_act": "silu",
        "max_position_embeddings": cfg["context_length"],
        "rms_norm_eps": cfg["norm_eps"],
        "rope_theta": cfg["rope_theta"],
        "rope_scaling": _rope_scaling(cfg.get("rope_scaling")),
        "tie_word_embeddings": cfg["tied_embeddings"],
        "torch_dtype": TORCH_DTYPE[dtype],
        "initializer_range": 0.02,
        "use_cache": True,
    }
    if family == "llama":
        assert not cfg["qkv_bias"], "LlamaForCausalLM: use attention_bias for all four projections"
        config.update({"attention_bias": False, "mlp_bias": False, "bos_token_id": 1, "eos_token_id": 2})
    elif family == "qwen3":
        assert cfg.get("qk_norm") and not cfg["qkv_bias"], "Qwen3 has q/k norms and no biases"
        eos = cfg["vocab_size"] - 1
        config.update({"head_dim": head_dim(cfg), "attention_bias": False, "use_sliding_window": False,
                       "sliding_window": None, "max_window_layers": cfg["n_layers"], "bos_token_id": eos,
                       "eos_token_id": eos})
    else:
        assert cfg["qkv_bias"], "Qwen2 always has q/k/v biases"
        eos = cfg["vocab_size"] - 1
        config.update({"use_sliding_window": False, "sliding_window": cfg["context_length"],
                       "max_window_layers": cfg["n_layers"], "bos_token_id": eos, "eos_token_id": eos})
    return config


# -- GPT-2 -------------------------------------------------------------------------

def gpt2_tensors(cfg, weights):
    """{HF name: array} for GPT2LMHeadModel (tied: no lm_head.weight)."""
    out = OrderedDict()
    out["transformer.wte.weight"] = weights["token_embd.weight"]
    out["transformer.wpe.weight"] = weights["position_embd.weight"]
    for i in range(cfg["n_layers"]):
        src, dst = f"blk.{i}.", f"transformer.h.{i}."
        out[dst + "ln_1.weight"] = weights[src + "attn_norm.weight"]
        out[dst + "ln_1.bias"] = weights[src + "attn_norm.bias"]
        qkv = [weights[src + f"attn_{x}.weight"] for x in "qkv"]
        out[dst + "attn.c_attn.weight"] = np.concatenate(qkv, axis=0).T  # Conv1D: [in][out]
        out[dst + "attn.c_attn.bias"] = np.concatenate([weights[src + f"attn_{x}.bias"] for x in "qkv"])
        out[dst + "attn.c_proj.weight"] = weights[src + "attn_output.weight"].T
        out[dst + "attn.c_proj.bias"] = weights[src + "attn_output.bias"]
        out[dst + "ln_2.weight"] = weights[src + "ffn_norm.weight"]
        out[dst + "ln_2.bias"] = weights[src + "ffn_norm.bias"]
        out[dst + "mlp.c_fc.weight"] = weights[src + "ffn_up.weight"].T
        out[dst + "mlp.c_fc.bias"] = weights[src + "ffn_up.bias"]
        out[dst + "mlp.c_proj.weight"] = weights[src + "ffn_down.weight"].T
        out[dst + "mlp.c_proj.bias"] = weights[src + "ffn_down.bias"]
    out["transformer.ln_f.weight"] = weights["output_norm.weight"]
    out["transformer.ln_f.bias"] = weights["output_norm.bias"]
    return out


def gpt2_config(cfg, dtype):
    assert cfg["norm"] == "layernorm" and cfg["norm_placement"] == "pre"
    assert cfg["position"] == "learned" and cfg["activation"] == "gelu" and not cfg["ffn_gated"]
    assert cfg["qkv_bias"] and cfg["out_bias"] and cfg["ffn_bias"] and cfg["tied_embeddings"]
    assert cfg["n_kv_heads"] == cfg["n_heads"]
    assert cfg["hidden_dim"] == 4 * cfg["dim"], "GPT-2 with n_inner = null has a 4*n_embd MLP"
    eos = cfg["vocab_size"] - 1
    return {
        "architectures": ["GPT2LMHeadModel"],
        "model_type": "gpt2",
        "vocab_size": cfg["vocab_size"],
        "n_embd": cfg["dim"],
        "n_layer": cfg["n_layers"],
        "n_head": cfg["n_heads"],
        "n_positions": cfg["context_length"],
        "n_ctx": cfg["context_length"],
        "n_inner": None,
        "activation_function": "gelu_new",
        "layer_norm_epsilon": cfg["norm_eps"],
        "scale_attn_weights": True,
        "tie_word_embeddings": True,
        "bos_token_id": eos,
        "eos_token_id": eos,
        "torch_dtype": TORCH_DTYPE[dtype],
    }


# -- folders -----------------------------------------------------------------------

def write_folder(folder, cfg, weights, family, dtype="F32", n_shards=1, gpt2_prefix="transformer."):
    """Write config.json and the safetensors file(s); return the weights as
    stored (rounded to dtype), in the reference's naming.

    gpt2_prefix="" gives GPT-2 tensor names without the "transformer." prefix,
    as in OpenAI's original checkpoint on the Hub (openai-community/gpt2)."""
    os.makedirs(folder, exist_ok=True)
    if family == "gpt2":
        config, tensors = gpt2_config(cfg, dtype), gpt2_tensors(cfg, weights)
        tensors = OrderedDict((name.replace("transformer.", gpt2_prefix, 1), w) for name, w in tensors.items())
    else:
        config, tensors = llama_config(cfg, dtype, family), llama_tensors(cfg, weights)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    if n_shards == 1:
        safetensors_io.write_file(os.path.join(folder, "model.safetensors"), tensors, dtype)
    else:
        safetensors_io.write_sharded(folder, tensors, n_shards, dtype)
    return OrderedDict((name, ROUND[dtype](w)) for name, w in weights.items())


# -- BERT ----------------------------------------------------------------------------

# reference (llama.cpp) name -> transformers' BertModel name, per layer
_BERT_LAYER_NAMES = {"attn_q": "attention.self.query", "attn_k": "attention.self.key",
                     "attn_v": "attention.self.value", "attn_output": "attention.output.dense",
                     "attn_output_norm": "attention.output.LayerNorm", "ffn_up": "intermediate.dense",
                     "ffn_down": "output.dense", "layer_output_norm": "output.LayerNorm"}
_BERT_NAMES = {"token_embd": "embeddings.word_embeddings", "position_embd": "embeddings.position_embeddings",
               "token_types": "embeddings.token_type_embeddings", "token_embd_norm": "embeddings.LayerNorm"}
_MLM_NAMES = {"mlm_dense": "cls.predictions.transform.dense", "mlm_norm": "cls.predictions.transform.LayerNorm"}


def bert_tensors(cfg, weights, prefix=""):
    """{HF name: array} of a BERT encoder; nn.Linear weights are [out][in] like the reference's, so nothing
    is transposed. prefix "bert." for BertForMaskedLM, whose MLM head (cls.predictions.transform.dense,
    .LayerNorm, cls.predictions.bias) is added when the config has one; the decoder is tied to the word
    embeddings and, as transformers saves tied weights, not written."""
    out = OrderedDict()
    for ours, theirs in _BERT_NAMES.items():
        for kind in ("weight", "bias"):
            if f"{ours}.{kind}" in weights:
                out[f"{prefix}{theirs}.{kind}"] = weights[f"{ours}.{kind}"]
    for i in range(cfg["n_layers"]):
        for ours, theirs in _BERT_LAYER_NAMES.items():
            for kind in ("weight", "bias"):
                out[f"{prefix}encoder.layer.{i}.{theirs}.{kind}"] = weights[f"blk.{i}.{ours}.{kind}"]
    if cfg.get("mlm_head"):
        for ours, theirs in _MLM_NAMES.items():
            for kind in ("weight", "bias"):
                out[f"{theirs}.{kind}"] = weights[f"{ours}.{kind}"]
        out["cls.predictions.bias"] = weights["mlm_output.bias"]
    return out


def bert_config(cfg, dtype, architecture):
    assert cfg["architecture"] == "bert" and not cfg.get("causal")
    assert bool(cfg.get("mlm_head")) == (architecture == "BertForMaskedLM")
    return {
        "architectures": [architecture],
        "model_type": "bert",
        "attention_probs_dropout_prob": 0.1,
        "classifier_dropout": None,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": cfg["dim"],
        "initializer_range": 0.02,
        "intermediate_size": cfg["hidden_dim"],
        "layer_norm_eps": cfg["norm_eps"],
        "max_position_embeddings": cfg["context_length"],
        "num_attention_heads": cfg["n_heads"],
        "num_hidden_layers": cfg["n_layers"],
        "pad_token_id": cfg["pad_id"],
        "position_embedding_type": "absolute",
        "torch_dtype": TORCH_DTYPE[dtype],
        "type_vocab_size": cfg["n_token_types"],
        "use_cache": True,
        "vocab_size": cfg["vocab_size"],
    }


def sentence_transformers_files(folder, cfg, pooling, normalize):
    """modules.json (Transformer at the folder's root, Pooling in 1_Pooling, Normalize when asked),
    1_Pooling/config.json with the one pooling mode set, and sentence_bert_config.json. A Normalize module
    has no files of its own (its folder is absent from Hub repositories), so none is made."""
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
    with open(os.path.join(folder, "modules.json"), "w") as f:
        json.dump(modules, f, indent=2)
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    with open(os.path.join(folder, "1_Pooling", "config.json"), "w") as f:
        json.dump({"word_embedding_dimension": cfg["dim"], "pooling_mode_cls_token": pooling == "cls",
                   "pooling_mode_mean_tokens": pooling == "mean", "pooling_mode_max_tokens": False,
                   "pooling_mode_mean_sqrt_len_tokens": False, "pooling_mode_weightedmean_tokens": False,
                   "pooling_mode_lasttoken": False, "include_prompt": True}, f, indent=2)
    with open(os.path.join(folder, "sentence_bert_config.json"), "w") as f:
        json.dump({"max_seq_length": cfg["context_length"], "do_lower_case": False}, f, indent=2)


def write_bert_folder(folder, cfg, weights, architecture, pieces, dtype="F32", sentence_transformers=None,
                      extra_tensors=None):
    """A BERT Hugging Face folder: config.json, model.safetensors, tokenizer.json (+ tokenizer_config.json,
    vocab.txt). architecture "BertModel" (names without prefix) or "BertForMaskedLM" ("bert." prefix plus
    the MLM head). sentence_transformers: None, or {"pooling": "mean" | "cls", "normalize": bool} for the
    sentence-transformers files around a BertModel. extra_tensors: {HF name: array} written as well (e.g.
    BertModel's pooler.dense, which real checkpoints carry and an embedding model does not use).
    Returns the reference's weights as stored (rounded to dtype)."""
    import wordpiece_vocab

    os.makedirs(folder, exist_ok=True)
    prefix = "bert." if architecture == "BertForMaskedLM" else ""
    tensors = bert_tensors(cfg, weights, prefix)
    tensors.update(extra_tensors or {})
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(bert_config(cfg, dtype, architecture), f, indent=2)
    safetensors_io.write_file(os.path.join(folder, "model.safetensors"), tensors, dtype)
    wordpiece_vocab.write_tokenizer_files(folder, pieces)
    if sentence_transformers is not None:
        assert architecture == "BertModel"
        sentence_transformers_files(folder, cfg, sentence_transformers["pooling"],
                                    sentence_transformers.get("normalize", False))
    return OrderedDict((name, ROUND[dtype](w)) for name, w in weights.items())
