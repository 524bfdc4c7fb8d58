// Plain scalar references: the textbook formulas, one loop each, no tricks. The tests compare the optimized
// kernels against these on random inputs; they are also the easiest place to read what each kernel computes.
#include <algorithm>
#include <cmath>

#include "kernels.hpp"

namespace glassbox::kernels::reference {

float dot(const float* x, const float* y, std::size_t n) {
  float total = 0.0f;
  for (std::size_t i = 0; i < n; ++i)
    total += x[i] * y[i];
  return total;
}

float sum(const float* x, std::size_t n) {
  float total = 0.0f;
  for (std::size_t i = 0; i < n; ++i)
    total += x[i];
  return total;
}

void matvec(float* out, const float* w, const float* x, std::size_t rows, std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r)
    out[r] = dot(w + r * cols, x, cols);
}

void dot_strided(float* out, const float* rows, std::size_t row_stride, std::size_t n_rows, const float* x,
                 std::size_t n) {
  for (std::size_t t = 0; t < n_rows; ++t)
    out[t] = dot(rows + t * row_stride, x, n);
}

void weighted_row_sum(float* out, const float* weights, const float* rows, std::size_t row_stride,
                      std::size_t n_rows, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    float total = 0.0f;
    for (std::size_t t = 0; t < n_rows; ++t)
      total += weights[t] * rows[t * row_stride + i];
    out[i] = total;
  }
}

void rmsnorm(float* out, const float* x, const float* weight, std::size_t n, float eps) {
  float mean_square = 0.0f;
  for (std::size_t i = 0; i < n; ++i)
    mean_square += x[i] * x[i];
  mean_square /= static_cast<float>(n);
  const float scale = 1.0f / std::sqrt(mean_square + eps);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = x[i] * scale * weight[i];
}

void layernorm(float* out, const float* x, const float* weight, const float* bias, std::size_t n, float eps) {
  float mean = 0.0f;
  for (std::size_t i = 0; i < n; ++i)
    mean += x[i];
  mean /= static_cast<float>(n);
  float variance = 0.0f;
  for (std::size_t i = 0; i < n; ++i)
    variance += (x[i] - mean) * (x[i] - mean);
  variance /= static_cast<float>(n);
  const float scale = 1.0f / std::sqrt(variance + eps);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = (x[i] - mean) * scale * weight[i] + (bias ? bias[i] : 0.0f);
}

void softmax(float* x, std::size_t n, std::size_t limit) {
  limit = std::min(limit, n);
  for (std::size_t i = limit; i < n; ++i)
    x[i] = 0.0f;
  if (limit == 0) return;
  const float max_value = *std::max_element(x, x + limit);
  float total = 0.0f;
  for (std::size_t i = 0; i < limit; ++i) {
    x[i] = std::exp(x[i] - max_value);
    total += x[i];
  }
  for (std::size_t i = 0; i < limit; ++i)
    x[i] /= total;
}

void silu(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    x[i] = x[i] / (1.0f + std::exp(-x[i]));
}

void swiglu(float* gate, const float* up, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

void gelu_tanh(float* x, std::size_t n) {
  const float sqrt_2_over_pi = 0.7978845608028654f;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    x[i] = 0.5f * v * (1.0f + std::tanh(sqrt_2_over_pi * (v + 0.044715f * v * v * v)));
  }
}

void gelu_erf(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.7071067811865476f));
}

void relu(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    x[i] = std::max(x[i], 0.0f);
}

void rope(float* x, const float* cos_table, const float* sin_table, std::size_t rotary_dim,
          RopePairing pairing) {
  const std::size_t half = rotary_dim / 2;
  for (std::size_t i = 0; i < half; ++i) {
    // Adjacent: the pair (2i, 2i+1). Half-split: the pair (i, i + half).
    const std::size_t a = pairing == RopePairing::Adjacent ? 2 * i : i;
    const std::size_t b = pairing == RopePairing::Adjacent ? 2 * i + 1 : i + half;
    const float x0 = x[a], x1 = x[b];
    x[a] = x0 * cos_table[i] - x1 * sin_table[i];
    x[b] = x0 * sin_table[i] + x1 * cos_table[i];
  }
}

}  // namespace glassbox::kernels::reference
