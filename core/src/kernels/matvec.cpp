// Matrix-vector products: each output is the canonical dot of one row with x. matvec reads row-major
// weights; dot_strided reads rows a stride apart (one head's keys in the KV cache).
// Rows go kRowsPerPass at a time so they share the loads of x; the block size is picked so the accumulators
// fit the register file (8 vector registers' worth), whatever the SIMD width.
#include "dot_rows.hpp"

namespace glassbox::kernels {
namespace {
constexpr std::size_t kRowsPerPass = kAccumulatorsPerRow >= 8 ? 1 : 8 / kAccumulatorsPerRow;
}

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
