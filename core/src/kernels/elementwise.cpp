// Element-wise vector updates used by the residual stream and attention's weighted sum of values.
#include "simd.hpp"

namespace glassbox::kernels {

void add_in_place(float* x, const float* y, std::size_t n) {
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth)
    (Batch::load_unaligned(x + i) + Batch::load_unaligned(y + i)).store_unaligned(x + i);
  for (; i < n; ++i)
    x[i] = x[i] + y[i];
}

void scale_in_place(float* x, float s, std::size_t n) {
  const Batch sv(s);
  map_in_place(x, n, [&](Batch v) { return v * sv; });
}

void axpy(float* y, float a, const float* x, std::size_t n) {
  const Batch av(a);
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth)
    (Batch::load_unaligned(y + i) + av * Batch::load_unaligned(x + i)).store_unaligned(y + i);
  for (; i < n; ++i)
    y[i] = y[i] + a * x[i];
}

}  // namespace glassbox::kernels
