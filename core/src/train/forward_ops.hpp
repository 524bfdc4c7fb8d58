// Plain scalar statements of the forward pass's ops, over a number type T (float for training, double for
// the gradient checks' finite differences). They compute what the engine's kernels compute
// (kernels/reference.cpp, model/layer_steps.hpp), written so that a backward pass can keep what it needs:
// tests/train_backward_test.cpp checks them against the kernels in float. The double instantiations are the
// plain loops written here, the reference the float paths are compared with (tests/train_products_test.cpp).
// The float instantiations, which training runs, are the forward pass's own kernels and steps instead: the
// norms, RoPE, the feed-forward's activation, the log-probabilities of score_tokens, and (train/
// float_products.hpp) the batched products and attention. So training's forward pass computes inference's
// bits, and a step's loss is exactly what `glassbox score` reports for its rows
// (tests/train_model_gradients_test.cpp holds them equal on every trainable architecture).
//
// Layout: rows of a batch are consecutive (x[t * width + i]); a weight matrix is [out][in], as GGUF and the
// forward pass store it (row o is output o's weights).
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "glassbox/config.hpp"

namespace glassbox::train {

// out[t] = table[tokens[t]] for n tokens, dim values per row.
template <class T>
void embedding_forward(T* out, const T* table, const int* tokens, std::size_t n, std::size_t dim);

// One row: out = x / sqrt(mean(x^2) + eps) * weight.
template <class T>
void rmsnorm_forward(T* out, const T* x, const T* weight, std::size_t n, T eps);

// One row: out = (x - mean) / sqrt(var + eps) * weight + bias (bias may be null).
template <class T>
void layernorm_forward(T* out, const T* x, const T* weight, const T* bias, std::size_t n, T eps);

// n rows: y[t] = W x[t] (+ b), W [out_dim][in_dim], b null or out_dim long.
template <class T>
void linear_forward(T* y, const T* x, const T* weight, const T* bias, std::size_t n, std::size_t in_dim,
                    std::size_t out_dim);

// RoPE of one head in place: pair i of the first rotary_dim values turned by the angle whose cosine and
// sine are cos_row[i], sin_row[i] (the pairing as the forward pass's kernels::rope).
template <class T>
void rope_forward(T* x, const T* cos_row, const T* sin_row, std::size_t rotary_dim, RopePairing pairing);

// The cos and sin rows of RoPE at `position` of `layer` (rotary_dim / 2 each), from the forward pass's own
// angle (glassbox::rope_angle) and magnitude, as the run state's tables are built.
template <class T>
void rope_rows(const ModelConfig& config, int position, int layer, std::vector<T>& cos_row,
               std::vector<T>& sin_row);

// Causal softmax attention of n positions, all heads at once (grouped-query: query head h reads kv head
// h / (n_heads / n_kv_heads)). q, out: [n][n_heads * head_dim]; k, v: [n][n_kv_heads * head_dim].
// probabilities: [n_heads][n][n], row i's keys 0..i (the rest 0), kept for the backward pass.
// LayerNorm's statistics of x[n]: its mean and 1 / sqrt(variance + eps) (the forward and backward share them).
template <class T>
struct NormStatistics {
  T mean, inverse_std;
};
template <class T>
NormStatistics<T> layernorm_statistics(const T* x, std::size_t n, T eps) {
  T mean = 0;
  for (std::size_t i = 0; i < n; ++i)
    mean += x[i];
  mean /= static_cast<T>(n);
  T variance = 0;
  for (std::size_t i = 0; i < n; ++i)
    variance += (x[i] - mean) * (x[i] - mean);
  variance /= static_cast<T>(n);
  return {mean, T(1) / std::sqrt(variance + eps)};
}

struct AttentionShape {
  std::size_t n = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0;
  std::size_t q_width() const { return n_heads * head_dim; }
  std::size_t kv_width() const { return n_kv_heads * head_dim; }
};
template <class T>
void attention_forward(T* out, T* probabilities, const T* q, const T* k, const T* v, const AttentionShape& s);

// x[i] = act(x[i]) with the forward pass's activations (SiLU, GELU tanh, GELU erf, ReLU).
template <class T>
T activation_value(Activation activation, T x);

// A gated feed-forward's middle: h = act(gate) * up (SwiGLU with SiLU, GeGLU with GELU), n values.
template <class T>
void gated_forward(T* h, const T* gate, const T* up, std::size_t n, Activation activation);

// A feed-forward's middle for n rows of config.hidden_dim values: h = act(gate) * up when the config gates
// it, h = act(up) when not (gate unused).
template <class T>
void feed_forward_middle(const ModelConfig& config, T* h, const T* gate, const T* up, std::size_t n);

// out[t] = log softmax(logits[t])[targets[t]] for n positions, logits [n][vocab], in double
// (glassbox::log_probability's arithmetic).
template <class T>
void target_log_probabilities(const T* logits, const int* targets, std::size_t n, std::size_t vocab,
                              double* out);

// The loss of those log-probabilities: minus their sum, over their count (score_tokens' order).
double mean_negative(std::span<const double> log_probabilities);

// The mean over n positions of -log softmax(logits[t])[targets[t]], logits [n][vocab].
template <class T>
double cross_entropy_forward(const T* logits, const int* targets, std::size_t n, std::size_t vocab);

}  // namespace glassbox::train
