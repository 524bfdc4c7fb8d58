// int_matmul (quantized_int_matmul.hpp) with AVX-512 VNNI byte products, for every type with integer kernels
// (their weight integers are bytes, Q6_K's with a scale per 16 values applied to each 16's sum): vpdpbusd multiplies 64 byte pairs per instruction, four times the multiply-adds of
// float lanes. Lanes hold tokens as in the float kernel; each 32-bit lane sums four products of consecutive
// values, so the activation columns hold the bytes of values 4i .. 4i + 3 of each token together
// (ActivationColumns::bytes). vpdpbusd takes unsigned times signed bytes: the columns store x + 128 (1..255,
// as x is never -128), and 128 times the sub-block's weight sum comes off again, so each sub-block's sum is
// the exact isum_b, and the scaling repeats the header's float order: the same bits as int_matvec.
#include "kernels/quantized_int_matmul_vnni.hpp"

#if GLASSBOX_HAS_VNNI_MATMUL
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/quantized_int_rows.hpp"

namespace glassbox::kernels {
namespace {

constexpr std::size_t kTokens = 16;  // int32 lanes in a zmm

// Row i of the scratch: its integers (quantized_int_rows.hpp) and each 16 bytes' sum (exact: the 16 bytes
// plus 128 summed as unsigned, 128 * 16 taken off again).
void decode_row(IntegerRowDecoder decode, const std::byte* row, std::size_t cols, const IntMatmulScratch& s,
                std::size_t i) {
  int8_t* w = s.bytes + i * cols;
  decode(row, cols, w, s.groups + i * (cols / 16), s.ws + i * (cols / 32), s.wm + i * (cols / 32));
  int32_t* sums = s.sums + i * (cols / 16);
  std::size_t g = 0;
  // Eight sums at a time: sad gives each 8 bytes' sum, the pairs added in 32 bits and put in order.
  const __m512i top_bits = _mm512_set1_epi8(static_cast<char>(0x80));
  for (; g + 8 <= cols / 16; g += 8) {
    const auto eights = [&](std::size_t at) {
      return _mm512_cvtepi64_epi32(_mm512_sad_epu8(
          _mm512_xor_si512(_mm512_loadu_si512(w + 16 * at), top_bits), _mm512_setzero_si512()));
    };
    const __m256i pairs = _mm256_permute4x64_epi64(_mm256_hadd_epi32(eights(g), eights(g + 4)), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(sums + g),
                        _mm256_sub_epi32(pairs, _mm256_set1_epi32(16 * 128)));
  }
  const __m128i top_bit = _mm_set1_epi8(static_cast<char>(0x80));
  for (; g < cols / 16; ++g) {
    const __m128i halves =
        _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 16 * g)), top_bit),
                     _mm_setzero_si128());
    sums[g] = static_cast<int32_t>(_mm_cvtsi128_si64(halves) + _mm_extract_epi64(halves, 1)) - 16 * 128;
  }
}

// Decoded rows seen by the kernel.
struct Rows {
  const int8_t* w;
  const int16_t* groups;
  const float* ws;
  const float* wm;
  const int32_t* sums;
};

// kGroups: Q6_K's integer scale per 16 values (two sums per sub-block, each times its scale); kOffsets: Q4_K's
// and Q5_K's mins (the term less (wm * dx) * xsum).
template <std::size_t R, std::size_t G, bool kGroups, bool kOffsets>
void rows_times_lanes(float* out, std::size_t out_stride, std::size_t first_row, const Rows* rows,
                      std::size_t cols, const ActivationColumns& x, std::size_t lane) {
  __m512 partial[R][G][4];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t g = 0; g < G; ++g)
      for (int k = 0; k < 4; ++k)
        partial[r][g][k] = _mm512_setzero_ps();
  // The block of activation bytes holding these lanes (kVnniMatmulTokens, the last one maybe 16).
  const std::size_t block = lane / x.byte_block * x.byte_block,
                    width = std::min(x.byte_block, x.lanes - block);
  const uint8_t* xb = x.bytes + block * cols + (lane - block) * 4;
  for (std::size_t b = 0; b < cols / 32; ++b) {
    __m512i sum[R][G][2];  // the first and the second 16 values (one sum for both where !kGroups)
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t g = 0; g < G; ++g)
        sum[r][g][0] = sum[r][g][1] = _mm512_setzero_si512();
    for (std::size_t quad = 0; quad < 8; ++quad) {
      const std::size_t half = kGroups ? quad / 4 : 0;
      __m512i xv[G];
      for (std::size_t g = 0; g < G; ++g)
        xv[g] = _mm512_loadu_si512(xb + ((8 * b + quad) * width + g * kTokens) * 4);
      for (std::size_t r = 0; r < R; ++r) {
        int32_t four;
        std::memcpy(&four, rows[r].w + 32 * b + 4 * quad, 4);
        const __m512i wv = _mm512_set1_epi32(four);
        for (std::size_t g = 0; g < G; ++g)
          sum[r][g][half] = _mm512_dpbusd_epi32(sum[r][g][half], xv[g], wv);
      }
    }
    for (std::size_t g = 0; g < G; ++g) {
      const __m512 dx = _mm512_loadu_ps(x.d + b * x.lanes + lane + g * kTokens);
      for (std::size_t r = 0; r < R; ++r) {
        const int32_t* sums = rows[r].sums + 2 * b;
        __m512i isum;
        if constexpr (kGroups) {
          const int16_t* m = rows[r].groups + 2 * b;
          isum = _mm512_add_epi32(
              _mm512_mullo_epi32(_mm512_sub_epi32(sum[r][g][0], _mm512_set1_epi32(128 * sums[0])),
                                 _mm512_set1_epi32(m[0])),
              _mm512_mullo_epi32(_mm512_sub_epi32(sum[r][g][1], _mm512_set1_epi32(128 * sums[1])),
                                 _mm512_set1_epi32(m[1])));
        } else {
          isum = _mm512_sub_epi32(sum[r][g][0], _mm512_set1_epi32(128 * (sums[0] + sums[1])));
        }
        __m512 term =
            _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(rows[r].ws[b]), dx), _mm512_cvtepi32_ps(isum));
        if constexpr (kOffsets)
          term =
              _mm512_sub_ps(term, _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(rows[r].wm[b]), dx),
                                                _mm512_loadu_ps(x.xsum + b * x.lanes + lane + g * kTokens)));
        partial[r][g][b % 4] = _mm512_add_ps(partial[r][g][b % 4], term);
      }
    }
  }
  for (std::size_t g = 0; g < G; ++g) {
    if (lane + g * kTokens >= x.tokens) break;
    const std::size_t tokens = std::min(kTokens, x.tokens - lane - g * kTokens);
    alignas(64) float result[R][kTokens];
    for (std::size_t r = 0; r < R; ++r)
      _mm512_store_ps(result[r], _mm512_add_ps(_mm512_add_ps(partial[r][g][0], partial[r][g][1]),
                                               _mm512_add_ps(partial[r][g][2], partial[r][g][3])));
    // Token by token, so that each token's outputs are written side by side.
    for (std::size_t t = 0; t < tokens; ++t)
      for (std::size_t r = 0; r < R; ++r)
        out[(lane + g * kTokens + t) * out_stride + first_row + r] = result[r][t];
  }
}

template <std::size_t R, bool kGroups, bool kOffsets>
void rows_times_columns(float* out, std::size_t out_stride, std::size_t first_row, const IntMatmulScratch& s,
                        std::size_t cols, const ActivationColumns& x) {
  Rows rows[R];
  for (std::size_t r = 0; r < R; ++r)
    rows[r] = {s.bytes + r * cols, s.groups + r * (cols / 16), s.ws + r * (cols / 32), s.wm + r * (cols / 32),
               s.sums + r * (cols / 16)};
  std::size_t lane = 0;
  for (; lane + 2 * kTokens <= x.lanes; lane += 2 * kTokens)
    rows_times_lanes<R, 2, kGroups, kOffsets>(out, out_stride, first_row, rows, cols, x, lane);
  if (lane < x.tokens)
    rows_times_lanes<R, 1, kGroups, kOffsets>(out, out_stride, first_row, rows, cols, x, lane);
}

template <bool kGroups, bool kOffsets>
void matmul_rows(float* out, std::size_t out_stride, IntegerRowDecoder decode, const std::byte* w,
                 std::size_t row_bytes, std::size_t cols, const ActivationColumns& x, std::size_t row_begin,
                 std::size_t row_end, const IntMatmulScratch& s) {
  std::size_t r = row_begin;
  for (; r + kIntMatmulRows <= row_end; r += kIntMatmulRows) {
    for (std::size_t i = 0; i < kIntMatmulRows; ++i)
      decode_row(decode, w + (r + i) * row_bytes, cols, s, i);
    // The next rows asked for while these meet the tokens: on a short prompt the decoding above waits for
    // them from memory (gqa40M Q4_0 32-token prompt at 2 threads, Zen 5: decode 27% of the time; with
    // this, medians of 5 alternated runs 5236 -> 5407 tokens/s).
    if (r + 2 * kIntMatmulRows <= row_end)
      for (std::size_t at = 0; at < kIntMatmulRows * row_bytes; at += 64)
        _mm_prefetch(reinterpret_cast<const char*>(w + (r + kIntMatmulRows) * row_bytes + at), _MM_HINT_T0);
    rows_times_columns<kIntMatmulRows, kGroups, kOffsets>(out, out_stride, r, s, cols, x);
  }
  for (; r < row_end; ++r) {
    decode_row(decode, w + r * row_bytes, cols, s, 0);
    rows_times_columns<1, kGroups, kOffsets>(out, out_stride, r, s, cols, x);
  }
}

}  // namespace

void int_matmul_vnni(float* out, std::size_t out_stride, const BlockKernels& type, const std::byte* w,
                     std::size_t row_bytes, std::size_t cols, const ActivationColumns& x,
                     std::size_t row_begin, std::size_t row_end, IntMatmulScratch s) {
  const IntegerRowDecoder decode = type.decode_integer_row;
  if (type.int_group_scales) {
    matmul_rows<true, false>(out, out_stride, decode, w, row_bytes, cols, x, row_begin, row_end, s);
  } else if (type.int_offsets) {
    matmul_rows<false, true>(out, out_stride, decode, w, row_bytes, cols, x, row_begin, row_end, s);
  } else {
    matmul_rows<false, false>(out, out_stride, decode, w, row_bytes, cols, x, row_begin, row_end, s);
  }
}

}  // namespace glassbox::kernels
#endif
