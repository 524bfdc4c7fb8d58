// Matrix-vector product over row-major float32 weights: each output is the canonical dot of one row with x.
// Rows go kRowsPerPass at a time so they share the loads of x; the block size is picked so the accumulators
// fit the register file (8 vector registers' worth), whatever the SIMD width.
#include "dot_rows.hpp"

namespace glassbox::kernels {
namespace {
constexpr std::size_t kRowsPerPass = kAccumulatorsPerRow >= 8 ? 1 : 8 / kAccumulatorsPerRow;
}

void matvec(float* out, const float* w, const float* x, std::size_t cols, std::size_t row_begin,
            std::size_t row_end) {
  std::size_t r = row_begin;
  for (; r + kRowsPerPass <= row_end; r += kRowsPerPass) {
    const float* rows[kRowsPerPass];
    for (std::size_t j = 0; j < kRowsPerPass; ++j)
      rows[j] = w + (r + j) * cols;
    dot_rows<kRowsPerPass>(rows, x, cols, out + r);
  }
  for (; r < row_end; ++r) {
    const float* row = w + r * cols;
    dot_rows<1>(&row, x, cols, out + r);
  }
}

}  // namespace glassbox::kernels
