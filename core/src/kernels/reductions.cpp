// Dot product and sum in the canonical reduction order (see kernels.hpp).
#include "dot_rows.hpp"

namespace glassbox::kernels {

float dot(const float* x, const float* y, std::size_t n) {
  float out;
  dot_rows<1>(&x, y, n, &out);
  return out;
}

float sum(const float* x, std::size_t n) {
  Batch acc[kAccumulatorsPerRow];
  for (auto& a : acc)
    a = Batch(0.0f);
  std::size_t i = 0;
  for (; i + kReductionLanes <= n; i += kReductionLanes) {
    for (std::size_t k = 0; k < kAccumulatorsPerRow; ++k)
      acc[k] = acc[k] + Batch::load_unaligned(x + i + k * kWidth);
  }
  for (std::size_t k = 0; k < kAccumulatorsPerRow && i + k * kWidth < n; ++k) {
    const std::size_t at = i + k * kWidth;
    acc[k] = acc[k] + (at + kWidth <= n ? Batch::load_unaligned(x + at) : load_partial(x + at, n - at));
  }
  return finish_partials(acc);
}

const char* simd_instruction_set() {
#if defined(__EMSCRIPTEN__)
  return "wasm-simd128 (xsimd sse4.1)";
#else
  return xsimd::default_arch::name();
#endif
}

}  // namespace glassbox::kernels
