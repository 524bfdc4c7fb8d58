#include "kernels/quantized_activations.hpp"

#include <cmath>

#include "kernels/quantized.hpp"

namespace glassbox::kernels {

void quantize_activations(const float* x, std::size_t n, int8_t* q, float* d, int32_t* sums16) {
  for (std::size_t b = 0; b < n / kActivationBlock; ++b, x += kActivationBlock, q += kActivationBlock) {
    float amax = 0.0f;
    for (std::size_t j = 0; j < kActivationBlock; ++j)
      amax = std::fmax(amax, std::fabs(x[j]));
    const float scale = amax / 127.0f;
    const float inverse = scale != 0.0f ? 1.0f / scale : 0.0f;
    int32_t sums[2] = {0, 0};
    for (std::size_t j = 0; j < kActivationBlock; ++j) {
      float v = std::round(x[j] * inverse);
      if (!(v == v)) v = 0.0f;
      v = v > 127.0f ? 127.0f : (v < -127.0f ? -127.0f : v);
      q[j] = static_cast<int8_t>(v);
      sums[j / 16] += q[j];
    }
    d[b] = half_to_float(float_to_half(scale));
    sums16[2 * b] = sums[0];
    sums16[2 * b + 1] = sums[1];
  }
}

}  // namespace glassbox::kernels
