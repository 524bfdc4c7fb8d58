// Widening loads for the fused quantized dot products (quantized_dot_rows.hpp): packed 8- and 16-bit integers
// from memory into int32 lanes of an IntBatch, and the exact 16-bit float decoders built on them.
//
// xsimd 8.1 can only load narrow integers into wider lanes element by element (its "slow conversion" path
// goes through memory), so each instruction set that has a sign/zero-extending load gets one here:
//   AVX2 / SSE4.1              vpmovsx/vpmovzx (one instruction per batch, straight from memory)
//   WebAssembly SIMD128        load 16 bytes once and extend them in two steps (8 -> 16 -> 32 bits). Under
//                              Emscripten xsimd is its sse4_1 target, but the SSE intrinsics for 4 bytes would
//                              each become a 32-bit load plus a shuffle; the native extend instructions
//                              share one 128-bit load between four batches.
//   anything else              a plain loop through a small array (correct, slower).
// The native branches assume Batch is the widest of these the compiler targets (AVX2's on AVX-512 machines,
// simd.hpp), and static_assert that the batch width agrees.
// All of them produce exactly the same integers; only the instructions differ.
#pragma once

#include <cstdint>
#include <cstring>

#include "dot_rows.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE4_1__)
#include <immintrin.h>
#endif

namespace glassbox::kernels::lanes {

// Batches of int32 lanes in 16 packed bytes.
inline constexpr std::size_t kBatchesPer16 = 16 / kWidth;

// The 16 bytes at p, widened to int32: out[i] holds bytes [i * kWidth, (i + 1) * kWidth) for
// i < kBatchesPer16. Signed picks sign extension (int8) over zero extension (uint8).
template <bool Signed>
GLASSBOX_INLINE void widen_16_bytes(const void* p, IntBatch* out) {
#if defined(__wasm_simd128__)
  static_assert(kWidth == 4);
  const v128_t bytes = wasm_v128_load(p);
  v128_t low, high;
  if constexpr (Signed) {
    low = wasm_i16x8_extend_low_i8x16(bytes);
    high = wasm_i16x8_extend_high_i8x16(bytes);
    out[0] = IntBatch((__m128i)wasm_i32x4_extend_low_i16x8(low));
    out[1] = IntBatch((__m128i)wasm_i32x4_extend_high_i16x8(low));
    out[2] = IntBatch((__m128i)wasm_i32x4_extend_low_i16x8(high));
    out[3] = IntBatch((__m128i)wasm_i32x4_extend_high_i16x8(high));
  } else {
    low = wasm_u16x8_extend_low_u8x16(bytes);
    high = wasm_u16x8_extend_high_u8x16(bytes);
    out[0] = IntBatch((__m128i)wasm_u32x4_extend_low_u16x8(low));
    out[1] = IntBatch((__m128i)wasm_u32x4_extend_high_u16x8(low));
    out[2] = IntBatch((__m128i)wasm_u32x4_extend_low_u16x8(high));
    out[3] = IntBatch((__m128i)wasm_u32x4_extend_high_u16x8(high));
  }
#elif defined(__AVX2__) || (defined(__SSE4_1__) && !defined(__AVX__))
  const auto* bytes = static_cast<const uint8_t*>(p);
  unrolled<kBatchesPer16>([&](auto i) __attribute__((always_inline)) {
    const uint8_t* at = bytes + i * kWidth;
#if defined(__AVX2__)
    static_assert(kWidth == 8);
    const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(at));
    out[i] = IntBatch(Signed ? _mm256_cvtepi8_epi32(v) : _mm256_cvtepu8_epi32(v));
#else
    static_assert(kWidth == 4);
    int32_t word;
    std::memcpy(&word, at, 4);
    const __m128i v = _mm_cvtsi32_si128(word);
    out[i] = IntBatch(Signed ? _mm_cvtepi8_epi32(v) : _mm_cvtepu8_epi32(v));
#endif
  });
#else
  const auto* bytes = static_cast<const uint8_t*>(p);
  for (std::size_t i = 0; i < kBatchesPer16; ++i) {
    alignas(64) int32_t wide[kWidth];
    for (std::size_t j = 0; j < kWidth; ++j) {
      const uint8_t b = bytes[i * kWidth + j];
      wide[j] = Signed ? static_cast<int32_t>(static_cast<int8_t>(b)) : static_cast<int32_t>(b);
    }
    out[i] = IntBatch::load_aligned(wide);
  }
#endif
}

// 32 bytes: out[0, 32 / kWidth), one batch per kWidth bytes.
template <bool Signed>
GLASSBOX_INLINE void widen_32_bytes(const void* p, IntBatch* out) {
  widen_16_bytes<Signed>(p, out);
  widen_16_bytes<Signed>(static_cast<const std::byte*>(p) + 16, out + kBatchesPer16);
}

// int32 lanes holding integers of magnitude below 2^22 to float (exact). Natively one conversion
// instruction. In WebAssembly not: LLVM 14 folds the sign/zero extension in front of an int-to-float
// conversion into a conversion from 8- or 16-bit lanes, which its WebAssembly back end then performs lane
// by lane (extract_lane, f32.convert_i32_s, replace_lane), making Q8_0 slower than decode-then-dot. Adding
// the integer to the bits of 1.5 * 2^23 (whose float spacing is 1) and subtracting 1.5 * 2^23 gives the same
// exact value with two vector instructions and no conversion to fold into.
GLASSBOX_INLINE Batch small_int_to_float(IntBatch v) {
#if defined(__wasm_simd128__)
  return xsimd::bitwise_cast<Batch>(v + IntBatch(0x4B400000)) - Batch(12582912.0f);
#else
  return xsimd::to_float(v);
#endif
}

// kWidth little-endian uint16 values at p, zero-extended to int32.
GLASSBOX_INLINE IntBatch widen_u16(const void* p) {
#if defined(__wasm_simd128__)
  static_assert(kWidth == 4);
  return IntBatch((__m128i)wasm_u32x4_load16x4(p));  // v128.load16x4_u: load and extend in one instruction
#elif defined(__AVX2__)
  static_assert(kWidth == 8);
  return IntBatch(_mm256_cvtepu16_epi32(_mm_loadu_si128(static_cast<const __m128i*>(p))));
#elif defined(__SSE4_1__) && !defined(__AVX__)  // (AVX without AVX2: 8 floats, no 256-bit integers)
  static_assert(kWidth == 4);
  return IntBatch(_mm_cvtepu16_epi32(_mm_loadl_epi64(static_cast<const __m128i*>(p))));
#else
  alignas(64) int32_t wide[kWidth];
  for (std::size_t j = 0; j < kWidth; ++j) {
    uint16_t v;
    std::memcpy(&v, static_cast<const std::byte*>(p) + 2 * j, 2);
    wide[j] = v;
  }
  return IntBatch::load_aligned(wide);
#endif
}

// IEEE half bits (in int32 lanes, upper half zero) to float, exactly as half_to_float (quantized.cpp) does
// for every finite half: the exponent and mantissa bits moved into a float's places read as 2^-112 times
// the value (a float subnormal for a half subnormal), and multiplying by 2^112 is exact. Infinities and nans
// get the all-ones exponent first (the multiplication leaves them as they are, quieting a signaling nan as
// the product with x that follows would anyway). WebAssembly SIMD keeps subnormal floats (no flush to zero);
// native builds with F16C do not come here.
GLASSBOX_INLINE Batch half_bits_to_float(IntBatch half) {
  const IntBatch magnitude = half & IntBatch(0x7FFF);
  const IntBatch special = xsimd::select(magnitude > IntBatch(0x7BFF), IntBatch(0x7F800000), IntBatch(0));
  const Batch scaled = xsimd::bitwise_cast<Batch>((magnitude << 13) | special) * Batch(0x1p112f);
  const IntBatch sign = (half & IntBatch(0x8000)) << 16;
  return xsimd::bitwise_cast<Batch>(xsimd::bitwise_cast<IntBatch>(scaled) | sign);
}

// kWidth IEEE halves at p, to float. With F16C (x86's vcvtph2ps) one instruction, exact like the integer
// path for every half; the only difference is that it quiets a signaling nan, which the multiplication by
// x that follows does on either path, so the products (and dot products) keep the same bits.
GLASSBOX_INLINE Batch load_halves(const void* p) {
#if defined(__AVX2__) && defined(__F16C__)
  static_assert(kWidth == 8);
  return Batch(_mm256_cvtph_ps(_mm_loadu_si128(static_cast<const __m128i*>(p))));
#else
  return half_bits_to_float(widen_u16(p));
#endif
}

// The scalar twin, for block scales: one half per block.
GLASSBOX_INLINE float half_to_float_exact(uint16_t half) {
  const uint32_t magnitude = half & 0x7FFFu;
  uint32_t bits;
  if (magnitude >= 0x7C00u) {
    bits = (magnitude << 13) + 0x70000000u;
  } else if (magnitude >= 0x400u) {
    bits = (magnitude << 13) + 0x38000000u;
  } else {
    const float small = static_cast<float>(magnitude) * 0x1p-24f;
    std::memcpy(&bits, &small, 4);
  }
  bits |= static_cast<uint32_t>(half & 0x8000u) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// bfloat16 bits (in int32 lanes, upper half zero) to float: the upper half of a float's bits.
GLASSBOX_INLINE Batch bfloat16_bits_to_float(IntBatch value) {
  return xsimd::bitwise_cast<Batch>(value << 16);
}

GLASSBOX_INLINE uint16_t load_u16(const void* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

}  // namespace glassbox::kernels::lanes
