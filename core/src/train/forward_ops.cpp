#include "train/forward_ops.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "glassbox/positions.hpp"
#include "glassbox/score.hpp"
#include "kernels/kernels.hpp"
#include "model/layer_steps.hpp"
#include "train/float_products.hpp"

namespace glassbox::train {

template <class T>
void embedding_forward(T* out, const T* table, const int* tokens, std::size_t n, std::size_t dim) {
  for (std::size_t t = 0; t < n; ++t)
    std::copy(table + static_cast<std::size_t>(tokens[t]) * dim,
              table + static_cast<std::size_t>(tokens[t] + 1) * dim, out + t * dim);
}

template <class T>
void rmsnorm_forward(T* out, const T* x, const T* weight, std::size_t n, T eps) {
  if constexpr (std::is_same_v<T, float>) {  // training: the forward pass's kernel, so its bits
    kernels::rmsnorm(out, x, weight, n, eps);
    return;
  }
  T mean_square = 0;
  for (std::size_t i = 0; i < n; ++i)
    mean_square += x[i] * x[i];
  mean_square /= static_cast<T>(n);
  const T scale = T(1) / std::sqrt(mean_square + eps);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = x[i] * scale * weight[i];
}

template <class T>
void layernorm_forward(T* out, const T* x, const T* weight, const T* bias, std::size_t n, T eps) {
  if constexpr (std::is_same_v<T, float>) {  // training: the forward pass's kernel, so its bits
    kernels::layernorm(out, x, weight, bias, n, eps);
    return;
  }
  const auto [mean, scale] = layernorm_statistics(x, n, eps);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = (x[i] - mean) * scale * weight[i] + (bias ? bias[i] : T(0));
}

template <class T>
void linear_forward(T* y, const T* x, const T* weight, const T* bias, std::size_t n, std::size_t in_dim,
                    std::size_t out_dim) {
  if constexpr (std::is_same_v<T, float>) {  // training: the engine's batched product (float_products.hpp)
    linear_forward_f32(y, x, weight, bias, n, in_dim, out_dim);
    return;
  }
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t o = 0; o < out_dim; ++o) {
      T sum = 0;
      for (std::size_t i = 0; i < in_dim; ++i)
        sum += weight[o * in_dim + i] * x[t * in_dim + i];
      y[t * out_dim + o] = sum + (bias ? bias[o] : T(0));
    }
}

template <class T>
void rope_forward(T* x, const T* cos_row, const T* sin_row, std::size_t rotary_dim, RopePairing pairing) {
  if constexpr (std::is_same_v<T, float>) {  // training: the forward pass's kernel, so its bits
    kernels::rope(x, cos_row, sin_row, rotary_dim, pairing);
    return;
  }
  const std::size_t half = rotary_dim / 2;
  for (std::size_t i = 0; i < half; ++i) {
    const std::size_t a = pairing == RopePairing::Adjacent ? 2 * i : i;
    const std::size_t b = pairing == RopePairing::Adjacent ? 2 * i + 1 : i + half;
    const T x0 = x[a], x1 = x[b];
    x[a] = x0 * cos_row[i] - x1 * sin_row[i];
    x[b] = x0 * sin_row[i] + x1 * cos_row[i];
  }
}

template <class T>
void rope_rows(const ModelConfig& c, int position, int layer, std::vector<T>& cos_row,
               std::vector<T>& sin_row) {
  const int pairs = c.rotary_dim() / 2;
  cos_row.resize(static_cast<std::size_t>(pairs));
  sin_row.resize(static_cast<std::size_t>(pairs));
  for (int i = 0; i < pairs; ++i) {
    const double angle = rope_angle(c, i, position, layer);
    // Rounded to float first, as the run state's tables are, so that float training turns as inference does.
    cos_row[static_cast<std::size_t>(i)] =
        static_cast<T>(static_cast<float>(std::cos(angle)) * c.rope_magnitude);
    sin_row[static_cast<std::size_t>(i)] =
        static_cast<T>(static_cast<float>(std::sin(angle)) * c.rope_magnitude);
  }
}

template <class T>
void attention_forward(T* out, T* probabilities, const T* q, const T* k, const T* v,
                       const AttentionShape& s) {
  if constexpr (std::is_same_v<T, float>) {  // training: on the engine's kernels (float_products.hpp)
    attention_forward_f32(out, probabilities, q, k, v, s);
    return;
  }
  const T scale = T(1) / std::sqrt(static_cast<T>(s.head_dim));
  const std::size_t per_kv = s.n_heads / s.n_kv_heads;
  for (std::size_t h = 0; h < s.n_heads; ++h) {
    const std::size_t kv = (h / per_kv) * s.head_dim;
    for (std::size_t i = 0; i < s.n; ++i) {
      T* p = probabilities + (h * s.n + i) * s.n;
      const T* qi = q + i * s.q_width() + h * s.head_dim;
      T largest = -INFINITY;
      for (std::size_t j = 0; j <= i; ++j) {
        T dot = 0;
        for (std::size_t d = 0; d < s.head_dim; ++d)
          dot += qi[d] * k[j * s.kv_width() + kv + d];
        p[j] = dot * scale;
        largest = std::max(largest, p[j]);
      }
      T total = 0;
      for (std::size_t j = 0; j <= i; ++j)
        total += p[j] = std::exp(p[j] - largest);
      for (std::size_t j = 0; j <= i; ++j)
        p[j] /= total;
      std::fill(p + i + 1, p + s.n, T(0));
      T* o = out + i * s.q_width() + h * s.head_dim;
      std::fill(o, o + s.head_dim, T(0));
      for (std::size_t j = 0; j <= i; ++j)
        for (std::size_t d = 0; d < s.head_dim; ++d)
          o[d] += p[j] * v[j * s.kv_width() + kv + d];
    }
  }
}

template <class T>
T activation_value(Activation activation, T x) {
  switch (activation) {
    case Activation::SiLU:
      return x / (T(1) + std::exp(-x));
    case Activation::GELU: {
      const T sqrt_2_over_pi = static_cast<T>(0.7978845608028654);
      return T(0.5) * x * (T(1) + std::tanh(sqrt_2_over_pi * (x + static_cast<T>(0.044715) * x * x * x)));
    }
    case Activation::GELUExact:
      return T(0.5) * x * (T(1) + std::erf(x * static_cast<T>(0.7071067811865476)));
    case Activation::ReLU:
      return std::max(x, T(0));
  }
  return x;
}

template <class T>
void gated_forward(T* h, const T* gate, const T* up, std::size_t n, Activation activation) {
  for (std::size_t i = 0; i < n; ++i)
    h[i] = activation_value(activation, gate[i]) * up[i];
}

template <class T>
void feed_forward_middle(const ModelConfig& c, T* h, const T* gate, const T* up, std::size_t n) {
  const auto hidden = static_cast<std::size_t>(c.hidden_dim);
  if constexpr (std::is_same_v<T, float>) {
    // training: the forward pass's own step (model/layer_steps.hpp), a row at a time as it goes, in place
    // in a copy of what it overwrites, so its bits.
    const float* source = c.gated_ffn ? gate : up;
    std::copy(source, source + n * hidden, h);
    for (std::size_t t = 0; t < n; ++t)
      feed_forward_hidden(c, h + t * hidden, c.gated_ffn ? up + t * hidden : nullptr);
    return;
  }
  if (c.gated_ffn) {
    gated_forward(h, gate, up, n * hidden, c.activation);
    return;
  }
  for (std::size_t i = 0; i < n * hidden; ++i)
    h[i] = activation_value(c.activation, up[i]);
}

template <class T>
void target_log_probabilities(const T* logits, const int* targets, std::size_t n, std::size_t vocab,
                              double* out) {
  for (std::size_t t = 0; t < n; ++t) {
    const T* row = logits + t * vocab;
    if constexpr (std::is_same_v<T, float>) {  // `score`'s own statement of it, so its bits
      out[t] = log_probability(std::span<const float>(row, vocab), targets[t]);
      continue;
    }
    // log_probability's arithmetic, in double throughout.
    const double largest = *std::max_element(row, row + vocab);
    double sum = 0;
    for (std::size_t i = 0; i < vocab; ++i)
      sum += std::exp(static_cast<double>(row[i]) - largest);
    out[t] = static_cast<double>(row[targets[t]]) - largest - std::log(sum);
  }
}

double mean_negative(std::span<const double> log_probabilities) {
  double total = 0;  // minus the sum first, then the mean, as score_tokens takes its loss
  for (double lp : log_probabilities)
    total -= lp;
  return total / static_cast<double>(log_probabilities.size());
}

template <class T>
double cross_entropy_forward(const T* logits, const int* targets, std::size_t n, std::size_t vocab) {
  std::vector<double> log_probabilities(n);
  target_log_probabilities(logits, targets, n, vocab, log_probabilities.data());
  return mean_negative(log_probabilities);
}

#define GLASSBOX_FORWARD_OPS(T)                                                                             \
  template void embedding_forward<T>(T*, const T*, const int*, std::size_t, std::size_t);                   \
  template void rmsnorm_forward<T>(T*, const T*, const T*, std::size_t, T);                                 \
  template void layernorm_forward<T>(T*, const T*, const T*, const T*, std::size_t, T);                     \
  template void linear_forward<T>(T*, const T*, const T*, const T*, std::size_t, std::size_t, std::size_t); \
  template void rope_forward<T>(T*, const T*, const T*, std::size_t, RopePairing);                          \
  template void rope_rows<T>(const ModelConfig&, int, int, std::vector<T>&, std::vector<T>&);               \
  template void attention_forward<T>(T*, T*, const T*, const T*, const T*, const AttentionShape&);          \
  template T activation_value<T>(Activation, T);                                                            \
  template void gated_forward<T>(T*, const T*, const T*, std::size_t, Activation);                          \
  template void feed_forward_middle<T>(const ModelConfig&, T*, const T*, const T*, std::size_t);            \
  template void target_log_probabilities<T>(const T*, const int*, std::size_t, std::size_t, double*);       \
  template double cross_entropy_forward<T>(const T*, const int*, std::size_t, std::size_t);
GLASSBOX_FORWARD_OPS(float)
GLASSBOX_FORWARD_OPS(double)
#undef GLASSBOX_FORWARD_OPS

}  // namespace glassbox::train
