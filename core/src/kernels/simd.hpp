// The one SIMD type all kernels are written against: at most 8 floats, so that one register (AVX2) or two
// (SSE4.1, and WebAssembly SIMD128, which Emscripten reaches through xsimd's SSE4.1) hold the canonical
// order's 8 partial sums of one row (kernels.hpp). xsimd picks the widest instruction set the compiler was
// told to target, except that AVX-512 machines get its 256-bit half (AVX2 with AVX-512VL's 32 registers):
// 16 lanes would split a row's 8 partial sums between two rows' worth of lanes. The batched product
// (matmul.cpp), whose lanes are tokens rather than partial sums, uses the full width (WideBatch).
// Kernels are written once over Batch; only its width changes.
#pragma once

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cstddef>

#include "kernels.hpp"

namespace glassbox::kernels {

#if defined(__AVX512F__)
using BatchArch = xsimd::avx2;
#else
using BatchArch = xsimd::default_arch;
#endif
using Batch = xsimd::batch<float, BatchArch>;
using IntBatch = xsimd::batch<int32_t, BatchArch>;
using UintBatch = xsimd::batch<uint32_t, BatchArch>;
inline constexpr std::size_t kWidth = Batch::size;
static_assert(kWidth <= 8, "a row's canonical partial sums must fill whole registers");

// The widest float batch, for kernels whose lanes are independent outputs (tokens), not partial sums.
using WideBatch = xsimd::batch<float>;
inline constexpr std::size_t kWideWidth = WideBatch::size;

// AVX-512 kernels that pair two 8-float halves in one register (dot_row_pairs, dot_rows.hpp) or narrow
// 256-bit lanes (quantized_activations.cpp) need the DQ and VL extensions beside F; without them (Xeon Phi)
// those kernels take their AVX2 paths.
#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
#define GLASSBOX_AVX512_DQ_VL 1
#else
#define GLASSBOX_AVX512_DQ_VL 0
#endif
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
