"""A float64 BERT encoder over a padded batch, written from the equations (seeds 001 and 004).

The configuration (configs.bert_tiny() builds one; README.md "The encoder" has the table):

  vocab_size, dim, n_layers, n_heads, hidden_dim   sizes; head_dim = dim / n_heads
  context_length   rows of the learned position table (the longest text it takes)
  n_token_types    rows of the token-type ("segment") table
  norm_eps         epsilon of every LayerNorm
  activation       "gelu_erf" (BERT's exact GELU); "gelu" (the tanh form) only to show that it matters
  causal           False for BERT (every query sees every real key); True only to show that it matters
  pooling          "mean" (the real tokens' average, [CLS] and [SEP] included) | "cls" (row 0)
  mlm_head         whether the model has the masked-language-model head
  pad_id           the id that fills a text up to the batch's longest

nomic-bert (nomic-embed-text v1/v1.5; configs.nomic_bert_tiny() builds one) changes four of BERT's pieces, each
a key of its own (absent: BERT's choice):

  position         "learned" (BERT: position_embd added to the embeddings) | "rope": q and k of every head
                   turned by ops.apply_rope, positions 0 .. T-1 of each text, no position table
  rope_theta, rope_pairing   RoPE's base and pairing: "half" (NeoX, nomic-bert's) | "adjacent" (only in checks)
  ffn_gated        False (BERT: down(act(up a))) | True: down(act(gate a) * up a), nomic-bert's SwiGLU with
                   activation "silu"
  biases           True (BERT: every projection adds one) | False: only the LayerNorms have biases

The forward pass, for a batch of B texts padded to T tokens, text b holding lengths[b] real ones:

  x = token_embd[id] + position_embd[t] + token_types[type]          (positions t = 0 .. T-1 per text)
  x = LN(x; token_embd_norm)
  per layer (Post-LN):
    a = LN(x + attn_output(MHA(x)); attn_output_norm)
    x = LN(a + ffn_down(gelu_erf(ffn_up(a))); layer_output_norm)
  MHA: q, k, v = x Wq^T + bq, ...; per head softmax(q k^T / sqrt(head_dim) + mask) v, the heads side
  by side; mask = -inf where key j >= lengths[b] (padding), 0 elsewhere (no causal triangle), so a
  padded key gets probability exactly 0 and no real token sees padding. Padded query rows are computed
  too (they attend to the real keys) and are simply not part of any result.

Heads on the last hidden states h [B, T, dim]:

  pooled(b)   = mean of h[b, :lengths[b]]  or  h[b, 0]; optionally divided by its L2 norm
  MLM logits  = LN(gelu_erf(mlm_dense(h)); mlm_norm) @ token_embd^T + mlm_output.bias  (decoder tied)

Weights are float64 arrays under llama.cpp's `bert` tensor names, matrices [out][in] (y = W @ x); a
nomic-bert has no position_embd, adds blk.{i}.ffn_gate.weight [hidden][dim], and has no projection biases:

  token_embd.weight [vocab][dim]   position_embd.weight [context][dim]   token_types.weight [types][dim]
  token_embd_norm.weight/.bias [dim]
  blk.{i}.attn_q/attn_k/attn_v.weight [dim][dim] + .bias    blk.{i}.attn_output.weight [dim][dim] + .bias
  blk.{i}.attn_output_norm.weight/.bias [dim]
  blk.{i}.ffn_up.weight [hidden][dim] + .bias               blk.{i}.ffn_down.weight [dim][hidden] + .bias
  blk.{i}.layer_output_norm.weight/.bias [dim]
  mlm_dense.weight [dim][dim] + .bias, mlm_norm.weight/.bias [dim], mlm_output.bias [vocab]  (MLM head only)
"""

import numpy as np

import ops


def head_dim(cfg):
    return cfg["dim"] // cfg["n_heads"]


def pad_batch(texts, pad_id):
    """[B][T] int array of the texts padded with pad_id to the longest, and their lengths [B]."""
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    if lengths.min() < 1:
        raise ValueError("every text needs at least one token")
    tokens = np.full((len(texts), lengths.max()), pad_id, dtype=np.int64)
    for b, t in enumerate(texts):
        tokens[b, :len(t)] = t
    return tokens, lengths


def _linear(x, weights, name):
    """x @ W^T (+ b where the model has the bias: every BERT projection, no nomic-bert one) on the last axis."""
    y = x @ weights[name + ".weight"].T
    return y + weights[name + ".bias"] if name + ".bias" in weights else y


def _norm(weights, name, x, eps):
    return ops.layer_norm(x, weights[name + ".weight"], weights[name + ".bias"], eps)


def padding_mask(lengths, T, causal=False):
    """[B, 1, T, T] additive mask: -inf where key j is padding (j >= lengths[b]), and with causal=True where
    j > i as well; 0 elsewhere. Broadcasts over heads."""
    j = np.arange(T)[None, None, None, :]
    hidden = j >= np.asarray(lengths)[:, None, None, None]
    if causal:
        hidden = hidden | (j > np.arange(T)[None, None, :, None])
    return np.where(hidden, -np.inf, 0.0)


def embed(cfg, weights, tokens, token_types=None):
    """Token + position + token-type embeddings, then the embedding LayerNorm: [B, T, dim]."""
    tokens = np.asarray(tokens)
    T = tokens.shape[1]
    if T > cfg["context_length"]:
        raise ValueError(f"{T} tokens, but the model has {cfg['context_length']} positions")
    types = np.zeros_like(tokens) if token_types is None else np.asarray(token_types)
    x = weights["token_embd.weight"][tokens] + weights["token_types.weight"][types]
    if cfg.get("position", "learned") == "learned":
        x = x + weights["position_embd.weight"][:T][None]
    return _norm(weights, "token_embd_norm", x, cfg["norm_eps"])


def attention(cfg, weights, layer, x, lengths, trace=None):
    """Bidirectional multi-head self-attention over a padded batch x [B, T, dim]."""
    B, T, _ = x.shape
    H, hd = cfg["n_heads"], head_dim(cfg)
    p = f"blk.{layer}."
    q, k, v = (_linear(x, weights, p + name).reshape(B, T, H, hd) for name in ("attn_q", "attn_k", "attn_v"))
    if cfg.get("position", "learned") == "rope":  # every text's positions 0 .. T-1, whole heads turned
        turn = lambda y: ops.apply_rope(y, np.arange(T), hd, cfg["rope_theta"], cfg["rope_pairing"])
        q, k = turn(q), turn(k)
    q, k, v = (y.transpose(0, 2, 1, 3) for y in (q, k, v))  # [B, H, T, hd]
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd) + padding_mask(lengths, T, cfg.get("causal", False))
    probs = ops.softmax(scores)  # [B, H, T queries, T keys]; masked keys exactly 0
    if trace is not None:
        trace.setdefault("attention", []).append(probs)
    heads = (probs @ v).transpose(0, 2, 1, 3).reshape(B, T, H * hd)
    return _linear(heads, weights, p + "attn_output")


ACTIVATIONS = {"gelu_erf": ops.gelu_erf, "gelu": ops.gelu_tanh, "silu": ops.silu}


def _activation(cfg):
    return ACTIVATIONS[cfg.get("activation", "gelu_erf")]


def feed_forward(cfg, weights, layer, x):
    p = f"blk.{layer}."
    if cfg.get("ffn_gated"):  # SwiGLU: the activation on the gate, times the up projection
        hidden = _activation(cfg)(_linear(x, weights, p + "ffn_gate")) * _linear(x, weights, p + "ffn_up")
    else:
        hidden = _activation(cfg)(_linear(x, weights, p + "ffn_up"))
    return _linear(hidden, weights, p + "ffn_down")


def hidden_states(cfg, weights, tokens, lengths, token_types=None, trace=None):
    """The last hidden states [B, T, dim] of a padded batch (rows t >= lengths[b] are padding)."""
    x = embed(cfg, weights, tokens, token_types)
    eps = cfg["norm_eps"]
    for layer in range(cfg["n_layers"]):
        p = f"blk.{layer}."
        a = _norm(weights, p + "attn_output_norm", x + attention(cfg, weights, layer, x, lengths, trace), eps)
        x = _norm(weights, p + "layer_output_norm", a + feed_forward(cfg, weights, layer, a), eps)
        if trace is not None:
            trace.setdefault("layer_outputs", []).append(x)
    return x


def pool(hidden, lengths, pooling):
    """[B, dim]: the mean of each text's real rows ("mean") or its first row ("cls")."""
    if pooling == "cls":
        return hidden[:, 0, :].copy()
    if pooling == "mean":
        real = (np.arange(hidden.shape[1])[None, :] < np.asarray(lengths)[:, None])[..., None]
        return (hidden * real).sum(axis=1) / np.asarray(lengths, dtype=np.float64)[:, None]
    raise ValueError(f"unknown pooling {pooling!r}")


def l2_normalize(v):
    """Each row divided by its Euclidean length."""
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def mlm_logits(cfg, weights, h):
    """Masked-language-model logits [..., vocab] of hidden states h [..., dim]."""
    if not cfg.get("mlm_head"):
        raise ValueError("the model has no MLM head")
    t = _norm(weights, "mlm_norm", _activation(cfg)(_linear(h, weights, "mlm_dense")), cfg["norm_eps"])
    return t @ weights["token_embd.weight"].T + weights["mlm_output.bias"]


def encode(cfg, weights, texts, token_types=None, trace=None):
    """Everything the fixtures record for a list of token-id lists (each with its [CLS] ... [SEP]):
    {"tokens" [B, T] padded, "lengths" [B], "hidden" [B, T, dim], "pooled" [B, dim],
     "pooled_normalized" [B, dim]}. token_types: [B][T] or None (all 0)."""
    tokens, lengths = pad_batch(texts, cfg["pad_id"])
    hidden = hidden_states(cfg, weights, tokens, lengths, token_types, trace)
    pooled = pool(hidden, lengths, cfg["pooling"])
    return {"tokens": tokens, "lengths": lengths, "hidden": hidden, "pooled": pooled,
            "pooled_normalized": l2_normalize(pooled)}
