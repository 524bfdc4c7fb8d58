// The integer dot products of the K-quant super-blocks (256 values, 8 sub-blocks of 32): Q4_K and Q6_K,
// the two types of llama.cpp's Q4_K_M files, and Q5_K (with Q6_K, its Q5_K_M files). What ws_b, wm_b and isum_b are for each:
// quantized_int_dot.hpp; the bit layouts are the decoders' (blocks/<type>.cpp). A super-block's 8
// sub-blocks start at a multiple of 8, so its terms are two whole passes over the four partial sums.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/quantized.hpp"
#include "kernels/quantized_activations.hpp"
#include "kernels/quantized_int_lanes.hpp"
#include "kernels/quantized_int_terms.hpp"

namespace glassbox::kernels::int_kquants {

using int_lanes::Bytes;
using int_lanes::Sums;
using int_terms::Partials;

// Each type unpacks a super-block once (its 8 sub-blocks' weight bytes and scales) into a SuperBlock, then
// adds its terms for each token: a prefill's tokens share the unpacking.

// Q4_K: 144 bytes, f16 d, f16 dmin, 12 bytes of packed 6-bit scales and mins, 128 bytes of nibbles: each 32
// bytes hold sub-block 2i in their low nibbles and 2i + 1 in their high ones. Value = d * scale - dmin * min.
struct Q4_K {
  static constexpr std::size_t kBytes = 144;
  struct SuperBlock {
    Bytes q[8];          // sub-block j's nibbles, 0..15
    float ws[8], wm[8];  // d * scale_j, dmin * min_j: the decoder's d1 and m1
  };
  GLASSBOX_INT_INLINE static void unpack(const std::byte* block, SuperBlock& u) {
    for (int i = 0; i < 4; ++i) {
      const Bytes q = int_lanes::load32(block + 16 + 32 * i);
      u.q[2 * i] = int_lanes::low_nibbles(q);
      u.q[2 * i + 1] = int_lanes::high_nibbles(q);
    }
    uint8_t scales[8], mins[8];
    scales_and_mins(block + 4, scales, mins);
    times_bytes(int_terms::f16_at(block), scales, u.ws);
    times_bytes(int_terms::f16_at(block + 2), mins, u.wm);
  }
  // out[j] = d * bytes[j] for j < 8 (one float multiply each, so the same on every instruction set).
  GLASSBOX_INT_INLINE static void times_bytes(float d, const uint8_t* bytes, float* out) {
#if defined(__AVX2__)
    const __m128i eight = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bytes));
    _mm256_storeu_ps(out, _mm256_mul_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(eight))));
#elif defined(__wasm_simd128__)
    const v128_t eight = wasm_u16x8_extend_low_u8x16(wasm_v128_load64_zero(bytes)),
                 scale = wasm_f32x4_splat(d);
    wasm_v128_store(out, wasm_f32x4_mul(scale, wasm_f32x4_convert_u32x4(wasm_u32x4_extend_low_u16x8(eight))));
    wasm_v128_store(out + 4,
                    wasm_f32x4_mul(scale, wasm_f32x4_convert_u32x4(wasm_u32x4_extend_high_u16x8(eight))));
#else
    for (int j = 0; j < 8; ++j)
      out[j] = d * bytes[j];
#endif
  }
  // q4_k_scale_min's 6-bit fields for all eight sub-blocks at once, four bytes per 32-bit word (the 12 bytes
  // as words a, b, c): scale j < 4 is the low six bits of a's byte j and min j of b's; scale 4 + k is the
  // low nibble of c's byte k under the top two bits of a's byte k, min 4 + k the high nibble of c's byte k
  // under the top two bits of b's byte k.
  GLASSBOX_INT_INLINE static void scales_and_mins(const std::byte* packed, uint8_t* scales, uint8_t* mins) {
    uint32_t a, b, c;
    std::memcpy(&a, packed, 4);
    std::memcpy(&b, packed + 4, 4);
    std::memcpy(&c, packed + 8, 4);
    const uint32_t six = 0x3F3F3F3Fu, four = 0x0F0F0F0Fu, two = 0x03030303u;
    const uint32_t words[4] = {a & six, (c & four) | (((a >> 6) & two) << 4), b & six,
                               ((c >> 4) & four) | (((b >> 6) & two) << 4)};
    std::memcpy(scales, words, 8);
    std::memcpy(mins, words + 2, 8);
  }
  // The super-block's terms against x, its first sub-block being the row's sub-block b.
  // xi: x's integers as int_lanes::activation_ints gives them.
  GLASSBOX_INT_INLINE static void add(Partials& partials, const SuperBlock& u, const QuantizedActivations& x,
                                      const int_lanes::XInt* xi, std::size_t b) {
    const int_lanes::XInt* xq = xi + b * 32;
    Sums s[8];
    for (int j = 0; j < 8; ++j)
      s[j] = int_lanes::dot_unsigned(u.q[j], xq + 32 * j);
    int32_t isum[8];
    int_lanes::totals8(s, isum);
    partials.add8(u.ws, u.wm, x.d + b, isum, x.sums32 + b);
  }
#if defined(GLASSBOX_INT_LANES_WIDE)
  // Decode's kernel with AVX-512 (super_block_rows_dot): the super-block read straight from its bytes, each
  // 32 bytes of nibbles its two sub-blocks in one vector (int_lanes::nibble_halves), without unpack's
  // SuperBlock. The same integers as add's, so the same terms.
  GLASSBOX_INT_INLINE static void add_block(Partials& partials, const std::byte* block,
                                            const QuantizedActivations& x, const int8_t* xi, std::size_t b) {
    const int8_t* xq = xi + b * 32;
    int_lanes::WideSums s[4];
    for (int i = 0; i < 4; ++i)
      s[i] = int_lanes::dot_unsigned_wide(int_lanes::nibble_halves(block + 16 + 32 * i), xq + 64 * i);
    add_wide(partials, block, s, x, b);
  }
  // The terms of add8 with offsets from the sub-blocks' sums s (pairs, as int_lanes::totals8_wide takes them)
  // and the header at `block` (Q4_K's and Q5_K's: d, dmin, the 12 bytes of scales and mins), scales and mins
  // side by side in one vector: [ws | wm] = [d | dmin] * [scales | mins], then times dx, then times
  // [isum | xsum], and the halves subtracted: the same float operations on the same values as add8's, half
  // the instructions.
  GLASSBOX_INT_INLINE static void add_wide(Partials& partials, const std::byte* block,
                                           const int_lanes::WideSums* s, const QuantizedActivations& x,
                                           std::size_t b) {
    alignas(32) int32_t isum[8];
    int_lanes::totals8_wide(s, isum);
    int32_t halves;  // d, dmin
    std::memcpy(&halves, block, 4);
    const __m512 d_dmin =
        _mm512_permutexvar_ps(_mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
                              _mm512_castps128_ps512(_mm_cvtph_ps(_mm_cvtsi32_si128(halves))));  // exact
    const __m512 ws_wm =
        _mm512_mul_ps(d_dmin, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(scales_and_mins(block + 4))));
    const __m256 dx = _mm256_loadu_ps(x.d + b);
    const __m512 scaled = _mm512_mul_ps(ws_wm, _mm512_insertf32x8(_mm512_castps256_ps512(dx), dx, 1));
    const __m512i sums =
        _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_load_si256(reinterpret_cast<const __m256i*>(isum))),
                           _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x.sums32 + b)), 1);
    const __m512 products = _mm512_mul_ps(scaled, _mm512_cvtepi32_ps(sums));
    partials.add_halves(_mm256_sub_ps(_mm512_castps512_ps256(products), _mm512_extractf32x8_ps(products, 1)));
  }
  // scales_and_mins' 16 bytes in one vector, scales then mins, from the 12 packed bytes (words a, b, c as
  // there): [a, c, b, c] with the nibbles of the second c shifted down, under [-, a, -, b]'s top two bits.
  GLASSBOX_INT_INLINE static __m128i scales_and_mins(const std::byte* packed) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(packed));  // 4 bytes of nibbles past
    const __m128i low =
        _mm_shuffle_epi8(v, _mm_setr_epi8(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11));
    const __m128i top =
        _mm_shuffle_epi8(v, _mm_setr_epi8(-1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1, 4, 5, 6, 7));
    const __m128i fields = _mm_mask_blend_epi8(__mmask16(0xF000), low, _mm_srli_epi16(low, 4));
    const __m128i masks = _mm_setr_epi8(0x3F, 0x3F, 0x3F, 0x3F, 0x0F, 0x0F, 0x0F, 0x0F, 0x3F, 0x3F, 0x3F,
                                        0x3F, 0x0F, 0x0F, 0x0F, 0x0F);
    return _mm_or_si128(_mm_and_si128(fields, masks),
                        _mm_and_si128(_mm_srli_epi16(top, 2), _mm_set1_epi8(0x30)));
  }
#endif
};

// Q5_K: 176 bytes, Q4_K's f16 d, f16 dmin and 12 bytes of scales and mins, then 32 bytes of fifth bits, then
// Q4_K's 128 bytes of nibbles. Sub-block j's value l (l < 32) is its nibble (low in even j, high in odd j, of
// nibble byte 32 (j / 2) + l) plus 16 times bit j of fifth-bit byte l: 0..31. Value = d * scale - dmin * min,
// as Q4_K's, so the terms are Q4_K's.
struct Q5_K {
  static constexpr std::size_t kBytes = 176;
  using SuperBlock = Q4_K::SuperBlock;
  GLASSBOX_INT_INLINE static void unpack(const std::byte* block, SuperBlock& u) {
    const Bytes fifth = int_lanes::load32(block + 16);
    unpack_pair<0>(block, fifth, u);
    unpack_pair<1>(block, fifth, u);
    unpack_pair<2>(block, fifth, u);
    unpack_pair<3>(block, fifth, u);
    uint8_t scales[8], mins[8];
    Q4_K::scales_and_mins(block + 4, scales, mins);
    Q4_K::times_bytes(int_terms::f16_at(block), scales, u.ws);
    Q4_K::times_bytes(int_terms::f16_at(block + 2), mins, u.wm);
  }
  // Sub-blocks 2i (low nibbles, fifth bit 2i) and 2i + 1 (high nibbles, fifth bit 2i + 1).
  template <int i>
  GLASSBOX_INT_INLINE static void unpack_pair(const std::byte* block, Bytes fifth, SuperBlock& u) {
    const Bytes q = int_lanes::load32(block + 48 + 32 * i);
    u.q[2 * i] = int_lanes::either(int_lanes::low_nibbles(q), int_lanes::bit_to_4<2 * i>(fifth));
    u.q[2 * i + 1] = int_lanes::either(int_lanes::high_nibbles(q), int_lanes::bit_to_4<2 * i + 1>(fifth));
  }
  GLASSBOX_INT_INLINE static void add(Partials& partials, const SuperBlock& u, const QuantizedActivations& x,
                                      const int_lanes::XInt* xi, std::size_t b) {
    Q4_K::add(partials, u, x, xi, b);
  }
#if defined(GLASSBOX_INT_LANES_WIDE)
  // Q4_K::add_block's form: sub-blocks 2i and 2i + 1 in one vector, their nibbles (int_lanes::nibble_halves)
  // under fifth bits 2i and 2i + 1, brought to bit 0 and 1 by one shift of the 32 fifth-bit bytes (in both
  // halves), then to bit 4 by shifting the halves by 4 and by 3 (64-bit lanes, exact under the mask: bits
  // that cross a byte never land on bit 4).
  GLASSBOX_INT_INLINE static void add_block(Partials& partials, const std::byte* block,
                                            const QuantizedActivations& x, const int8_t* xi, std::size_t b) {
    const int8_t* xq = xi + b * 32;
    const __m512i fifth =
        _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 16)));
    const __m512i to_bit_4 = _mm512_setr_epi64(4, 4, 4, 4, 3, 3, 3, 3);
    const __m512i bit_4 = _mm512_set1_epi8(0x10);
    int_lanes::WideSums s[4];
    const auto pair = [&](auto i) __attribute__((always_inline)) {
      const __m512i fifths =
          _mm512_and_si512(_mm512_sllv_epi64(_mm512_srli_epi64(fifth, 2 * i), to_bit_4), bit_4);
      s[i] = int_lanes::dot_unsigned_wide(
          _mm512_or_si512(int_lanes::nibble_halves(block + 48 + 32 * i), fifths), xq + 64 * i);
    };
    pair(std::integral_constant<int, 0>{});
    pair(std::integral_constant<int, 1>{});
    pair(std::integral_constant<int, 2>{});
    pair(std::integral_constant<int, 3>{});
    Q4_K::add_wide(partials, block, s, x, b);
  }
#endif
};

// Q6_K: 210 bytes, ql[128] (low four bits), qh[64] (two high bits each), int8 scales[16] (one per 16 values),
// f16 d. Value = d * scale * (q - 32). In half h (128 values; ql + 64 h, qh + 32 h), sub-block k of 4 takes the
// low (k = 0, 1) or high (k = 2, 3) nibbles of ql's bytes [32 (k % 2), + 32) and bits 2k, 2k + 1 of qh[0, 32).
// The sums of q * x over each 16 values come out multiplied by their scale (exact: at most 16 * 63 * 127 *
// 128 each), and the -32 is taken off as 32 times the activations' sums.
struct Q6_K {
  static constexpr std::size_t kBytes = 210;
  struct SuperBlock {
    Bytes q[8];         // sub-block j's 6-bit values, 0..63
    int16_t scale[16];  // per 16 values
    float d;
  };
  GLASSBOX_INT_INLINE static void unpack(const std::byte* block, SuperBlock& u) {
    for (int h = 0; h < 2; ++h) {
      const Bytes low0 = int_lanes::load32(block + 64 * h), low1 = int_lanes::load32(block + 64 * h + 32);
      const Bytes high = int_lanes::load32(block + 128 + 32 * h);
      u.q[4 * h] = int_lanes::either(int_lanes::low_nibbles(low0), int_lanes::two_bits_to_4_5<0>(high));
      u.q[4 * h + 1] = int_lanes::either(int_lanes::low_nibbles(low1), int_lanes::two_bits_to_4_5<2>(high));
      u.q[4 * h + 2] = int_lanes::either(int_lanes::high_nibbles(low0), int_lanes::two_bits_to_4_5<4>(high));
      u.q[4 * h + 3] = int_lanes::either(int_lanes::high_nibbles(low1), int_lanes::two_bits_to_4_5<6>(high));
    }
#if defined(__AVX2__)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(u.scale),
                        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 192))));
#elif defined(__wasm_simd128__)
    const v128_t scales = wasm_v128_load(block + 192);
    wasm_v128_store(u.scale, wasm_i16x8_extend_low_i8x16(scales));
    wasm_v128_store(u.scale + 8, wasm_i16x8_extend_high_i8x16(scales));
#else
    const auto* scales = reinterpret_cast<const int8_t*>(block + 192);
    for (int i = 0; i < 16; ++i)
      u.scale[i] = scales[i];
#endif
    u.d = int_terms::f16_at(block + 208);
  }
  // isum[j] less 32 * (the activations' sums of each 16 values times their scales): the -32 of q - 32.
  GLASSBOX_INT_INLINE static void less_offsets(int32_t* isum, const int16_t* sc, const int32_t* sums16) {
#if defined(__AVX2__)
    // The 16 products of sums and scales, pairs added (hadd leaves sub-blocks 0, 1, 4, 5 | 2, 3, 6, 7), put
    // back in order by 64-bit pieces.
    const auto load = [](const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); };
    const __m256i first = _mm256_mullo_epi32(
        load(sums16), _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sc))));
    const __m256i second = _mm256_mullo_epi32(
        load(sums16 + 8), _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sc + 8))));
    const __m256i offsets = _mm256_permute4x64_epi64(_mm256_hadd_epi32(first, second), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(isum),
                        _mm256_sub_epi32(load(isum), _mm256_slli_epi32(offsets, 5)));
#elif defined(__wasm_simd128__)
    // Four sub-blocks at a time: their 8 products of sums and scales, neighbours added by a shuffle.
    for (int half = 0; half < 2; ++half) {
      const v128_t scales = wasm_v128_load(sc + 8 * half);
      const v128_t a = wasm_i32x4_mul(wasm_v128_load(sums16 + 8 * half), wasm_i32x4_extend_low_i16x8(scales));
      const v128_t b =
          wasm_i32x4_mul(wasm_v128_load(sums16 + 8 * half + 4), wasm_i32x4_extend_high_i16x8(scales));
      const v128_t offsets =
          wasm_i32x4_add(wasm_i32x4_shuffle(a, b, 0, 2, 4, 6), wasm_i32x4_shuffle(a, b, 1, 3, 5, 7));
      int32_t* at = isum + 4 * half;
      wasm_v128_store(at, wasm_i32x4_sub(wasm_v128_load(at), wasm_i32x4_shl(offsets, 5)));
    }
#else
    for (int j = 0; j < 8; ++j)
      isum[j] -= 32 * (sc[2 * j] * sums16[2 * j] + sc[2 * j + 1] * sums16[2 * j + 1]);
#endif
  }
  GLASSBOX_INT_INLINE static void add(Partials& partials, const SuperBlock& u, const QuantizedActivations& x,
                                      const int_lanes::XInt* xi, std::size_t b) {
    const int_lanes::XInt* xq = xi + b * 32;
    const int16_t* sc = u.scale;
    Sums s[8];
    for (int j = 0; j < 8; ++j)
      s[j] = int_lanes::dot_unsigned_halves(u.q[j], xq + 32 * j, sc + 2 * j);
    int32_t isum[8];
    int_lanes::totals8(s, isum);
    less_offsets(isum, sc, x.sums16 + 2 * b);
    partials.add8(u.d, x.d + b, isum);
  }
#if defined(__AVX2__)
  // Decode's kernel (one token, blocks/q6_k.cpp): the super-block read straight from its bytes and its terms
  // added, without unpack's SuperBlock. The same isum_b as add's, computed in another order (integers, so
  // exact): each 32 values' products summed without their scales, the 16 sums of 16 values totalled together
  // (first halves [F0..F3 | S0..S3] in one vector, [F4..F7 | S4..S7] in the other, F the first 16 values of
  // sub-block j, S the second), the -32 taken off as 32 times the activations' sums of 16, and only then each
  // sum times its int8 scale (one 32-bit multiply per eight), where add spreads the scales before every
  // product. Fewer instructions: no scale shuffles per sub-block, and no scaled offsets to pair up.
  GLASSBOX_INT_INLINE static void add_block(Partials& partials, const std::byte* block,
                                            const QuantizedActivations& x, const int8_t* xi, std::size_t b) {
#if defined(GLASSBOX_INT_LANES_WIDE)
    add_block_wide(partials, block, x, xi, b);
#else
    const int8_t* xq = xi + b * 32;
    const __m256i m4 = _mm256_set1_epi8(0x0F), m2 = _mm256_set1_epi8(0x30);
    Sums s[8];
    for (int h = 0; h < 2; ++h) {
      const __m256i low0 = int_lanes::load32(block + 64 * h), low1 = int_lanes::load32(block + 64 * h + 32);
      const __m256i high = int_lanes::load32(block + 128 + 32 * h);
      const __m256i q0 =
          _mm256_or_si256(_mm256_and_si256(low0, m4), _mm256_and_si256(_mm256_slli_epi16(high, 4), m2));
      const __m256i q1 =
          _mm256_or_si256(_mm256_and_si256(low1, m4), _mm256_and_si256(_mm256_slli_epi16(high, 2), m2));
      const __m256i q2 =
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(low0, 4), m4), _mm256_and_si256(high, m2));
      const __m256i q3 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(low1, 4), m4),
                                         _mm256_and_si256(_mm256_srli_epi16(high, 2), m2));
      const int8_t* xh = xq + 128 * h;
      s[4 * h] = int_lanes::dot_unsigned(q0, xh);
      s[4 * h + 1] = int_lanes::dot_unsigned(q1, xh + 32);
      s[4 * h + 2] = int_lanes::dot_unsigned(q2, xh + 64);
      s[4 * h + 3] = int_lanes::dot_unsigned(q3, xh + 96);
    }
    // Lanes 0..3 of each s[j] hold its first 16 values' sums, lanes 4..7 its second 16's: two hadd levels
    // leave [F0 F1 F2 F3 | S0 S1 S2 S3] and [F4 .. F7 | S4 .. S7].
    const __m256i first = _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
    const __m256i second = _mm256_hadd_epi32(_mm256_hadd_epi32(s[4], s[5]), _mm256_hadd_epi32(s[6], s[7]));
    // The activations' sums of 16 and the int8 scales in that order: even 16s (first halves), then odd ones.
    const __m256i evens_then_odds = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const int32_t* sums16 = x.sums16 + 2 * b;
    const __m256i sums_first = _mm256_permutevar8x32_epi32(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums16)), evens_then_odds);
    const __m256i sums_second = _mm256_permutevar8x32_epi32(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums16 + 8)), evens_then_odds);
    const __m128i scales =
        _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 192)),
                         _mm_setr_epi8(0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15));
    const __m256i scaled_first = _mm256_mullo_epi32(_mm256_sub_epi32(first, _mm256_slli_epi32(sums_first, 5)),
                                                    _mm256_cvtepi8_epi32(scales));
    const __m256i scaled_second =
        _mm256_mullo_epi32(_mm256_sub_epi32(second, _mm256_slli_epi32(sums_second, 5)),
                           _mm256_cvtepi8_epi32(_mm_unpackhi_epi64(scales, scales)));
    // isum_j = its first half's scaled sum plus its second's.
    int32_t isum[8];
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(isum),
                        _mm256_add_epi32(_mm256_permute2x128_si256(scaled_first, scaled_second, 0x20),
                                         _mm256_permute2x128_si256(scaled_first, scaled_second, 0x31)));
    partials.add8(int_terms::f16_at(block + 208), x.d + b, isum);
#endif
  }
#endif
#if defined(GLASSBOX_INT_LANES_WIDE)
  // add_block with AVX-512: sub-blocks 2i and 2i + 1 in one vector. In half h, sub-blocks 4h and 4h + 1 take
  // the low nibbles of ql's 64 bytes [64 h, + 64) (one load) under qh's bits 0, 1 and 2, 3; sub-blocks 4h + 2
  // and 4h + 3 their high nibbles under bits 4, 5 and 6, 7 (qh's 32 bytes in both halves, shifted by each
  // half's count). The sums of 16 values come out as [F0 .. F7 | S0 .. S7] (int_lanes::halves16_wide), so the
  // activations' sums of 16 and the scales are put in that order, and one 16-lane multiply scales them all.
  GLASSBOX_INT_INLINE static void add_block_wide(Partials& partials, const std::byte* block,
                                                 const QuantizedActivations& x, const int8_t* xi,
                                                 std::size_t b) {
    const int8_t* xq = xi + b * 32;
    const __m512i m4 = _mm512_set1_epi8(0x0F), m2 = _mm512_set1_epi8(0x30);
    const __m512i low_shifts = _mm512_setr_epi64(4, 4, 4, 4, 2, 2, 2, 2);   // bits 0, 1 | 2, 3 to 4, 5: left
    const __m512i high_shifts = _mm512_setr_epi64(0, 0, 0, 0, 2, 2, 2, 2);  // bits 4, 5 | 6, 7: right
    int_lanes::WideSums s[4];
    for (int h = 0; h < 2; ++h) {
      const __m512i low = _mm512_loadu_si512(block + 64 * h);
      const __m512i high =
          _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 128 + 32 * h)));
      const __m512i first = _mm512_or_si512(_mm512_and_si512(low, m4),
                                            _mm512_and_si512(_mm512_sllv_epi64(high, low_shifts), m2));
      const __m512i second = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(low, 4), m4),
                                             _mm512_and_si512(_mm512_srlv_epi64(high, high_shifts), m2));
      s[2 * h] = int_lanes::dot_unsigned_wide(first, xq + 128 * h);
      s[2 * h + 1] = int_lanes::dot_unsigned_wide(second, xq + 128 * h + 64);
    }
    const __m512i evens_then_odds = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    const __m512i sums16 = _mm512_permutexvar_epi32(evens_then_odds, _mm512_loadu_si512(x.sums16 + 2 * b));
    const __m512i scales = _mm512_cvtepi8_epi32(
        _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 192)),
                         _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15)));
    const __m512i scaled = _mm512_mullo_epi32(
        _mm512_sub_epi32(int_lanes::halves16_wide(s), _mm512_slli_epi32(sums16, 5)), scales);
    int32_t isum[8];
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(isum),
        _mm256_add_epi32(_mm512_castsi512_si256(scaled), _mm512_extracti64x4_epi64(scaled, 1)));
    partials.add8(int_terms::f16_at(block + 208), x.d + b, isum);
  }
#endif
};

}  // namespace glassbox::kernels::int_kquants
