// Matrix-vector products: each output is the canonical dot of one row with x. matvec reads row-major
// weights; dot_strided reads rows a stride apart (one head's keys in the KV cache).
// Rows go several at a time so they share the loads of x (and the loop's overhead), as many as the
// accumulators allow: 8 rows with AVX2's 8 lanes (one register each), 4 with SSE's and WebAssembly SIMD128's
// 4 (two each), 16 on AVX-512 machines (two rows to a 512-bit register, 8 of its 32). That suits dot_strided,
// whose keys sit in cache. A matvec is different: it reads each weight once, from memory, and what suits the
// memory system differs between cores:
//   AVX-512, 8 rows: on Zen 4, 8 rows generated 10-20% faster than 4 on the 110M shape, more cache lines
//     requested at once (12 to 16 rows were no better on the 15M shape, and software prefetching of the
//     next rows made it slower; with the 8-partial order, two rows to a register, asking 512 bytes ahead in
//     each row is what brought 110M back to 33-34 tokens/s from 30, dot_row_pairs in dot_rows.hpp);
//   AVX2, one row: on Zen 3 one row at a time, a single stream through the matrix, streamed 14-17 GB/s
//     where 2 rows reached 10.6-12.8 and 4 rows 10.4-14.4 (32000 x 288, 768 x 288 and 2048 x 768 matrices
//     from memory).
#include <algorithm>

#include "dot_rows.hpp"

namespace glassbox::kernels {
namespace {

#if GLASSBOX_AVX512_DQ_VL
constexpr std::size_t kAccumulatorRegisters = 16;
constexpr bool kAvx512 = true;
#else
constexpr std::size_t kAccumulatorRegisters = 8;
constexpr bool kAvx512 = false;
#endif
constexpr std::size_t kCachedRowsPerPass =
    std::max<std::size_t>(1, kAccumulatorRegisters / kAccumulatorsPerRow);
// One row at a time in WebAssembly too (SIMD128, two accumulators per row): under Node, 15M's F32 generation
// 268 tokens per CPU-second against 214 with four rows, 110M's 31 against 30.
constexpr std::size_t kStreamedRowsPerPass = kAvx512 ? 8 : 1;

template <std::size_t kRowsPerPass, std::size_t kPrefetchBytes = 0>
void dot_rows_strided(float* out, const float* rows, std::size_t row_stride, std::size_t n_rows,
                      const float* x, std::size_t n) {
  std::size_t r = 0;
  for (; r + kRowsPerPass <= n_rows; r += kRowsPerPass) {
    const float* block[kRowsPerPass];
    for (std::size_t j = 0; j < kRowsPerPass; ++j)
      block[j] = rows + (r + j) * row_stride;
#if GLASSBOX_AVX512_DQ_VL
    dot_row_pairs<kRowsPerPass, kPrefetchBytes>(block, x, n, out + r);
#else
    dot_rows<kRowsPerPass>(block, x, n, out + r);
#endif
  }
  for (; r < n_rows; ++r) {
    const float* row = rows + r * row_stride;
    dot_rows<1>(&row, x, n, out + r);
  }
}

}  // namespace

void dot_strided(float* out, const float* rows, std::size_t row_stride, std::size_t n_rows, const float* x,
                 std::size_t n) {
  dot_rows_strided<kCachedRowsPerPass>(out, rows, row_stride, n_rows, x, n);
}

void matvec(float* out, const float* w, const float* x, std::size_t cols, std::size_t row_begin,
            std::size_t row_end) {
  dot_rows_strided<kStreamedRowsPerPass, 512>(out + row_begin, w + row_begin * cols, cols,
                                              row_end - row_begin, x, cols);
}

namespace {

// Columns [i, i + C * kWidth) of the weighted sum, C registers at once: the rows are walked once for all C
// (one broadcast of the weight feeds C products, and C chains of additions run side by side), and each lane
// still adds its terms in order of t. kPartial: the last register holds only n - i - (C - 1) * kWidth
// columns, loaded padded with zeros and stored back in part.
template <std::size_t C, bool kPartial>
GLASSBOX_INLINE void weighted_columns(float* out, const float* weights, const float* rows,
                                      std::size_t row_stride, std::size_t n_rows, std::size_t i,
                                      std::size_t n) {
  Batch acc[C];
  unrolled<C>([&](auto c) __attribute__((always_inline)) { acc[c] = Batch(0.0f); });
  const std::size_t last = n - i - (C - 1) * kWidth;
  for (std::size_t t = 0; t < n_rows; ++t) {
    const Batch weight(weights[t]);
    const float* row = rows + t * row_stride + i;
    unrolled<C>([&](auto c) __attribute__((always_inline)) {
      const bool partial = kPartial && c == C - 1;
      const Batch v =
          partial ? load_partial(row + c * kWidth, last) : Batch::load_unaligned(row + c * kWidth);
      acc[c] = acc[c] + weight * v;
    });
  }
  unrolled<C>([&](auto c) __attribute__((always_inline)) {
    if (kPartial && c == C - 1) {
      store_partial(out + i + c * kWidth, acc[c], last);
    } else {
      acc[c].store_unaligned(out + i + c * kWidth);
    }
  });
}

constexpr std::size_t kWeightedRegisters = 4;

// The last columns, fewer than kWeightedRegisters registers' worth: C registers, the last partial or not.
template <std::size_t C>
void weighted_remainder(std::size_t registers, bool partial, float* out, const float* weights,
                        const float* rows, std::size_t row_stride, std::size_t n_rows, std::size_t i,
                        std::size_t n) {
  if constexpr (C > 0) {
    if (registers < C)
      return weighted_remainder<C - 1>(registers, partial, out, weights, rows, row_stride, n_rows, i, n);
    if (partial) return weighted_columns<C, true>(out, weights, rows, row_stride, n_rows, i, n);
    weighted_columns<C, false>(out, weights, rows, row_stride, n_rows, i, n);
  }
}

}  // namespace

void weighted_row_sum(float* out, const float* weights, const float* rows, std::size_t row_stride,
                      std::size_t n_rows, std::size_t n) {
  std::size_t i = 0;
  for (; i + kWeightedRegisters * kWidth <= n; i += kWeightedRegisters * kWidth)
    weighted_columns<kWeightedRegisters, false>(out, weights, rows, row_stride, n_rows, i, n);
  if (i == n) return;
  const std::size_t left = n - i, partial = left % kWidth != 0;
  weighted_remainder<kWeightedRegisters>(left / kWidth + partial, partial, out, weights, rows, row_stride,
                                         n_rows, i, n);
}

}  // namespace glassbox::kernels
