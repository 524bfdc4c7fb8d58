// The integer dot products of the non-linear 4-bit types: IQ4_XS (super-blocks of 256 values, a 6-bit scale
// per sub-block of 32) and IQ4_NL (blocks of 32, an f16 scale each). Their nibbles index the 16 values of
// kIq4NlValues (-127..113), which the kernels look up with a byte shuffle (int_lanes::look_up: pshufb,
// i8x16.swizzle) and then multiply as signed bytes, exactly as Q8_0's bytes (int_lanes::dot_signed): the
// weight integer w of quantized_int_dot.hpp is the table value, with no offset. What ws_b and isum_b are:
// quantized_int_dot.hpp; the bit layouts are the decoders' (blocks/iq4_xs.cpp, blocks/iq4_nl.cpp). IQ4_NL's
// blocks of 32 take rows_dot (quantized_int_dot_rows.hpp) with the format in blocks/iq4_nl.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/quantized_int_lanes.hpp"
#include "kernels/quantized_int_terms.hpp"

namespace glassbox::kernels::int_iquants {

using int_lanes::Bytes;
using int_lanes::Sums;
using int_terms::Partials;

// 16 bytes of indices (value j's in the low nibble of byte j, value j + 16's in the high one) as the 32 table
// values, in value order.
GLASSBOX_INT_INLINE Bytes iq4_values(const std::byte* indices) {
  return int_lanes::look_up(kIq4NlValues, int_lanes::nibbles(indices));
}

// IQ4_XS: 136 bytes, f16 d, a uint16 of the scales' top two bits, 4 bytes of their low nibbles, then 16 bytes
// of indices per sub-block. Sub-block j's scale is the decoder's d * (ls_j - 32), one float multiply.
// A super-block's 8 sub-blocks start at a multiple of 8, so its terms are two whole passes over the four
// partial sums (super_block_rows_dot in quantized_int_dot_rows.hpp).
struct IQ4_XS {
  static constexpr std::size_t kBytes = 136;
  struct SuperBlock {
    Bytes q[8];   // sub-block j's table values, -127..113
    float ws[8];  // d * (ls_j - 32), as the decoder computes it
  };
  GLASSBOX_INT_INLINE static void unpack(const std::byte* block, SuperBlock& u) {
    scales(block, u.ws);
    for (int j = 0; j < 8; ++j)
      u.q[j] = iq4_values(block + 8 + 16 * j);
  }
  // The eight sub-blocks' float scales.
  GLASSBOX_INT_INLINE static void scales(const std::byte* block, float* ws) {
    const float d = int_terms::f16_at(block);
#if defined(__AVX2__)
    // iq4_xs_scale for all eight at once: ls_j's low nibble is bits 4j.. of the 4 bytes as a little-endian
    // uint32, its top two bits are bits 2j.. of `high`. Then the same one float multiply as the decoder's.
    const __m256i low = _mm256_srlv_epi32(_mm256_set1_epi32(static_cast<int>(u32_at(block + 4))),
                                          _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28));
    const __m256i high =
        _mm256_srlv_epi32(_mm256_set1_epi32(u16_at(block + 2)), _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14));
    const __m256i ls = _mm256_or_si256(_mm256_and_si256(low, _mm256_set1_epi32(0x0F)),
                                       _mm256_slli_epi32(_mm256_and_si256(high, _mm256_set1_epi32(3)), 4));
    _mm256_storeu_ps(ws, _mm256_mul_ps(_mm256_set1_ps(d),
                                       _mm256_cvtepi32_ps(_mm256_sub_epi32(ls, _mm256_set1_epi32(32)))));
#else
    const uint16_t high = u16_at(block + 2);
    const auto* low = reinterpret_cast<const uint8_t*>(block + 4);
    for (int j = 0; j < 8; ++j)
      ws[j] = d * static_cast<float>(iq4_xs_scale(j, high, low));
#endif
  }
  // The super-block's terms against x, its first sub-block being the row's sub-block b.
  // xi: x's integers as int_lanes::activation_ints gives them.
  GLASSBOX_INT_INLINE static void add(Partials& partials, const SuperBlock& u, const QuantizedActivations& x,
                                      const int_lanes::XInt* xi, std::size_t b) {
    const int_lanes::XInt* xq = xi + b * 32;
    Sums s[8];
    for (int j = 0; j < 8; ++j)
      s[j] = int_lanes::dot_signed(u.q[j], xq + 32 * j);
    int32_t isum[8];
    int_lanes::totals8(s, isum);
    partials.add8(u.ws, x.d + b, isum);
  }
#if defined(GLASSBOX_INT_LANES_WIDE)
  // Decode's kernel with AVX-512 (super_block_rows_dot): sub-blocks 2i and 2i + 1 in one vector, read
  // straight from the block. AVX-512 has no byte sign instruction for |w| times x * sign(w), so the table is
  // looked up 128 higher (1..241, unsigned) and 128 times the activations' sum (sums32) comes off each total
  // afterwards: the same integers.
  GLASSBOX_INT_INLINE static void add_block(Partials& partials, const std::byte* block,
                                            const QuantizedActivations& x, const int8_t* xi, std::size_t b) {
    const int8_t* xq = xi + b * 32;
    alignas(16) static constexpr uint8_t kRaised[16] = {
        kIq4NlValues[0] + 128,  kIq4NlValues[1] + 128,  kIq4NlValues[2] + 128,  kIq4NlValues[3] + 128,
        kIq4NlValues[4] + 128,  kIq4NlValues[5] + 128,  kIq4NlValues[6] + 128,  kIq4NlValues[7] + 128,
        kIq4NlValues[8] + 128,  kIq4NlValues[9] + 128,  kIq4NlValues[10] + 128, kIq4NlValues[11] + 128,
        kIq4NlValues[12] + 128, kIq4NlValues[13] + 128, kIq4NlValues[14] + 128, kIq4NlValues[15] + 128};
    const __m512i table = _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(kRaised)));
    int_lanes::WideSums s[4];
    for (int i = 0; i < 4; ++i) {
      // Sub-blocks 2i and 2i + 1's 16 bytes of indices each, taken apart as Q4_0's nibbles.
      const __m512i two =
          _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 8 + 32 * i)));
      s[i] =
          int_lanes::dot_unsigned_wide(_mm512_shuffle_epi8(table, int_lanes::nibbles_two(two)), xq + 64 * i);
    }
    alignas(32) int32_t isum[8];
    int_lanes::totals8_wide(s, isum);
    const __m256i raised =
        _mm256_slli_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.sums32 + b)), 7);
    _mm256_store_si256(reinterpret_cast<__m256i*>(isum),
                       _mm256_sub_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(isum)), raised));
    float ws[8];
    scales(block, ws);
    partials.add8(ws, x.d + b, isum);
  }
#endif
};

}  // namespace glassbox::kernels::int_iquants
