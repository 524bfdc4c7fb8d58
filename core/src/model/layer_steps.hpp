// Steps of a layer that the forward pass and the inspection recomputations (attention rows, the logit lens)
// both take. One definition each, so that a recomputed value goes through the very same kernels in the same
// order as the forward pass, and comes out as the same bits.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "glassbox/model.hpp"
#include "glassbox/positions.hpp"
#include "kernels/kernels.hpp"
#include "model/run_state.hpp"
#include "model/visible_keys.hpp"

namespace glassbox {

// out = norm(x) with the model's kind of norm (RMSNorm, or LayerNorm with an optional bias).
inline void normalize(const ModelConfig& c, float* out, const float* x, const Tensor& weight,
                      const Tensor& bias) {
  if (c.norm == NormKind::RMSNorm) {
    kernels::rmsnorm(out, x, weight.f32(), static_cast<std::size_t>(c.dim), c.norm_eps);
  } else {
    kernels::layernorm(out, x, weight.f32(), bias.present() ? bias.f32() : nullptr,
                       static_cast<std::size_t>(c.dim), c.norm_eps);
  }
}

// Rotates `heads` consecutive heads of `x` (head_dim values each) by the angles of one position, given as
// that position's rows of the cos/sin tables (rotary_dim / 2 entries each).
inline void rope_heads(const ModelConfig& c, float* x, int heads, const float* cos_row,
                       const float* sin_row) {
  const auto rotary = static_cast<std::size_t>(c.rotary_dim());
  for (int h = 0; h < heads; ++h)
    kernels::rope(x + static_cast<std::size_t>(h) * c.head_dim, cos_row, sin_row, rotary, c.rope_pairing);
}

// Where the model normalizes queries and keys (Qwen3, Gemma 3): each of `heads` heads of x RMS-normalized
// over head_dim, in place, with `head_norm` (the layer's q or k norm weights).
inline void normalize_heads(const ModelConfig& c, float* x, int heads, const Tensor& head_norm) {
  if (!c.qk_norm) return;
  const auto head_dim = static_cast<std::size_t>(c.head_dim);
  for (int h = 0; h < heads; ++h) {
    float* head = x + static_cast<std::size_t>(h) * head_dim;
    kernels::rmsnorm(head, head, head_norm.f32(), head_dim, c.norm_eps);
  }
}

// The queries (or keys) of `heads` heads at `position` of `layer`, between their projection and the
// attention scores: normalized (normalize_heads), then rotated by RoPE with the run state's tables (the
// layer's own, where it slides) where the model uses RoPE.
inline void place_heads(const ModelConfig& c, const RunState& s, float* x, int heads, const Tensor& head_norm,
                        int layer, int position) {
  normalize_heads(c, x, heads, head_norm);
  if (c.position != PositionKind::RoPE) return;
  const bool sliding = c.slides(layer);
  const auto p = static_cast<std::size_t>(position);
  rope_heads(c, x, heads, s.rope_cos_row(sliding, p), s.rope_sin_row(sliding, p));
}

// What a head adds to a query's scaled scores before the softmax: ALiBi's -slope * |query_row - key_row|
// (glassbox/positions.hpp's alibi_slope; rows of one text are consecutive positions, so the distance in rows
// is the distance in positions), or nothing (slope 0: every other position kind).
struct ScoreBias {
  float slope = 0.0f;
  std::size_t query_row = 0;  // the query's cache row
};

inline ScoreBias score_bias(const ModelConfig& c, std::size_t head, std::size_t query_row) {
  if (c.position != PositionKind::ALiBi) return {};
  return {alibi_slope(c, static_cast<int>(head)), query_row};
}

// One head's attention probabilities for a query over keys 0..n_keys-1 (rows key_stride floats apart), of
// which it sees first_key..n_keys-1 (ModelConfig::first_visible_key): scores q·k / sqrt(head_dim) (plus the
// head's bias, where it has one), then softmax over the visible keys; the masked ones get probability 0.
// `probabilities` has room for n_keys.
// The second half of it, for scores q·k already in probabilities[first_key, n_keys) (a prompt's attention
// computes them for a tile of queries at once: model/attention_schedule.cpp).
// `hidden` is a run of keys inside the range that the query does not see either (global-window's gap between
// its global keys and its window, model/visible_keys.hpp): they enter the softmax as -inf, which gives them
// probability exactly 0 and leaves every other probability as a softmax over the seen keys alone.
inline void probabilities_from_scores(float* probabilities, std::size_t first_key, std::size_t n_keys,
                                      std::size_t head_dim, ScoreBias bias = {}, KeyRange hidden = {}) {
  const float scale = std::sqrt(static_cast<float>(head_dim));
  std::fill(probabilities, probabilities + first_key, 0.0f);
  float* visible = probabilities + first_key;
  const std::size_t n_visible = n_keys - first_key;
  for (std::size_t t = 0; t < n_visible; ++t)
    visible[t] /= scale;
  if (bias.slope != 0.0f) {
    for (std::size_t t = 0; t < n_visible; ++t) {
      const std::size_t key = first_key + t;
      const std::size_t distance = key > bias.query_row ? key - bias.query_row : bias.query_row - key;
      visible[t] -= bias.slope * static_cast<float>(distance);
    }
  }
  std::fill(probabilities + hidden.begin, probabilities + hidden.end,
            -std::numeric_limits<float>::infinity());
  kernels::softmax(visible, n_visible);
}

inline void attention_probabilities(float* probabilities, const float* q, const float* keys,
                                    std::size_t key_stride, std::size_t first_key, std::size_t n_keys,
                                    std::size_t head_dim, ScoreBias bias = {}) {
  kernels::dot_strided(probabilities + first_key, keys + first_key * key_stride, key_stride,
                       n_keys - first_key, q, head_dim);
  probabilities_from_scores(probabilities, first_key, n_keys, head_dim, bias);
}

// The attention output of one head: the probabilities' weighted sum of the visible value rows.
inline void attention_output(float* out, const float* probabilities, const float* values,
                             std::size_t value_stride, std::size_t first_key, std::size_t n_keys,
                             std::size_t head_dim) {
  kernels::weighted_row_sum(out, probabilities + first_key, values + first_key * value_stride, value_stride,
                            n_keys - first_key, head_dim);
}

// act(x) in place, for n values, with the model's activation.
inline void activate(Activation activation, float* x, std::size_t n) {
  switch (activation) {
    case Activation::SiLU:
      kernels::silu(x, n);
      break;
    case Activation::GELU:
      kernels::gelu_tanh(x, n);
      break;
    case Activation::GELUExact:
      kernels::gelu_erf(x, n);
      break;
    case Activation::ReLU:
      kernels::relu(x, n);
      break;
  }
}

// One token's feed-forward hidden layer, what the down projection reads, in place in `hidden` (hidden_dim
// values): a gated feed-forward's act(gate) * up, where `hidden` holds the gate projection and `up` the up
// projection (SwiGLU fused); a plain one's act(up), where `hidden` holds the up projection (`up` unused).
inline void feed_forward_hidden(const ModelConfig& c, float* hidden, const float* up) {
  const auto hidden_dim = static_cast<std::size_t>(c.hidden_dim);
  if (!c.gated_ffn) {
    activate(c.activation, hidden, hidden_dim);
  } else if (c.activation == Activation::SiLU) {
    kernels::swiglu(hidden, up, hidden_dim);  // silu(gate) * up, fused
  } else {
    activate(c.activation, hidden, hidden_dim);
    for (std::size_t i = 0; i < hidden_dim; ++i)
      hidden[i] *= up[i];
  }
}

// Gemma 2's soft-capping of the logits: cap * tanh(logit / cap), where the model has a cap.
inline void softcap_logits(const ModelConfig& c, float* logits, std::size_t n) {
  if (c.final_logit_softcap <= 0.0f) return;
  const float cap = c.final_logit_softcap;
  for (std::size_t i = 0; i < n; ++i)
    logits[i] = cap * std::tanh(logits[i] / cap);
}

}  // namespace glassbox
