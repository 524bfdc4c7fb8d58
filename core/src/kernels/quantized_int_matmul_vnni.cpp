// int_matmul (quantized_int_matmul.hpp) with AVX-512 VNNI byte products, for the types whose weight integers
// are bytes (Q8_0, Q4_0): vpdpbusd multiplies 64 byte pairs per instruction, four times the multiply-adds of
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

#include "kernels/quantized.hpp"

namespace glassbox::kernels {
namespace {

constexpr std::size_t kTokens = 16;  // int32 lanes in a zmm

float f16_at(const std::byte* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return half_to_float(v);
}

// The sum of 32 bytes read as unsigned.
int32_t unsigned_sum(__m256i bytes) {
  const __m256i sums = _mm256_sad_epu8(bytes, _mm256_setzero_si256());  // four 64-bit partial sums
  const __m128i pair = _mm_add_epi64(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
  return static_cast<int32_t>(_mm_cvtsi128_si64(pair) + _mm_extract_epi64(pair, 1));
}

// One row's weight bytes, scales and per-sub-block weight sums (each sum taken over the unsigned bytes, then
// the offset off: Q8_0's bytes + 128, Q4_0's nibbles).
void decode_row(DType type, const std::byte* row, std::size_t cols, int8_t* w, float* ws, int32_t* wsum) {
  const std::size_t block_bytes = type == DType::Q8_0 ? 34 : 18;
  for (std::size_t b = 0; b < cols / 32; ++b, row += block_bytes, w += 32) {
    ws[b] = f16_at(row);
    __m256i values;
    if (type == DType::Q8_0) {
      values = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 2));
      wsum[b] = unsigned_sum(_mm256_xor_si256(values, _mm256_set1_epi8(static_cast<char>(0x80)))) - 32 * 128;
    } else {
      const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2));
      const __m128i mask = _mm_set1_epi8(0x0F);
      const __m256i nibbles =
          _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(packed, 4), mask), _mm_and_si128(packed, mask));
      wsum[b] = unsigned_sum(nibbles) - 32 * 8;
      values = _mm256_sub_epi8(nibbles, _mm256_set1_epi8(8));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(w), values);
  }
}

template <std::size_t R, std::size_t G>
void rows_times_lanes(float* out, std::size_t out_stride, std::size_t first_row, const int8_t* const* w,
                      const float* const* ws, const int32_t* const* wsum, std::size_t cols,
                      const ActivationColumns& x, std::size_t lane) {
  __m512 partial[R][G][4];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t g = 0; g < G; ++g)
      for (int k = 0; k < 4; ++k)
        partial[r][g][k] = _mm512_setzero_ps();
  for (std::size_t b = 0; b < cols / 32; ++b) {
    __m512i sum[R][G];
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t g = 0; g < G; ++g)
        sum[r][g] = _mm512_setzero_si512();
    for (std::size_t quad = 0; quad < 8; ++quad) {
      __m512i xv[G];
      for (std::size_t g = 0; g < G; ++g)
        xv[g] = _mm512_loadu_si512(x.bytes + ((8 * b + quad) * x.lanes + lane + g * kTokens) * 4);
      for (std::size_t r = 0; r < R; ++r) {
        int32_t four;
        std::memcpy(&four, w[r] + 32 * b + 4 * quad, 4);
        const __m512i wv = _mm512_set1_epi32(four);
        for (std::size_t g = 0; g < G; ++g)
          sum[r][g] = _mm512_dpbusd_epi32(sum[r][g], xv[g], wv);
      }
    }
    for (std::size_t g = 0; g < G; ++g) {
      const __m512 dx = _mm512_loadu_ps(x.d + b * x.lanes + lane + g * kTokens);
      for (std::size_t r = 0; r < R; ++r) {
        const __m512i isum = _mm512_sub_epi32(sum[r][g], _mm512_set1_epi32(128 * wsum[r][b]));
        const __m512 term =
            _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(ws[r][b]), dx), _mm512_cvtepi32_ps(isum));
        partial[r][g][b % 4] = _mm512_add_ps(partial[r][g][b % 4], term);
      }
    }
  }
  for (std::size_t g = 0; g < G; ++g) {
    if (lane + g * kTokens >= x.tokens) break;
    const std::size_t tokens = std::min(kTokens, x.tokens - lane - g * kTokens);
    for (std::size_t r = 0; r < R; ++r) {
      alignas(64) float result[kTokens];
      _mm512_store_ps(result, _mm512_add_ps(_mm512_add_ps(partial[r][g][0], partial[r][g][1]),
                                            _mm512_add_ps(partial[r][g][2], partial[r][g][3])));
      for (std::size_t t = 0; t < tokens; ++t)
        out[(lane + g * kTokens + t) * out_stride + first_row + r] = result[t];
    }
  }
}

template <std::size_t R>
void rows_times_columns(float* out, std::size_t out_stride, std::size_t first_row, const IntMatmulScratch& s,
                        std::size_t cols, const ActivationColumns& x) {
  const int8_t* w[R];
  const float* ws[R];
  const int32_t* wsum[R];
  for (std::size_t r = 0; r < R; ++r) {
    w[r] = s.bytes + r * cols;
    ws[r] = s.ws + r * (cols / 32);
    wsum[r] = s.sums + r * (cols / 32);
  }
  std::size_t lane = 0;
  for (; lane + 2 * kTokens <= x.lanes; lane += 2 * kTokens)
    rows_times_lanes<R, 2>(out, out_stride, first_row, w, ws, wsum, cols, x, lane);
  if (lane < x.tokens) rows_times_lanes<R, 1>(out, out_stride, first_row, w, ws, wsum, cols, x, lane);
}

}  // namespace

bool vnni_matmul_handles(DType type) {
  return type == DType::Q8_0 || type == DType::Q4_0;
}

void int_matmul_vnni(float* out, std::size_t out_stride, DType type, const std::byte* w,
                     std::size_t row_bytes, std::size_t cols, const ActivationColumns& x,
                     std::size_t row_begin, std::size_t row_end, IntMatmulScratch s) {
  std::size_t r = row_begin;
  for (; r + kIntMatmulRows <= row_end; r += kIntMatmulRows) {
    for (std::size_t i = 0; i < kIntMatmulRows; ++i)
      decode_row(type, w + (r + i) * row_bytes, cols, s.bytes + i * cols, s.ws + i * (cols / 32),
                 s.sums + i * (cols / 32));
    rows_times_columns<kIntMatmulRows>(out, out_stride, r, s, cols, x);
  }
  for (; r < row_end; ++r) {
    decode_row(type, w + r * row_bytes, cols, s.bytes, s.ws, s.sums);
    rows_times_columns<1>(out, out_stride, r, s, cols, x);
  }
}

void fill_activation_bytes(const QuantizedActivations* x, std::size_t tokens, std::size_t cols,
                           std::size_t lanes, uint8_t* bytes) {
  // Four values at a time; adding 128 to a byte is flipping its top bit.
  for (std::size_t t = 0; t < lanes; ++t)
    for (std::size_t i = 0; i < cols / 4; ++i) {
      uint32_t four = 0;
      if (t < tokens) std::memcpy(&four, x[t].q + 4 * i, 4);
      four ^= 0x80808080u;
      std::memcpy(bytes + (i * lanes + t) * 4, &four, 4);
    }
}

}  // namespace glassbox::kernels
#endif
