// Fused decode-and-dot kernels (quantized_dot.hpp) for the non-linear 4-bit types IQ4_NL and IQ4_XS. Their
// nibbles index a table of 16 values (kIq4NlValues) rather than being the values: each 16 bytes of indices
// are first looked up into 32 int8, then widened and scaled lane by lane with the decoder's float
// expression (blocks/<type>.cpp). Every 32 values' products are added in increasing order of value
// (add_in_order), as quantized_dot_rows.hpp requires for bit-identical results.
//
// The lookup is a byte shuffle where the instruction set has one (xsimd 8.1 offers none): SSSE3's pshufb
// and WebAssembly's i8x16.swizzle look up 16 nibbles in one instruction. Elsewhere a scalar loop (measured:
// slower than decode-then-dot, as the lookups dominate). Every path gives the same integers.
#pragma once

#include "quantized_dot_rows.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSSE3__)
#include <tmmintrin.h>
#endif

namespace glassbox::kernels::fused {

// The table values of 16 bytes of indices, in value order: out[j] for the low nibble of byte j, out[j + 16]
// for its high nibble.
GLASSBOX_INLINE void look_up_iq4(const std::byte* indices, int8_t* out) {
#if defined(__wasm_simd128__)
  const v128_t table = wasm_v128_load(kIq4NlValues);
  const v128_t bytes = wasm_v128_load(indices);
  wasm_v128_store(out, wasm_i8x16_swizzle(table, wasm_v128_and(bytes, wasm_i8x16_splat(0x0F))));
  wasm_v128_store(out + 16, wasm_i8x16_swizzle(table, wasm_u8x16_shr(bytes, 4)));
#elif defined(__SSSE3__)
  const __m128i table = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kIq4NlValues));
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(indices));
  const __m128i mask = _mm_set1_epi8(0x0F);
  const __m128i low = _mm_and_si128(bytes, mask), high = _mm_and_si128(_mm_srli_epi16(bytes, 4), mask);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_shuffle_epi8(table, low));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm_shuffle_epi8(table, high));
#else
  const auto* qs = reinterpret_cast<const uint8_t*>(indices);
  for (int j = 0; j < 16; ++j) {
    out[j] = kIq4NlValues[qs[j] & 0x0F];
    out[j + 16] = kIq4NlValues[qs[j] >> 4];
  }
#endif
}

// The products (scale * value) * x of the 32 values of one lookup, added in order.
GLASSBOX_INLINE void accumulate_iq4_32(Batch (&acc)[kAcc], const int8_t* values, Batch scale,
                                       const Batch (&xv)[kB32]) {
  IntBatch q[kB32];
  lanes::widen_32_bytes<true>(values, q);
  Batch products[kB32];
  unrolled<kB32>([&](auto k)
                     __attribute__((always_inline)) { products[k] = (scale * to_float(q[k])) * xv[k]; });
  add_in_order(acc, products);
}

}  // namespace glassbox::kernels::fused
