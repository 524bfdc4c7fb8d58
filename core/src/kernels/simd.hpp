// The one SIMD type all kernels are written against. xsimd picks the widest instruction set the compiler was
// told to target: AVX2 (+FMA) or AVX-512 natively with -march=native, SSE4.1 under Emscripten, which lowers
// to WebAssembly SIMD128 (f32x4). Kernels are written once over Batch; only its width changes.
#pragma once

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cstddef>

#include "kernels.hpp"

namespace glassbox::kernels {

using Batch = xsimd::batch<float>;
using IntBatch = xsimd::batch<int32_t>;
inline constexpr std::size_t kWidth = Batch::size;
static_assert(kReductionLanes % kWidth == 0, "the canonical reduction needs the SIMD width to divide it");

// Loads up to kWidth floats, filling lanes past n with `fill`. Tails go through the same vector code as the
// body this way, so every element sees exactly the same operations.
// (Element-wise loops, not std::fill/std::copy: those become memset/memcpy calls, which in WebAssembly cost
// more than the arithmetic around them.)
__attribute__((always_inline)) inline Batch load_partial(const float* x, std::size_t n, float fill = 0.0f) {
  alignas(64) float lanes[kWidth];
  for (std::size_t j = 0; j < kWidth; ++j)
    lanes[j] = j < n ? x[j] : fill;
  return Batch::load_aligned(lanes);
}

inline void store_partial(float* out, Batch value, std::size_t n) {
  alignas(64) float lanes[kWidth];
  value.store_aligned(lanes);
  for (std::size_t j = 0; j < kWidth && j < n; ++j)
    out[j] = lanes[j];
}

// Applies op (Batch -> Batch) to x[0, n) in place, kWidth lanes at a time, tail included.
template <class Op>
inline void map_in_place(float* x, std::size_t n, Op op) {
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth)
    op(Batch::load_unaligned(x + i)).store_unaligned(x + i);
  if (i < n) store_partial(x + i, op(load_partial(x + i, n - i)), n - i);
}

}  // namespace glassbox::kernels
