// The float side of the integer dot products: how the exact integer sums of the sub-blocks are scaled and
// added up, in the one order quantized_int_dot.hpp states (shared by the kernels of every weight type).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized_int_lanes.hpp"
#include "kernels/quantized_lanes.hpp"
#include "kernels/simd.hpp"

namespace glassbox::kernels::int_terms {

GLASSBOX_INT_INLINE float f16_at(const std::byte* p) {
  const uint16_t bits = lanes::load_u16(p);
#if defined(__F16C__)
  return _cvtsh_ss(bits);  // exact, like the decoder (quantized_lanes.hpp, load_halves)
#else
  return lanes::half_to_float_exact(bits);
#endif
}

// The f16 scales at the start of four blocks `stride` bytes apart, as floats.
GLASSBOX_INT_INLINE void f16_at4(const std::byte* p, std::size_t stride, float* out) {
#if defined(__F16C__)
  const __m128i halves =
      _mm_setr_epi16(static_cast<short>(lanes::load_u16(p)), static_cast<short>(lanes::load_u16(p + stride)),
                     static_cast<short>(lanes::load_u16(p + 2 * stride)),
                     static_cast<short>(lanes::load_u16(p + 3 * stride)), 0, 0, 0, 0);
  _mm_storeu_ps(out, _mm_cvtph_ps(halves));  // exact, as f16_at
#elif defined(__wasm_simd128__)
  // In vectors, without branches: V8 splits a loop at the scalar conversion's branches and computes the
  // blocks' integer products after them, while their loads stay before, so every weight and activation vector
  // of four blocks was live across the branches (most of them spilled). The rule is half_bits_to_float's
  // (quantized_lanes.hpp), for halves loaded into the upper 16 bits of each lane (one instruction each):
  // the magnitude's bits moved to a float's places read as 2^-112 times the value, with the all-ones exponent
  // first for infinities and nans (found by adding 2^26 to the magnitude, which carries into the sign bit
  // exactly from 0x7C00 << 16: one add and one shift where V8 compares without sign in four), then the sign.
  // (Loading fewer than four lanes this way, clang 14 hung compiling a test at -O1.)
  v128_t h = wasm_i32x4_splat(0);
  h = wasm_v128_load16_lane(p, h, 1);
  h = wasm_v128_load16_lane(p + stride, h, 3);
  h = wasm_v128_load16_lane(p + 2 * stride, h, 5);
  h = wasm_v128_load16_lane(p + 3 * stride, h, 7);
  const v128_t magnitude = wasm_v128_and(h, wasm_i32x4_splat(0x7FFF0000));
  const v128_t special =
      wasm_v128_and(wasm_i32x4_shr(wasm_i32x4_add(magnitude, wasm_i32x4_splat(0x04000000)), 31),
                    wasm_i32x4_splat(0x7F800000));
  const v128_t scaled =
      wasm_f32x4_mul(wasm_v128_or(wasm_u32x4_shr(magnitude, 3), special), wasm_f32x4_splat(0x1p112f));
  wasm_v128_store(out, wasm_v128_or(scaled, wasm_v128_and(h, wasm_i32x4_splat(INT32_MIN))));
#else
  for (int k = 0; k < 4; ++k)
    out[k] = f16_at(p + k * stride);
#endif
}

// The header's float order: the term of sub-block b goes to partial sum b % 4, finished pairwise. The four
// partial sums are the lanes of one 4-float vector (SSE2 natively, SIMD128 in WebAssembly) while whole groups
// of four sub-blocks come in (add4), then the last ones (add_first, or natively four floats: add): each
// partial sum sees exactly the scalar operations, so no form changes a bit. All add4 calls come before any add.
struct Partials {
  using Float4 = xsimd::batch<float, xsimd::sse2>;
  using Int4 = xsimd::batch<int32_t, xsimd::sse2>;
  Float4 p = Float4(0.0f);
  alignas(16) float lanes[4];
  bool in_lanes = false;
  // Sub-blocks b .. b + 3, b a multiple of 4.
  GLASSBOX_INT_INLINE void add4(const float* ws, const float* dx, const int32_t* isum) {
    p = p + (Float4::load_unaligned(ws) * Float4::load_unaligned(dx)) *
                xsimd::to_float(Int4::load_unaligned(isum));
  }
  // The same with offsets (Q4_K's and Q5_K's mins): each term less (wm * dx) * xsum.
  GLASSBOX_INT_INLINE void add4(const float* ws, const float* wm, const float* dx, const int32_t* isum,
                                const int32_t* xsum) {
    const Float4 d = Float4::load_unaligned(dx);
    p = p + ((Float4::load_unaligned(ws) * d) * xsimd::to_float(Int4::load_unaligned(isum)) -
             (Float4::load_unaligned(wm) * d) * xsimd::to_float(Int4::load_unaligned(xsum)));
  }
  // Sub-blocks b .. b + 7 (b a multiple of 4): exactly add4 for the first four, then for the second.
  GLASSBOX_INT_INLINE void add8(const float* ws, const float* dx, const int32_t* isum) {
#if defined(__AVX2__)
    using Float8 = xsimd::batch<float, xsimd::avx2>;
    using Int8 = xsimd::batch<int32_t, xsimd::avx2>;
    add_halves((Float8::load_unaligned(ws) * Float8::load_unaligned(dx)) *
               xsimd::to_float(Int8::load_unaligned(isum)));
#else
    add4(ws, dx, isum);
    add4(ws + 4, dx + 4, isum + 4);
#endif
  }
  // The same with one ws for all eight.
  GLASSBOX_INT_INLINE void add8(float ws, const float* dx, const int32_t* isum) {
#if defined(__AVX2__)
    using Float8 = xsimd::batch<float, xsimd::avx2>;
    using Int8 = xsimd::batch<int32_t, xsimd::avx2>;
    add_halves((Float8(ws) * Float8::load_unaligned(dx)) * xsimd::to_float(Int8::load_unaligned(isum)));
#else
    const float same[8] = {ws, ws, ws, ws, ws, ws, ws, ws};
    add8(same, dx, isum);
#endif
  }
  GLASSBOX_INT_INLINE void add8(const float* ws, const float* wm, const float* dx, const int32_t* isum,
                                const int32_t* xsum) {
#if defined(__AVX2__)
    using Float8 = xsimd::batch<float, xsimd::avx2>;
    using Int8 = xsimd::batch<int32_t, xsimd::avx2>;
    const Float8 d = Float8::load_unaligned(dx);
    add_halves((Float8::load_unaligned(ws) * d) * xsimd::to_float(Int8::load_unaligned(isum)) -
               (Float8::load_unaligned(wm) * d) * xsimd::to_float(Int8::load_unaligned(xsum)));
#else
    add4(ws, wm, dx, isum, xsum);
    add4(ws + 4, wm + 4, dx + 4, isum + 4, xsum + 4);
#endif
  }
  // Sub-blocks b .. b + kCount - 1 (kCount < 4, b a multiple of 4): add4's terms in the first kCount lanes,
  // the others keep their sums.
  template <std::size_t kCount>
  GLASSBOX_INT_INLINE void add_first(const float* ws, const float* dx, const int32_t* isum) {
    const Float4 sums = p + (Float4::load_unaligned(ws) * Float4::load_unaligned(dx)) *
                                xsimd::to_float(Int4::load_unaligned(isum));
    alignas(16) static constexpr float kLanes[4] = {0.0f, 1.0f, 2.0f, 3.0f};
    p = xsimd::select(Float4::load_aligned(kLanes) < Float4(static_cast<float>(kCount)), sums, p);
  }
  GLASSBOX_INT_INLINE void add(std::size_t b, float ws, float dx, int32_t isum) {
    if (!in_lanes) spill();
    lanes[b % 4] += (ws * dx) * static_cast<float>(isum);
  }
  GLASSBOX_INT_INLINE float total() {
    if (!in_lanes) spill();
    return (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
  }

#if defined(__AVX2__)
  // The terms of sub-blocks b .. b + 7 (b a multiple of 4), computed by the caller: the first four into the
  // partial sums, then the second four.
  GLASSBOX_INT_INLINE void add_halves(xsimd::batch<float, xsimd::avx2> terms) {
    p = p + Float4(_mm256_castps256_ps128(terms));
    p = p + Float4(_mm256_extractf128_ps(terms, 1));
  }
#endif

 private:
  GLASSBOX_INT_INLINE void spill() {
    p.store_aligned(lanes);
    in_lanes = true;
  }
};

#if defined(__wasm_simd128__)
// Four rows' partial sums (each a Partials after its add4 calls) transposed: lane k of sums[j] is row k's
// partial sum j. add() takes one sub-block b of each row, in increasing b: row k's term, the same operations
// as add4's, goes to lane k of sums[b % 4]; totals() finishes each row as Partials::total does.
struct Rows4 {
  using Float4 = Partials::Float4;
  using Int4 = Partials::Int4;
  Float4 sums[4];
  GLASSBOX_INT_INLINE explicit Rows4(const Partials* rows) {
    __m128 p0 = rows[0].p, p1 = rows[1].p, p2 = rows[2].p, p3 = rows[3].p;
    _MM_TRANSPOSE4_PS(p0, p1, p2, p3);
    sums[0] = p0, sums[1] = p1, sums[2] = p2, sums[3] = p3;
  }
  // ws: the four rows' weight scales, dx the activations' (the same block of x).
  GLASSBOX_INT_INLINE void add(std::size_t j, const float* ws, float dx, const int32_t* isum) {
    sums[j] =
        sums[j] + (Float4::load_unaligned(ws) * Float4(dx)) * xsimd::to_float(Int4::load_unaligned(isum));
  }
  GLASSBOX_INT_INLINE void totals(float* out) const {
    ((sums[0] + sums[1]) + (sums[2] + sums[3])).store_unaligned(out);
  }
};
#endif

}  // namespace glassbox::kernels::int_terms
