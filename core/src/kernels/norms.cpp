// RMSNorm (Llama) and LayerNorm (GPT-2, the original Transformer).
#include <cmath>

#include "simd.hpp"

namespace glassbox::kernels {
namespace {

// out = (x * scale) * weight (+ bias), lane by lane.
void scale_and_weigh(float* out, const float* x, float scale, const float* weight, const float* bias,
                     std::size_t n) {
  const Batch s(scale);
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    Batch v = (Batch::load_unaligned(x + i) * s) * Batch::load_unaligned(weight + i);
    if (bias) v = v + Batch::load_unaligned(bias + i);
    v.store_unaligned(out + i);
  }
  for (; i < n; ++i) {
    // A bias only where there is one, as in the vector body: -0.0f + 0.0f is +0.0f, so adding a zero bias here
    // would make the sign of a zero output depend on which elements the SIMD width leaves to this tail.
    const float v = (x[i] * scale) * weight[i];
    out[i] = bias ? v + bias[i] : v;
  }
}

}  // namespace

void rmsnorm(float* out, const float* x, const float* weight, std::size_t n, float eps) {
  const float mean_square = dot(x, x, n) / static_cast<float>(n);
  const float scale = 1.0f / std::sqrt(mean_square + eps);
  scale_and_weigh(out, x, scale, weight, nullptr, n);
}

void layernorm(float* out, const float* x, const float* weight, const float* bias, std::size_t n, float eps) {
  const float mean = sum(x, n) / static_cast<float>(n);
  // Center into out first (out may alias x), then take the variance of the centered values.
  const Batch m(mean);
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth)
    (Batch::load_unaligned(x + i) - m).store_unaligned(out + i);
  for (; i < n; ++i)
    out[i] = x[i] - mean;
  const float variance = dot(out, out, n) / static_cast<float>(n);
  const float scale = 1.0f / std::sqrt(variance + eps);
  scale_and_weigh(out, out, scale, weight, bias, n);
}

}  // namespace glassbox::kernels
