// Matrix-vector products: each output is the canonical dot of one row with x. matvec reads row-major
// weights; dot_strided reads rows a stride apart (one head's keys in the KV cache).
// Rows go kRowsPerPass at a time so they share the loads of x; the count is picked so the accumulators fit
// the register file (8 vector registers' worth; 16 of AVX-512's 32), whatever the SIMD width. Decoding
// reads each weight once, so this is a memory-bound loop, and more rows in flight means more cache lines
// requested at once: on Zen 4, 8 rows generated 10-20% faster than 4 on the 110M shape (12 to 16 rows were
// no better on the 15M shape, and software prefetching of the next rows made it slower).
#include "dot_rows.hpp"

namespace glassbox::kernels {
namespace {
constexpr std::size_t kAccumulatorRegisters = kWidth >= 16 ? 16 : 8;
constexpr std::size_t kRowsPerPass =
    kAccumulatorsPerRow >= kAccumulatorRegisters ? 1 : kAccumulatorRegisters / kAccumulatorsPerRow;
}  // namespace

void dot_strided(float* out, const float* rows, std::size_t row_stride, std::size_t n_rows, const float* x,
                 std::size_t n) {
  std::size_t r = 0;
  for (; r + kRowsPerPass <= n_rows; r += kRowsPerPass) {
    const float* block[kRowsPerPass];
    for (std::size_t j = 0; j < kRowsPerPass; ++j)
      block[j] = rows + (r + j) * row_stride;
    dot_rows<kRowsPerPass>(block, x, n, out + r);
  }
  for (; r < n_rows; ++r) {
    const float* row = rows + r * row_stride;
    dot_rows<1>(&row, x, n, out + r);
  }
}

void matvec(float* out, const float* w, const float* x, std::size_t cols, std::size_t row_begin,
            std::size_t row_end) {
  dot_strided(out + row_begin, w + row_begin * cols, cols, row_end - row_begin, x, cols);
}

void weighted_row_sum(float* out, const float* weights, const float* rows, std::size_t row_stride,
                      std::size_t n_rows, std::size_t n) {
  std::size_t i = 0;
  for (; i + kWidth <= n; i += kWidth) {
    Batch acc(0.0f);
    for (std::size_t t = 0; t < n_rows; ++t)
      acc = acc + Batch(weights[t]) * Batch::load_unaligned(rows + t * row_stride + i);
    acc.store_unaligned(out + i);
  }
  if (i < n) {
    Batch acc(0.0f);
    for (std::size_t t = 0; t < n_rows; ++t)
      acc = acc + Batch(weights[t]) * load_partial(rows + t * row_stride + i, n - i);
    store_partial(out + i, acc, n - i);
  }
}

}  // namespace glassbox::kernels
