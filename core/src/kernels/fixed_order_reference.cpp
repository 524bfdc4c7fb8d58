// The SIMD kernels' exact order of float operations, written as plain scalar loops (why: see the header).
//
// Reductions (dot, sum, and through them matvec, dot_strided, the norms and softmax's total):
//   partial[j] = +0.0f for j < 8 (kReductionLanes);
//   partial[i % 8] = partial[i % 8] + x[i] * y[i], for i = 0, 1, ..., n-1 (each partial in increasing i);
//   for half = 4, 2, 1: partial[j] = partial[j] + partial[j + half] for j < half;
//   the result is partial[0].
// A SIMD width W (4 or 8) holds partials j..j+W-1 in one register, 8/W registers per reduction; the first
// step of the tree adds whole registers where there are two, the last log2(W) fold lanes within one
// (dot_rows.hpp); AVX-512 machines hold two rows' 8 partials in one 512-bit register (dot_row_pairs). The
// tail past the last whole block is padded with zeros: adding +0.0f leaves a partial unchanged, because a
// sum that starts at +0.0f can never become -0.0f in round-to-nearest, so padding is invisible here.
//
// Element-wise kernels evaluate every lane with the same operations in the same order (no fused
// multiply-add: -ffp-contract=off), so their scalar twin is the per-lane expression copied operation by
// operation, including how xsimd's min/max pick between equal values (max(a, b) = a > b ? a : b).
// weighted_row_sum and rope need no twin beyond the textbook loops of reference.cpp, which already use the
// kernels' order (a running sum over t; a*c - b*s and b*c + a*s, where a + (-q) and a - q are the same
// IEEE operation).
#include "fixed_order_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels.hpp"

namespace glassbox::kernels::fixed_order {
namespace {

// The same bits as another type (std::bit_cast is missing from Emscripten's libc++).
template <class To, class From>
To same_bits(From value) {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  std::memcpy(&out, &value, sizeof out);
  return out;
}

float finish_partials(float (&partial)[kReductionLanes]) {
  for (std::size_t half = kReductionLanes / 2; half >= 1; half /= 2) {
    for (std::size_t j = 0; j < half; ++j)
      partial[j] = partial[j] + partial[j + half];
  }
  return partial[0];
}

}  // namespace

float dot(const float* x, const float* y, std::size_t n) {
  float partial[kReductionLanes] = {};
  for (std::size_t i = 0; i < n; ++i)
    partial[i % kReductionLanes] = partial[i % kReductionLanes] + x[i] * y[i];
  return finish_partials(partial);
}

float sum(const float* x, std::size_t n) {
  float partial[kReductionLanes] = {};
  for (std::size_t i = 0; i < n; ++i)
    partial[i % kReductionLanes] = partial[i % kReductionLanes] + x[i];
  return finish_partials(partial);
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
      total = total + weights[t] * rows[t * row_stride + i];
    out[i] = total;
  }
}

void rmsnorm(float* out, const float* x, const float* weight, std::size_t n, float eps) {
  const float mean_square = dot(x, x, n) / static_cast<float>(n);
  const float scale = 1.0f / std::sqrt(mean_square + eps);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = (x[i] * scale) * weight[i];
}

void layernorm(float* out, const float* x, const float* weight, const float* bias, std::size_t n, float eps) {
  const float mean = sum(x, n) / static_cast<float>(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = x[i] - mean;  // out may alias x, as in the kernel
  const float variance = dot(out, out, n) / static_cast<float>(n);
  const float scale = 1.0f / std::sqrt(variance + eps);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = (out[i] * scale) * weight[i];
    // Without a bias nothing is added (adding +0.0f would turn -0.0f into +0.0f).
    if (bias) out[i] = out[i] + bias[i];
  }
}

void softmax(float* x, std::size_t n, std::size_t limit) {
  limit = std::min(limit, n);
  for (std::size_t i = limit; i < n; ++i)
    x[i] = 0.0f;
  if (limit == 0) return;
  float max_value = x[0];
  for (std::size_t i = 1; i < limit; ++i)
    max_value = std::max(max_value, x[i]);
  for (std::size_t i = 0; i < limit; ++i)
    x[i] = exp_approx(x[i] - max_value);
  const float total = sum(x, limit);
  for (std::size_t i = 0; i < limit; ++i)
    x[i] = x[i] / total;
}

float exp_approx(float x) {
  const float kMaxInput = 88.0f, kMinInput = -87.3f;
  const float kLog2e = 1.44269504088896341f;
  const float kLn2High = 0.693359375f, kLn2Low = -2.12194440e-4f;
  const float kRoundingMagic = 12582912.0f;

  const bool underflow = x < kMinInput;
  x = x > kMinInput ? x : kMinInput;  // xsimd::max(x, kMinInput)
  x = x < kMaxInput ? x : kMaxInput;  // xsimd::min(..., kMaxInput)
  const float shifted = x * kLog2e + kRoundingMagic;
  const float nf = shifted - kRoundingMagic;
  const uint32_t n = same_bits<uint32_t>(shifted) - same_bits<uint32_t>(kRoundingMagic);
  const float r = (x - nf * kLn2High) - nf * kLn2Low;

  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = (p * (r * r) + r) + 1.0f;

  const float two_to_n = same_bits<float>((n + 127u) << 23);
  return underflow ? 0.0f : p * two_to_n;
}

void silu(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    x[i] = x[i] / (1.0f + exp_approx(-x[i]));
}

void swiglu(float* gate, const float* up, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    gate[i] = (gate[i] / (1.0f + exp_approx(-gate[i]))) * up[i];
}

void gelu_tanh(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float u = 0.7978845608028654f * (v + ((0.044715f * v) * v) * v);
    const float tanh_u = 1.0f - 2.0f / (exp_approx(2.0f * u) + 1.0f);
    x[i] = (0.5f * v) * (1.0f + tanh_u);
  }
}

void gelu_erf(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float z = std::fabs(v) * 0.7071067811865476f;
    const float t = 1.0f / (1.0f + 0.3275911f * z);
    const float poly =
        t *
        (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
    const float erf_abs = 1.0f - poly * exp_approx(-(z * z));
    x[i] = (0.5f * v) * (1.0f + (v < 0.0f ? -erf_abs : erf_abs));
  }
}

void relu(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    x[i] = x[i] > 0.0f ? x[i] : 0.0f;  // xsimd::max(x, 0): +0.0f for -0.0f, 0 for NaN
}

}  // namespace glassbox::kernels::fixed_order
