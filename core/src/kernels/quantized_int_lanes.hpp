// The integer core of the quantized-activation dot products (quantized_int_dot_rows.hpp): 32 weight bytes
// times 32 activation bytes (quantized_activations.hpp), summed exactly, on each instruction set.
//
// Why intrinsics and not xsimd: xsimd 8.1 has no widening 8-bit multiply-add (x86's pmaddubsw / vpdpbusd,
// WebAssembly's i32x4.dot_i16x8_s); built from its generic operations the products would be widened lane by
// lane. So each instruction set the project targets gets a few lines here:
//   AVX-512 VNNI (with VL)  vpdpbusd: 32 u8 x s8 products summed in fours into 8 int32 lanes, one instruction
//   AVX2                    vpmaddubsw then vpmaddwd against ones (the same sums in two steps)
//   WebAssembly SIMD128     i32x4.dot_i16x8_s (two 16-bit products added into each 32-bit lane) of the weights
//                           widened to 16 bits against the activations widened once per product
//                           (activation_ints); SIMD128 has no byte products (nor has SSE4.1's emulation)
//   anything else           a plain loop
// All of them give the same integers: x86's unsigned-times-signed instructions take |w| and x * sign(w)
// (ggml's trick), exact because activations never reach -128 (|w| <= 128, |x| <= 127, so a pmaddubsw pair is
// at most 2 * 128 * 127 = 32512 and never saturates), and the result of a block is only ever its exact total.
// The activations x come as activation_ints() gives them: the bytes natively, 16-bit integers in WebAssembly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__AVX2__) || defined(__wasm_simd128__)
#define GLASSBOX_INT_LANES_SIMD 1
#endif

#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

#define GLASSBOX_INT_INLINE __attribute__((always_inline)) inline

namespace glassbox::kernels::int_lanes {

#if defined(__AVX2__)
using Bytes = __m256i;  // 32 weight bytes
using Sums = __m256i;   // int32 lanes whose total is a block's dot product
using XInt = int8_t;    // an activation as the products take it

GLASSBOX_INT_INLINE Bytes load32(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}
GLASSBOX_INT_INLINE void store32(void* p, Bytes b) {
  _mm256_storeu_si256(static_cast<__m256i*>(p), b);
}

// 16 packed bytes to 32 values: the low nibbles (values 0..15 of the block), then the high ones (16..31).
// The bytes are loaded into both halves at once (vbroadcasti128), the upper half shifted by 4 (a variable
// shift of 64-bit lanes: 0 below, 4 above) and one mask drops the bits that crossed a byte: three
// instructions where two 128-bit halves took five (a load, two masks, a shift, an insert). On an AVX2 EPYC,
// Q4_0's decode kernel went from 1.36 to 1.12 ns a block (768 x 288, in cache; same bits), and gqa40M's
// Q4_0 generation at 1 thread from 285 to 327 tokens/s (medians of 6 alternated runs).
GLASSBOX_INT_INLINE Bytes nibbles(const void* p) {
  const __m256i packed = _mm256_broadcastsi128_si256(_mm_loadu_si128(static_cast<const __m128i*>(p)));
  return _mm256_and_si256(_mm256_srlv_epi64(packed, _mm256_setr_epi64x(0, 0, 4, 4)), _mm256_set1_epi8(0x0F));
}

// w in [0, 127] (unsigned weights: nibbles, 6-bit values) times x.
GLASSBOX_INT_INLINE Sums dot_unsigned(Bytes w, const int8_t* x) {
  const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
  return _mm256_dpbusd_epi32(_mm256_setzero_si256(), w, xv);
#else
  return _mm256_madd_epi16(_mm256_maddubs_epi16(w, xv), _mm256_set1_epi16(1));
#endif
}

// w in [-128, 127] times x: |w| times x * sign(w).
GLASSBOX_INT_INLINE Sums dot_signed(Bytes w, const int8_t* x) {
  const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
  const __m256i magnitude = _mm256_abs_epi8(w), signed_x = _mm256_sign_epi8(xv, w);
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
  return _mm256_dpbusd_epi32(_mm256_setzero_si256(), magnitude, signed_x);
#else
  return _mm256_madd_epi16(_mm256_maddubs_epi16(magnitude, signed_x), _mm256_set1_epi16(1));
#endif
}

// Subtracts `offset` from every one of 32 unsigned bytes, giving signed ones (Q4_0's -8).
GLASSBOX_INT_INLINE Bytes minus(Bytes w, int8_t offset) {
  return _mm256_sub_epi8(w, _mm256_set1_epi8(offset));
}

// The K-quants' bit fields (quantized_int_dot_kquants.hpp): each byte's low or high nibble (0..15), bits
// kShift and kShift + 1 moved to bits 4 and 5 (Q6_K's high bits), bit kShift moved to bit 4 (Q5_K's fifth
// bit), and the two put together. Shifting 16-bit
// lanes is exact here because the masks drop every bit that crossed a byte.
GLASSBOX_INT_INLINE Bytes low_nibbles(Bytes b) {
  return _mm256_and_si256(b, _mm256_set1_epi8(0x0F));
}
GLASSBOX_INT_INLINE Bytes high_nibbles(Bytes b) {
  return _mm256_and_si256(_mm256_srli_epi16(b, 4), _mm256_set1_epi8(0x0F));
}
template <int kShift>
GLASSBOX_INT_INLINE Bytes two_bits_to_4_5(Bytes b) {
  const __m256i mask = _mm256_set1_epi8(0x30);
  if constexpr (kShift < 4) return _mm256_and_si256(_mm256_slli_epi16(b, 4 - kShift), mask);
  if constexpr (kShift == 4) return _mm256_and_si256(b, mask);
  if constexpr (kShift > 4) return _mm256_and_si256(_mm256_srli_epi16(b, kShift - 4), mask);
}
// Bit kShift of each byte moved to bit 4 (Q5_K's fifth bits).
template <int kShift>
GLASSBOX_INT_INLINE Bytes bit_to_4(Bytes b) {
  const __m256i mask = _mm256_set1_epi8(0x10);
  if constexpr (kShift < 4) return _mm256_and_si256(_mm256_slli_epi16(b, 4 - kShift), mask);
  if constexpr (kShift == 4) return _mm256_and_si256(b, mask);
  if constexpr (kShift > 4) return _mm256_and_si256(_mm256_srli_epi16(b, kShift - 4), mask);
}
GLASSBOX_INT_INLINE Bytes either(Bytes a, Bytes b) {
  return _mm256_or_si256(a, b);
}

// table[i] for each of 32 indices i in 0..15 (IQ4_NL / IQ4_XS's non-linear values): pshufb looks up within
// each 128-bit lane, so both lanes hold the table.
GLASSBOX_INT_INLINE Bytes look_up(const int8_t* table, Bytes indices) {
  return _mm256_shuffle_epi8(
      _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table))), indices);
}

// w in [0, 127] times x, the products of bytes 0..15 multiplied by scales[0] and those of 16..31 by scales[1]
// (Q6_K's per-16 scales): pmaddubsw's pairs (at most 2 * 127 * 127) times the scales in pmaddwd, whose
// vector is the two scales (one 32-bit load) spread over the halves by a byte shuffle. The same with VNNI
// (a dword multiply after vpdpbusd would not be faster).
GLASSBOX_INT_INLINE Sums dot_unsigned_halves(Bytes w, const int8_t* x, const int16_t* scales) {
  const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
  int32_t pair;
  std::memcpy(&pair, scales, 4);
  const __m256i spread = _mm256_shuffle_epi8(
      _mm256_set1_epi32(pair), _mm256_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2,
                                                3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3));
  return _mm256_madd_epi16(_mm256_maddubs_epi16(w, xv), spread);
}

// The four blocks' totals, in order.
GLASSBOX_INT_INLINE void totals4(Sums a, Sums b, Sums c, Sums d, int32_t* out) {
  const __m256i all = _mm256_hadd_epi32(_mm256_hadd_epi32(a, b), _mm256_hadd_epi32(c, d));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                   _mm_add_epi32(_mm256_castsi256_si128(all), _mm256_extracti128_si256(all, 1)));
}

// Eight blocks' totals, in order: each hadd tree leaves four blocks' halves in the two 128-bit lanes
// ([a, b, c, d] from lanes 0..3, then from lanes 4..7), and one add of the lanes put together finishes both.
GLASSBOX_INT_INLINE void totals8(const Sums* s, int32_t* out) {
  const __m256i x = _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
  const __m256i y = _mm256_hadd_epi32(_mm256_hadd_epi32(s[4], s[5]), _mm256_hadd_epi32(s[6], s[7]));
  _mm256_storeu_si256(
      reinterpret_cast<__m256i*>(out),
      _mm256_add_epi32(_mm256_permute2x128_si256(x, y, 0x20), _mm256_permute2x128_si256(x, y, 0x31)));
}

#if defined(__AVX512VNNI__) && defined(__AVX512BW__) && defined(__AVX512VL__)
// AVX-512: two neighbouring 32-value blocks in one 512-bit vector (the first in the low half), their
// products in one vpdpbusd against the 64 activations they meet. Where the 256-bit forms above keep the
// second port of a 512-bit machine idle (Zen 5, Sapphire Rapids), this halves the products' instructions.
#define GLASSBOX_INT_LANES_WIDE 1
using WideSums = __m512i;  // int32 lanes: the first block's eight, then the second's

// w in [0, 127] (two blocks' bytes) times x[0, 64).
GLASSBOX_INT_INLINE WideSums dot_unsigned_wide(__m512i w, const int8_t* x) {
  return _mm512_dpbusd_epi32(_mm512_setzero_si512(), w, _mm512_loadu_si512(x));
}

// 32 packed bytes to two blocks: their low nibbles (the first block), then their high ones (the second).
GLASSBOX_INT_INLINE __m512i nibble_halves(const void* p) {
  const __m512i packed = _mm512_broadcast_i64x4(_mm256_loadu_si256(static_cast<const __m256i*>(p)));
  return _mm512_and_si512(_mm512_mask_srli_epi16(packed, __mmask32(0xFFFF0000u), packed, 4),
                          _mm512_set1_epi8(0x0F));
}

// Two blocks' values from their 16 packed bytes each (nibbles(): values 0..15 low, 16..31 high), the bytes in
// the low two 128-bit quarters of `two`: [first's low nibbles, its high ones | second's low, high].
GLASSBOX_INT_INLINE __m512i nibbles_two(__m512i two) {
  const __m512i spread = _mm512_shuffle_i64x2(two, two, 0x50);  // quarters 0, 0, 1, 1
  return _mm512_and_si512(_mm512_mask_srli_epi16(spread, __mmask32(0xFF00FF00u), spread, 4),
                          _mm512_set1_epi8(0x0F));
}

// The same blocks of two rows (Q4_0's eight-row decode, rows8_dot) times the same 32 activations, in both
// halves of x2.
GLASSBOX_INT_INLINE WideSums dot_nibbles_two(const void* p0, const void* p1, __m512i x2) {
  const __m512i two =
      _mm512_inserti32x4(_mm512_castsi128_si512(_mm_loadu_si128(static_cast<const __m128i*>(p0))),
                         _mm_loadu_si128(static_cast<const __m128i*>(p1)), 1);
  return _mm512_dpbusd_epi32(_mm512_setzero_si512(), nibbles_two(two), x2);
}

// Eight blocks' sums of their first 16 values, then of their second 16, in order, from four WideSums (blocks
// 2i and 2i + 1 in s[i]): lanes interleaved and added (pairs of s, 32-bit then 64-bit), which leaves in each
// 128-bit quarter k the sums of quarter k of s[0..3] (quarter 0: the first halves of blocks 0, 2, 4, 6;
// quarter 1 their second halves; quarters 2 and 3 the same of blocks 1, 3, 5, 7), then one permute.
GLASSBOX_INT_INLINE __m512i halves16_wide(const WideSums* s) {
  const __m512i ab = _mm512_add_epi32(_mm512_unpacklo_epi32(s[0], s[1]), _mm512_unpackhi_epi32(s[0], s[1]));
  const __m512i cd = _mm512_add_epi32(_mm512_unpacklo_epi32(s[2], s[3]), _mm512_unpackhi_epi32(s[2], s[3]));
  const __m512i quarters = _mm512_add_epi32(_mm512_unpacklo_epi64(ab, cd), _mm512_unpackhi_epi64(ab, cd));
  return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15),
                                  quarters);
}

// Eight blocks' totals, in order, from four WideSums, as totals8 gives them from eight Sums.
GLASSBOX_INT_INLINE void totals8_wide(const WideSums* s, int32_t* out) {
  const __m512i halves = halves16_wide(s);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                      _mm256_add_epi32(_mm512_castsi512_si256(halves), _mm512_extracti64x4_epi64(halves, 1)));
}
#endif

#if !(defined(__AVX512VNNI__) && defined(__AVX512VL__))
// Q4_0's eight-row decode (quantized_int_dot_rows.hpp, rows8_dot) without VNNI: a block's nibbles times x
// left as pmaddubsw's 16 pairs (each at most 2 * 15 * 127 = 3810), for nibble_totals8 to total.
#define GLASSBOX_INT_LANES_NIBBLE_PAIRS 1
GLASSBOX_INT_INLINE Sums nibble_pairs(const void* p, const int8_t* x) {
  return _mm256_maddubs_epi16(nibbles(p), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)));
}

// Eight rows' blocks totalled from nibble_pairs, in order, as totals8 does from 32-bit sums: two levels of
// 16-bit horizontal adds first (a lane then holds 8 products, at most 8 * 15 * 127 = 15240 < 2^15: exact),
// then one pmaddwd against ones for four rows where dot_unsigned spent one a row. 6 multiplies fewer per 8
// rows; on an AVX2 EPYC (Zen 3) Q4_0's decode kernel went from 1.17-1.19 to 1.09-1.11 ns a block
// (1536 x 512, in L2; the same integers, so the same bits).
GLASSBOX_INT_INLINE void nibble_totals8(const Sums* s, int32_t* out) {
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i x = _mm256_madd_epi16(
      _mm256_hadd_epi16(_mm256_hadd_epi16(s[0], s[1]), _mm256_hadd_epi16(s[2], s[3])), ones);
  const __m256i y = _mm256_madd_epi16(
      _mm256_hadd_epi16(_mm256_hadd_epi16(s[4], s[5]), _mm256_hadd_epi16(s[6], s[7])), ones);
  _mm256_storeu_si256(
      reinterpret_cast<__m256i*>(out),
      _mm256_add_epi32(_mm256_permute2x128_si256(x, y, 0x20), _mm256_permute2x128_si256(x, y, 0x31)));
}
#endif

#elif defined(__wasm_simd128__)
struct Bytes {
  v128_t low, high;  // bytes 0..15, 16..31
};
using Sums = v128_t;
// The activations widened to 16 bits (activation_ints): i32x4.dot_i16x8_s, the widest integer product SIMD128
// has, multiplies 16-bit lanes, and widening x once per product leaves each row's blocks only their weights
// to widen: in V8 2.5 against 2.75 ns a Q8_0 block with i16x8.extmul of both sides' bytes (1024 rows of
// 256, in cache), and for nibbles 2.4 against 3.0 ns a Q4_0 block (dot_nibbles against u8x16.shr).
using XInt = int16_t;

GLASSBOX_INT_INLINE Bytes load32(const void* p) {
  const auto* bytes = static_cast<const uint8_t*>(p);
  return {wasm_v128_load(bytes), wasm_v128_load(bytes + 16)};
}
GLASSBOX_INT_INLINE void store32(void* p, Bytes b) {
  auto* bytes = static_cast<uint8_t*>(p);
  wasm_v128_store(bytes, b.low);
  wasm_v128_store(bytes + 16, b.high);
}

GLASSBOX_INT_INLINE Bytes nibbles(const void* p) {
  const v128_t packed = wasm_v128_load(p);
  return {wasm_v128_and(packed, wasm_i8x16_splat(0x0F)), wasm_u8x16_shr(packed, 4)};
}

// 16 weight bytes (each fitting an int8) times x[0, 16): each half widened to 16 bits, then two dots. No sum
// can overflow: a lane adds 4 products of at most 128 * 127.
GLASSBOX_INT_INLINE v128_t dot16(v128_t w, const int16_t* x) {
  return wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(w), wasm_v128_load(x)),
                        wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(w), wasm_v128_load(x + 8)));
}

// Every weight this file sees fits an int8 (unsigned ones are at most 127), so one signed path serves both.
GLASSBOX_INT_INLINE Sums dot_signed(Bytes w, const int16_t* x) {
  return wasm_i32x4_add(dot16(w.low, x), dot16(w.high, x + 16));
}
GLASSBOX_INT_INLINE Sums dot_unsigned(Bytes w, const int16_t* x) {
  return dot_signed(w, x);
}

// 16 packed bytes (nibbles(): values 0..15 low, 16..31 high) times x, unsigned: the bytes widened to 16 bits
// first, where the nibbles come out with a mask and a shift of 16-bit lanes (SIMD128 has no 8-bit shift;
// V8 emulates u8x16.shr with three instructions).
GLASSBOX_INT_INLINE Sums dot_nibbles(const void* p, const int16_t* x) {
  const v128_t packed = wasm_v128_load(p), mask = wasm_i16x8_splat(0x0F);
  const v128_t first = wasm_u16x8_extend_low_u8x16(packed), second = wasm_u16x8_extend_high_u8x16(packed);
  const v128_t low = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_v128_and(first, mask), wasm_v128_load(x)),
                                    wasm_i32x4_dot_i16x8(wasm_v128_and(second, mask), wasm_v128_load(x + 8)));
  const v128_t high = wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_u16x8_shr(first, 4), wasm_v128_load(x + 16)),
                                     wasm_i32x4_dot_i16x8(wasm_u16x8_shr(second, 4), wasm_v128_load(x + 24)));
  return wasm_i32x4_add(low, high);
}

GLASSBOX_INT_INLINE Bytes minus(Bytes w, int8_t offset) {
  const v128_t o = wasm_i8x16_splat(offset);
  return {wasm_i8x16_sub(w.low, o), wasm_i8x16_sub(w.high, o)};
}

GLASSBOX_INT_INLINE Bytes low_nibbles(Bytes b) {
  const v128_t mask = wasm_i8x16_splat(0x0F);
  return {wasm_v128_and(b.low, mask), wasm_v128_and(b.high, mask)};
}
GLASSBOX_INT_INLINE Bytes high_nibbles(Bytes b) {
  return {wasm_u8x16_shr(b.low, 4), wasm_u8x16_shr(b.high, 4)};
}
template <int kShift>
GLASSBOX_INT_INLINE Bytes two_bits_to_4_5(Bytes b) {
  const v128_t mask = wasm_i8x16_splat(0x30);
  if constexpr (kShift < 4)
    return {wasm_v128_and(wasm_i8x16_shl(b.low, 4 - kShift), mask),
            wasm_v128_and(wasm_i8x16_shl(b.high, 4 - kShift), mask)};
  if constexpr (kShift == 4) return {wasm_v128_and(b.low, mask), wasm_v128_and(b.high, mask)};
  if constexpr (kShift > 4)
    return {wasm_v128_and(wasm_u8x16_shr(b.low, kShift - 4), mask),
            wasm_v128_and(wasm_u8x16_shr(b.high, kShift - 4), mask)};
}
// Shifted as 16-bit lanes (exact: the mask drops every bit that crossed a byte), one instruction where V8
// emulates an 8-bit shift with three.
template <int kShift>
GLASSBOX_INT_INLINE Bytes bit_to_4(Bytes b) {
  const v128_t mask = wasm_i8x16_splat(0x10);
  if constexpr (kShift < 4)
    return {wasm_v128_and(wasm_i16x8_shl(b.low, 4 - kShift), mask),
            wasm_v128_and(wasm_i16x8_shl(b.high, 4 - kShift), mask)};
  if constexpr (kShift == 4) return {wasm_v128_and(b.low, mask), wasm_v128_and(b.high, mask)};
  if constexpr (kShift > 4)
    return {wasm_v128_and(wasm_u16x8_shr(b.low, kShift - 4), mask),
            wasm_v128_and(wasm_u16x8_shr(b.high, kShift - 4), mask)};
}
GLASSBOX_INT_INLINE Bytes either(Bytes a, Bytes b) {
  return {wasm_v128_or(a.low, b.low), wasm_v128_or(a.high, b.high)};
}

GLASSBOX_INT_INLINE Bytes look_up(const int8_t* table, Bytes indices) {
  const v128_t t = wasm_v128_load(table);
  return {wasm_i8x16_swizzle(t, indices.low), wasm_i8x16_swizzle(t, indices.high)};
}

// Each half's four int32 sums times its scale.
GLASSBOX_INT_INLINE Sums dot_unsigned_halves(Bytes w, const int16_t* x, const int16_t* scales) {
  return wasm_i32x4_add(wasm_i32x4_mul(dot16(w.low, x), wasm_i32x4_splat(scales[0])),
                        wasm_i32x4_mul(dot16(w.high, x + 16), wasm_i32x4_splat(scales[1])));
}

GLASSBOX_INT_INLINE void totals4(Sums a, Sums b, Sums c, Sums d, int32_t* out) {
  // [a0 + a2, b0 + b2, a1 + a3, b1 + b3], the same for c and d, then the two halves of each.
  const v128_t ab =
      wasm_i32x4_add(wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), wasm_i32x4_shuffle(a, b, 2, 6, 3, 7));
  const v128_t cd =
      wasm_i32x4_add(wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), wasm_i32x4_shuffle(c, d, 2, 6, 3, 7));
  wasm_v128_store(
      out, wasm_i32x4_add(wasm_i32x4_shuffle(ab, cd, 0, 1, 4, 5), wasm_i32x4_shuffle(ab, cd, 2, 3, 6, 7)));
}

// x[0, n) as the products take it: widened to 16 bits into a buffer of the calling thread's (threads may
// multiply the same x at once), valid until its next call.
inline const int16_t* activation_ints(const int8_t* q, std::size_t n) {
  thread_local std::vector<int16_t> wide;
  if (wide.size() < n) wide.resize(n);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t bytes = wasm_v128_load(q + i);
    wasm_v128_store(wide.data() + i, wasm_i16x8_extend_low_i8x16(bytes));
    wasm_v128_store(wide.data() + i + 8, wasm_i16x8_extend_high_i8x16(bytes));
  }
  for (; i < n; ++i)
    wide[i] = q[i];
  return wide.data();
}

// Q8_0's form (blocks/q8_0.cpp) of the same products, without widening instructions: 16 weight bytes read as
// eight 16-bit lanes hold an even byte (low) and an odd one (high). i16x8.shl by 8 leaves 256 times the even
// byte, a mask of the high byte 256 times the odd one: one instruction each, where widening took three per
// 16 bytes (extend_high_i8x16 is two in V8). The activations come split to match (activation_pairs): per 16
// values, the 8 even ones, then the 8 odd ones. So the lanes' total is 256 times the block's sum (at most
// 256 * 32 * 128 * 127 < 2^31), and pairs_exact4 divides four blocks' totals with one shift, exactly.
GLASSBOX_INT_INLINE v128_t dot16_pairs(v128_t w, const int16_t* x) {
  return wasm_i32x4_add(
      wasm_i32x4_dot_i16x8(wasm_i16x8_shl(w, 8), wasm_v128_load(x)),
      wasm_i32x4_dot_i16x8(wasm_v128_and(w, wasm_i16x8_splat(int16_t(0xFF00))), wasm_v128_load(x + 8)));
}
GLASSBOX_INT_INLINE Sums dot_signed_pairs(Bytes w, const int16_t* x) {
  return wasm_i32x4_add(dot16_pairs(w.low, x), dot16_pairs(w.high, x + 16));
}
GLASSBOX_INT_INLINE void pairs_exact4(int32_t* isum) {
  wasm_v128_store(isum, wasm_i32x4_shr(wasm_v128_load(isum), 8));
}

// x[0, n) as dot_signed_pairs takes it, into a buffer of the calling thread's (as activation_ints): each 16
// bytes read as 16-bit lanes, their even bytes sign-extended (shl then shr_s), then their odd ones (shr_s).
inline const int16_t* activation_pairs(const int8_t* q, std::size_t n) {
  thread_local std::vector<int16_t> split;
  if (split.size() < n) split.resize(n);
  for (std::size_t i = 0; i + 16 <= n; i += 16) {  // n is a whole number of 32-value blocks
    const v128_t pairs = wasm_v128_load(q + i);
    wasm_v128_store(split.data() + i, wasm_i16x8_shr(wasm_i16x8_shl(pairs, 8), 8));
    wasm_v128_store(split.data() + i + 8, wasm_i16x8_shr(pairs, 8));
  }
  return split.data();
}

#else
struct Bytes {
  int8_t v[32];
};
using Sums = int32_t;
using XInt = int8_t;

GLASSBOX_INT_INLINE Bytes load32(const void* p) {
  Bytes b;
  std::memcpy(b.v, p, 32);
  return b;
}
GLASSBOX_INT_INLINE void store32(void* p, const Bytes& b) {
  std::memcpy(p, b.v, 32);
}

GLASSBOX_INT_INLINE Bytes nibbles(const void* p) {
  const auto* packed = static_cast<const uint8_t*>(p);
  Bytes b;
  for (int j = 0; j < 16; ++j) {
    b.v[j] = static_cast<int8_t>(packed[j] & 0x0F);
    b.v[j + 16] = static_cast<int8_t>(packed[j] >> 4);
  }
  return b;
}

GLASSBOX_INT_INLINE Sums dot_signed(const Bytes& w, const int8_t* x) {
  int32_t s = 0;
  for (int j = 0; j < 32; ++j)
    s += static_cast<int32_t>(w.v[j]) * x[j];
  return s;
}
GLASSBOX_INT_INLINE Sums dot_unsigned(const Bytes& w, const int8_t* x) {
  return dot_signed(w, x);
}

GLASSBOX_INT_INLINE Bytes minus(Bytes w, int8_t offset) {
  for (int j = 0; j < 32; ++j)
    w.v[j] = static_cast<int8_t>(w.v[j] - offset);
  return w;
}

GLASSBOX_INT_INLINE Bytes low_nibbles(Bytes b) {
  for (int j = 0; j < 32; ++j)
    b.v[j] = static_cast<int8_t>(b.v[j] & 0x0F);
  return b;
}
GLASSBOX_INT_INLINE Bytes high_nibbles(Bytes b) {
  for (int j = 0; j < 32; ++j)
    b.v[j] = static_cast<int8_t>(static_cast<uint8_t>(b.v[j]) >> 4);
  return b;
}
template <int kShift>
GLASSBOX_INT_INLINE Bytes two_bits_to_4_5(Bytes b) {
  for (int j = 0; j < 32; ++j)
    b.v[j] = static_cast<int8_t>(((static_cast<uint8_t>(b.v[j]) >> kShift) & 3) << 4);
  return b;
}
template <int kShift>
GLASSBOX_INT_INLINE Bytes bit_to_4(Bytes b) {
  for (int j = 0; j < 32; ++j)
    b.v[j] = static_cast<int8_t>(((static_cast<uint8_t>(b.v[j]) >> kShift) & 1) << 4);
  return b;
}
GLASSBOX_INT_INLINE Bytes either(Bytes a, const Bytes& b) {
  for (int j = 0; j < 32; ++j)
    a.v[j] = static_cast<int8_t>(a.v[j] | b.v[j]);
  return a;
}

GLASSBOX_INT_INLINE Bytes look_up(const int8_t* table, Bytes indices) {
  for (int j = 0; j < 32; ++j)
    indices.v[j] = table[indices.v[j]];
  return indices;
}

GLASSBOX_INT_INLINE Sums dot_unsigned_halves(const Bytes& w, const int8_t* x, const int16_t* scales) {
  int32_t s0 = 0, s1 = 0;
  for (int j = 0; j < 16; ++j) {
    s0 += static_cast<int32_t>(w.v[j]) * x[j];
    s1 += static_cast<int32_t>(w.v[j + 16]) * x[j + 16];
  }
  return scales[0] * s0 + scales[1] * s1;
}

GLASSBOX_INT_INLINE void totals4(Sums a, Sums b, Sums c, Sums d, int32_t* out) {
  out[0] = a, out[1] = b, out[2] = c, out[3] = d;
}
#endif

// isum[k] -= 8 * sums[k] for k < 4.
GLASSBOX_INT_INLINE void less_8_times(int32_t* isum, const int32_t* sums) {
#if defined(__AVX2__)
  const __m128i i = _mm_loadu_si128(reinterpret_cast<const __m128i*>(isum));
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sums));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(isum), _mm_sub_epi32(i, _mm_slli_epi32(x, 3)));
#elif defined(__wasm_simd128__)
  wasm_v128_store(isum, wasm_i32x4_sub(wasm_v128_load(isum), wasm_i32x4_shl(wasm_v128_load(sums), 3)));
#else
  for (int k = 0; k < 4; ++k)
    isum[k] -= 8 * sums[k];
#endif
}

#if !defined(__wasm_simd128__)
// x[0, n) as the products take it: the bytes themselves.
GLASSBOX_INT_INLINE const int8_t* activation_ints(const int8_t* q, std::size_t) {
  return q;
}

// Q8_0's products (the WebAssembly form's split activations and scaled sums are a SIMD128 matter).
GLASSBOX_INT_INLINE const int8_t* activation_pairs(const int8_t* q, std::size_t) {
  return q;
}
GLASSBOX_INT_INLINE Sums dot_signed_pairs(const Bytes& w, const int8_t* x) {
  return dot_signed(w, x);
}
GLASSBOX_INT_INLINE void pairs_exact4(int32_t*) {}

// 16 packed bytes (nibbles(): values 0..15 low, 16..31 high) times x, unsigned.
GLASSBOX_INT_INLINE Sums dot_nibbles(const void* p, const int8_t* x) {
  return dot_unsigned(nibbles(p), x);
}
#endif

#if !defined(__AVX2__)
GLASSBOX_INT_INLINE void totals8(const Sums* s, int32_t* out) {
  totals4(s[0], s[1], s[2], s[3], out);
  totals4(s[4], s[5], s[6], s[7], out + 4);
}
#endif

// One block's total.
GLASSBOX_INT_INLINE int32_t total(Sums s) {
  int32_t out[4];
  totals4(s, s, s, s, out);
  return out[0];
}

}  // namespace glassbox::kernels::int_lanes
