// int_matmul (quantized_int_matmul.hpp) with AVX2 byte products, for every type with integer kernels. Lanes
// hold tokens, as in the other forms: each 32-bit lane holds four consecutive activations of one token, as
// bytes plus 128 (ActivationColumns::bytes), and one row's four weight bytes are broadcast against eight
// tokens at once. vpmaddubsw multiplies unsigned by signed bytes and adds neighbours into 16-bit lanes:
// (x + 128) is the unsigned side (1..255), the decoded weight w the signed one, and 128 times the
// sub-block's weight sum comes off again (Q8_0 and the IQ4 types: signed products, below), so each
// sub-block's sum is the exact isum_b and the scaling repeats the header's float order: int_matvec's bits.
//
// Why the 16-bit sums stay exact: vpmaddubsw saturates a pair past 32767, and so would adding pairs up. A
// pair is at most 2 * 255 * |w|, so a run of kRun products may be added in 16 bits where kRun * 2 * 255 *
// max|w| <= 32767, before vpmaddwd widens the run to 32 bits (times a multiplier: 1, or Q6_K's scale of
// the 16 values). Per type, with the decoder's w (quantized_int_rows.hpp):
//   Q4_0  w = q - 8 in [-8, 7]       pairs <= 4080:  runs of 8 products, a whole sub-block
//   Q4_K  w = q in [0, 15]           pairs <= 7650:  runs of 4
//   Q5_K  w = q in [0, 31]           pairs <= 15810: runs of 2
//   Q6_K  w = q - 32 in [-32, 31]    pairs <= 16320: runs of 2 (each half's two runs times its scale)
//   Q8_0  w in [-128, 127] would overflow a single pair (65280), so these take signed products instead
//         (signed_sums): |w| is the unsigned side and x * sign(w) the signed one (x itself, the bytes less
//         128), ggml's trick, exact as in int_matvec's (quantized_int_lanes.hpp): a pair is at most
//         2 * 128 * 127 = 32512, widened to 32 bits at once, and no correction comes off. That is one
//         product a weight where splitting w as 16 * (w >> 4) + (w & 15) into two planes took two, and
//         leaves no 16-bit runs to hold in registers: on an AVX2 EPYC, gqa40M Q8_0 prompts of 256 tokens
//         went from 1343 to 1686 tokens/s at 1 thread (glassbox bench, medians of 5 alternated runs).
//   IQ4_XS, IQ4_NL  w = the table value in [-127, 113]: signed products, as Q8_0's.
// Every bound holds for any bytes a file holds, so no file can make a sum saturate.
#include "kernels/quantized_int_matmul_avx2.hpp"

#if GLASSBOX_HAS_AVX2_MATMUL
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <type_traits>

#include "kernels/quantized_int_dot_iquants.hpp"
#include "kernels/quantized_int_dot_kquants.hpp"
#include "kernels/quantized_int_lanes.hpp"
#include "kernels/quantized_int_terms.hpp"

namespace glassbox::kernels {
namespace {

constexpr std::size_t kTokens = 8;  // int32 lanes in a ymm

// How a type's weight bytes meet the (x + 128) activations: the run of products its 16-bit sums take, and its
// multiplier (types with signed products, Q8_0's, take neither).
struct Plane {
  std::size_t run;
  int16_t multiplier;  // 0: Q6_K's scale of the 16 values
};

// A decoded row: its bytes (signed products: with their magnitudes in `magnitude`), the float scales, Q6_K's
// integer scales per 16, and each sub-block's correction 128 * (the multipliers times the weights, summed).
struct Rows {
  const int8_t* w;
  const int8_t* magnitude;
  const int16_t* groups;
  const float* ws;
  const float* wm;
  const int32_t* corrections;
};

GLASSBOX_INT_INLINE int32_t four_bytes(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// The integer sums of sub-block b against G groups of eight tokens for R rows, one plane: acc[r][g] gets
// sum over the sub-block of (x + 128) * w * multiplier, in 32-bit lanes. xb: the first token's bytes in its
// block of the columns, `width` tokens wide.
template <std::size_t R, std::size_t G, std::size_t kRun, bool kGroupScales>
GLASSBOX_INT_INLINE void plane_sums(__m256i (&acc)[R][G], const int8_t* const (&w)[R],
                                    const int16_t* const (&groups)[R], int16_t multiplier, const uint8_t* xb,
                                    std::size_t width, std::size_t b) {
  for (std::size_t first = 0; first < 8; first += kRun) {
    __m256i run[R][G];
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t g = 0; g < G; ++g)
        run[r][g] = _mm256_setzero_si256();
    for (std::size_t quad = first; quad < first + kRun; ++quad) {
      __m256i xv[G];
      for (std::size_t g = 0; g < G; ++g)
        xv[g] =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb + (8 * b + quad) * width * 4 + g * 32));
      for (std::size_t r = 0; r < R; ++r) {
        const __m256i wv = _mm256_set1_epi32(four_bytes(w[r] + 32 * b + 4 * quad));
        for (std::size_t g = 0; g < G; ++g) {
          run[r][g] = _mm256_add_epi16(run[r][g], _mm256_maddubs_epi16(xv[g], wv));
          // Keeps each run one chain of additions: GCC otherwise reassociates the (exact, so reorderable)
          // integer sums into a tree whose products are all live at once, and spills them to the stack.
          asm("" : "+x"(run[r][g]));
        }
      }
    }
    for (std::size_t r = 0; r < R; ++r) {
      // Q6_K: the run lies within one half of the sub-block (kRun divides 4), whose scale it takes.
      const int16_t m = kGroupScales ? groups[r][2 * b + first / 4] : multiplier;
      const __m256i times = _mm256_set1_epi16(m);
      for (std::size_t g = 0; g < G; ++g)
        acc[r][g] = _mm256_add_epi32(acc[r][g], _mm256_madd_epi16(run[r][g], times));
    }
  }
}

// The integer sums of sub-block b against G groups of eight tokens for R rows, as signed products: acc[r][g]
// gets sum over the sub-block of x * w in 32-bit lanes. w: the rows' signed bytes, magnitude: their |w|
// (decoded once per row, so that each product takes one sign and one multiply).
template <std::size_t R, std::size_t G>
GLASSBOX_INT_INLINE void signed_sums(__m256i (&acc)[R][G], const int8_t* const (&w)[R],
                                     const int8_t* const (&magnitude)[R], const uint8_t* xb,
                                     std::size_t width, std::size_t b) {
  const __m256i ones = _mm256_set1_epi16(1), flip = _mm256_set1_epi8(static_cast<char>(0x80));
  for (std::size_t quad = 0; quad < 8; ++quad) {
    __m256i xv[G];
    for (std::size_t g = 0; g < G; ++g)  // x + 128 back to x
      xv[g] = _mm256_xor_si256(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xb + (8 * b + quad) * width * 4 + g * 32)),
          flip);
    for (std::size_t r = 0; r < R; ++r) {
      const __m256i wv = _mm256_set1_epi32(four_bytes(w[r] + 32 * b + 4 * quad));
      const __m256i mv = _mm256_set1_epi32(four_bytes(magnitude[r] + 32 * b + 4 * quad));
      for (std::size_t g = 0; g < G; ++g)
        acc[r][g] = _mm256_add_epi32(
            acc[r][g], _mm256_madd_epi16(_mm256_maddubs_epi16(mv, _mm256_sign_epi8(xv[g], wv)), ones));
    }
  }
}

template <DType kType>
struct Format;
template <>
struct Format<DType::Q8_0> {  // signed products (signed_sums): no plane
  static constexpr bool kSigned = true, kGroupScales = false, kOffsets = false;
};
template <>
struct Format<DType::Q4_0> {
  static constexpr Plane kPlane{8, 1};
  static constexpr bool kSigned = false, kGroupScales = false, kOffsets = false;
};
template <>
struct Format<DType::Q4_K> {
  static constexpr Plane kPlane{4, 1};
  static constexpr bool kSigned = false, kGroupScales = false, kOffsets = true;
};
template <>
struct Format<DType::Q5_K> {
  static constexpr Plane kPlane{2, 1};
  static constexpr bool kSigned = false, kGroupScales = false, kOffsets = true;
};
template <>
struct Format<DType::IQ4_XS> : Format<DType::Q8_0> {};  // table values in [-127, 113]: signed products
template <>
struct Format<DType::IQ4_NL> : Format<DType::IQ4_XS> {};
template <>
struct Format<DType::Q6_K> {
  static constexpr Plane kPlane{2, 0};
  static constexpr bool kSigned = false, kGroupScales = true, kOffsets = false;
};

template <DType kType, std::size_t R, std::size_t G>
void rows_times_lanes(float* out, std::size_t out_stride, std::size_t first_row, const Rows* rows,
                      std::size_t cols, const ActivationColumns& x, std::size_t lane) {
  using F = Format<kType>;
  __m256 partial[R][G][4];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t g = 0; g < G; ++g)
      for (int k = 0; k < 4; ++k)
        partial[r][g][k] = _mm256_setzero_ps();
  // Lanes [lane, lane + 8 G) lie in one block of the byte columns (ActivationColumns).
  const std::size_t block = lane / x.byte_block * x.byte_block;
  const std::size_t width = std::min(x.byte_block, x.lanes - block);
  const uint8_t* xb = x.bytes + block * cols + (lane - block) * 4;
  const int8_t* low[R];
  const int8_t* magnitude[R];
  const int16_t* groups[R];
  for (std::size_t r = 0; r < R; ++r) {
    low[r] = rows[r].w;
    magnitude[r] = rows[r].magnitude;
    groups[r] = rows[r].groups;
  }
  for (std::size_t b = 0; b < cols / 32; ++b) {
    __m256i isum[R][G];
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t g = 0; g < G; ++g)
        isum[r][g] = _mm256_setzero_si256();
    if constexpr (F::kSigned)
      signed_sums<R, G>(isum, low, magnitude, xb, width, b);
    else
      plane_sums<R, G, F::kPlane.run, F::kGroupScales>(isum, low, groups, F::kPlane.multiplier, xb, width, b);
    for (std::size_t g = 0; g < G; ++g) {
      const __m256 dx = _mm256_loadu_ps(x.d + b * x.lanes + lane + g * kTokens);
      for (std::size_t r = 0; r < R; ++r) {
        const __m256i exact =
            F::kSigned ? isum[r][g] : _mm256_sub_epi32(isum[r][g], _mm256_set1_epi32(rows[r].corrections[b]));
        __m256 term =
            _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(rows[r].ws[b]), dx), _mm256_cvtepi32_ps(exact));
        if constexpr (F::kOffsets)
          term =
              _mm256_sub_ps(term, _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(rows[r].wm[b]), dx),
                                                _mm256_loadu_ps(x.xsum + b * x.lanes + lane + g * kTokens)));
        partial[r][g][b % 4] = _mm256_add_ps(partial[r][g][b % 4], term);
      }
    }
  }
  for (std::size_t g = 0; g < G; ++g) {
    if (lane + g * kTokens >= x.tokens) break;
    const std::size_t tokens = std::min(kTokens, x.tokens - lane - g * kTokens);
    alignas(32) float result[R][kTokens];
    for (std::size_t r = 0; r < R; ++r)
      _mm256_store_ps(result[r], _mm256_add_ps(_mm256_add_ps(partial[r][g][0], partial[r][g][1]),
                                               _mm256_add_ps(partial[r][g][2], partial[r][g][3])));
    // Token by token, so that each token's outputs are written side by side.
    for (std::size_t t = 0; t < tokens; ++t)
      for (std::size_t r = 0; r < R; ++r)
        out[(lane + g * kTokens + t) * out_stride + first_row + r] = result[r][t];
  }
}

// The sums of the first and the second 16 of 32 signed bytes.
GLASSBOX_INT_INLINE void halves_sums(__m256i w, int32_t* halves) {
  const __m256i fours = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), w), _mm256_set1_epi16(1));
  __m128i first = _mm256_castsi256_si128(fours), second = _mm256_extracti128_si256(fours, 1);
  const __m128i pairs = _mm_hadd_epi32(first, second);  // [f0 + f1, f2 + f3, s0 + s1, s2 + s3]
  const __m128i sums = _mm_hadd_epi32(pairs, pairs);
  halves[0] = _mm_cvtsi128_si32(sums);
  halves[1] = _mm_extract_epi32(sums, 1);
}

// Row i of the scratch, decoded as decode_integer_row decodes it (tests/quantized_int_dot_test.cpp holds the
// kernel to int_matvec's bits), with each sub-block's correction, and Q8_0's bytes split into their planes.
struct RowOut {
  int8_t* w;
  int8_t* magnitude;
  int16_t* groups;
  float* ws;
  float* wm;
  int32_t* corrections;
};

// Sub-block b's 32 weights and their correction; for signed products (Q8_0's) the weights and their
// magnitudes, and no correction.
template <DType kType>
GLASSBOX_INT_INLINE void store_sub_block(const RowOut& o, std::size_t b, __m256i w) {
  using F = Format<kType>;
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o.w + 32 * b), w);
  if constexpr (F::kSigned) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o.magnitude + 32 * b), _mm256_abs_epi8(w));
  } else {
    int32_t halves[2];
    halves_sums(w, halves);
    o.corrections[b] = F::kGroupScales ? 128 * (o.groups[2 * b] * halves[0] + o.groups[2 * b + 1] * halves[1])
                                       : 128 * (halves[0] + halves[1]);
  }
}

template <DType kType>
void decode_row(const std::byte* row, std::size_t cols, const RowOut& o) {
  if constexpr (kType == DType::Q8_0 || kType == DType::Q4_0 || kType == DType::IQ4_NL) {
    constexpr std::size_t kBytes = kType == DType::Q8_0 ? 34 : 18;
    for (std::size_t b = 0; b < cols / 32; ++b, row += kBytes) {
      o.ws[b] = int_terms::f16_at(row);
      if constexpr (kType == DType::Q8_0)
        store_sub_block<kType>(o, b, int_lanes::load32(row + 2));
      else if constexpr (kType == DType::Q4_0)
        store_sub_block<kType>(o, b, int_lanes::minus(int_lanes::nibbles(row + 2), 8));
      else
        store_sub_block<kType>(o, b, int_iquants::iq4_values(row + 2));
    }
  } else if constexpr (kType == DType::IQ4_XS) {
    for (std::size_t s = 0; s < cols / 256; ++s, row += int_iquants::IQ4_XS::kBytes) {
      int_iquants::IQ4_XS::scales(row, o.ws + 8 * s);
      for (std::size_t j = 0; j < 8; ++j)
        store_sub_block<kType>(o, 8 * s + j, int_iquants::iq4_values(row + 8 + 16 * j));
    }
  } else {
    using Unpack =
        std::conditional_t<kType == DType::Q4_K, int_kquants::Q4_K,
                           std::conditional_t<kType == DType::Q5_K, int_kquants::Q5_K, int_kquants::Q6_K>>;
    for (std::size_t s = 0; s < cols / 256; ++s, row += Unpack::kBytes) {
      typename Unpack::SuperBlock u;
      Unpack::unpack(row, u);
      for (std::size_t j = 0; j < 8; ++j) {
        const std::size_t b = 8 * s + j;
        if constexpr (Format<kType>::kOffsets) {  // Q4_K, Q5_K: a scale and a min per sub-block
          o.ws[b] = u.ws[j];
          o.wm[b] = u.wm[j];
          store_sub_block<kType>(o, b, u.q[j]);
        } else {
          o.ws[b] = u.d;
          o.groups[2 * b] = u.scale[2 * j];
          o.groups[2 * b + 1] = u.scale[2 * j + 1];
          store_sub_block<kType>(o, b, int_lanes::minus(u.q[j], 32));
        }
      }
    }
  }
}

template <DType kType>
void decode_row(const std::byte* row, std::size_t cols, const IntMatmulScratch& s, std::size_t i) {
  decode_row<kType>(row, cols,
                    {s.bytes + i * cols, s.high + i * cols, s.groups + i * (cols / 16),
                     s.ws + i * (cols / 32), s.wm + i * (cols / 32), s.sums + i * (cols / 16)});
}

// All kIntMatmulRows decoded rows against 16 tokens at a time (one block of the byte columns); the last 8
// tokens of an odd count of 8 alone.
template <DType kType, std::size_t R>
void rows_times_columns(float* out, std::size_t out_stride, std::size_t first_row, const IntMatmulScratch& s,
                        std::size_t cols, const ActivationColumns& x) {
  static_assert(kAvx2MatmulTokens == 2 * kTokens);
  Rows rows[R];
  for (std::size_t r = 0; r < R; ++r)
    rows[r] = {s.bytes + r * cols,     s.high + r * cols,      s.groups + r * (cols / 16),
               s.ws + r * (cols / 32), s.wm + r * (cols / 32), s.sums + r * (cols / 16)};
  std::size_t lane = 0;
  for (; lane + 2 * kTokens <= x.lanes; lane += 2 * kTokens)
    rows_times_lanes<kType, R, 2>(out, out_stride, first_row, rows, cols, x, lane);
  if (lane < x.tokens) rows_times_lanes<kType, R, 1>(out, out_stride, first_row, rows, cols, x, lane);
}

template <DType kType>
void matmul_rows(float* out, std::size_t out_stride, const std::byte* w, std::size_t row_bytes,
                 std::size_t cols, const ActivationColumns& x, std::size_t row_begin, std::size_t row_end,
                 const IntMatmulScratch& s) {
  for_row_tiles(
      row_begin, row_end,
      [&](std::size_t r, std::size_t i) { decode_row<kType>(w + r * row_bytes, cols, s, i); },
      [&](auto rows, std::size_t r) {
        rows_times_columns<kType, decltype(rows)::value>(out, out_stride, r, s, cols, x);
      });
}

}  // namespace

template <DType kType>
void int_matmul_avx2(float* out, std::size_t out_stride, const std::byte* w, std::size_t row_bytes,
                     std::size_t cols, const ActivationColumns& x, std::size_t row_begin, std::size_t row_end,
                     IntMatmulScratch s) {
  matmul_rows<kType>(out, out_stride, w, row_bytes, cols, x, row_begin, row_end, s);
}

// The types with a Format above; their files (blocks/<type>.cpp) point their entry at these.
template void int_matmul_avx2<DType::Q8_0>(float*, std::size_t, const std::byte*, std::size_t, std::size_t,
                                           const ActivationColumns&, std::size_t, std::size_t,
                                           IntMatmulScratch);
template void int_matmul_avx2<DType::Q4_0>(float*, std::size_t, const std::byte*, std::size_t, std::size_t,
                                           const ActivationColumns&, std::size_t, std::size_t,
                                           IntMatmulScratch);
template void int_matmul_avx2<DType::Q4_K>(float*, std::size_t, const std::byte*, std::size_t, std::size_t,
                                           const ActivationColumns&, std::size_t, std::size_t,
                                           IntMatmulScratch);
template void int_matmul_avx2<DType::Q5_K>(float*, std::size_t, const std::byte*, std::size_t, std::size_t,
                                           const ActivationColumns&, std::size_t, std::size_t,
                                           IntMatmulScratch);
template void int_matmul_avx2<DType::IQ4_NL>(float*, std::size_t, const std::byte*, std::size_t, std::size_t,
                                             const ActivationColumns&, std::size_t, std::size_t,
                                             IntMatmulScratch);
template void int_matmul_avx2<DType::IQ4_XS>(float*, std::size_t, const std::byte*, std::size_t, std::size_t,
                                             const ActivationColumns&, std::size_t, std::size_t,
                                             IntMatmulScratch);
template void int_matmul_avx2<DType::Q6_K>(float*, std::size_t, const std::byte*, std::size_t, std::size_t,
                                           const ActivationColumns&, std::size_t, std::size_t,
                                           IntMatmulScratch);

}  // namespace glassbox::kernels
#endif
