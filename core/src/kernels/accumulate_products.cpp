// The kernel of accumulate_products.hpp. A tile of kRows rows of c by kGroups registers of columns stays in
// registers while k runs over the whole depth: each step loads kGroups vectors of b's row k once and meets
// them with kRows broadcast values of a, kRows * kGroups products from kRows + kGroups loads. Lanes run over
// columns, so every output's sum is the scalar order over k. Columns past the last full tile go through the
// same code one register (then one partial register) at a time; rows past the last full tile one at a time.
#include "kernels/accumulate_products.hpp"

#include "dot_rows.hpp"

namespace glassbox::kernels {
namespace {

// 4 x 2 accumulators, 2 loads and a broadcast fit every register file (16 xmm under WebAssembly SIMD128); 8 x 2
// on AVX-512 measured no faster on the 6x384 training shape (238 against 240 tokens/s).
constexpr std::size_t kRows = 4;
constexpr std::size_t kGroups = 2;

// Rows [0, R) of c, columns [j, j + G * kWidth) (the last register holding `last` columns, kWidth unless
// it is a partial one).
template <std::size_t R, std::size_t G>
GLASSBOX_INLINE void tile(float* c, std::size_t ldc, const float* a, std::size_t a_row, std::size_t a_step,
                          const float* b, std::size_t ldb, std::size_t j, std::size_t depth,
                          std::size_t last) {
  Batch acc[R][G];
  unrolled<R>([&](auto r) __attribute__((always_inline)) {
    unrolled<G>([&](auto g) __attribute__((always_inline)) { acc[r][g] = Batch(0.0f); });
  });
  for (std::size_t k = 0; k < depth; ++k) {
    const float* b_row = b + k * ldb + j;
    Batch bv[G];
    unrolled<G>([&](auto g) __attribute__((always_inline)) {
      bv[g] = g + 1 < G || last == kWidth ? Batch::load_unaligned(b_row + g * kWidth)
                                          : load_partial(b_row + g * kWidth, last);
    });
    unrolled<R>([&](auto r) __attribute__((always_inline)) {
      const Batch av(a[r * a_row + k * a_step]);
      unrolled<G>([&](auto g) __attribute__((always_inline)) { acc[r][g] = acc[r][g] + av * bv[g]; });
    });
  }
  unrolled<R>([&](auto r) __attribute__((always_inline)) {
    unrolled<G>([&](auto g) __attribute__((always_inline)) {
      float* out = c + r * ldc + j + g * kWidth;
      if (g + 1 < G || last == kWidth)
        (Batch::load_unaligned(out) + acc[r][g]).store_unaligned(out);
      else
        store_partial(out, load_partial(out, last) + acc[r][g], last);
    });
  });
}

// Rows [0, R) of c, every column.
template <std::size_t R>
void row_tile(float* c, std::size_t ldc, const float* a, std::size_t a_row, std::size_t a_step,
              const float* b, std::size_t ldb, std::size_t cols, std::size_t depth) {
  std::size_t j = 0;
  for (; j + kGroups * kWidth <= cols; j += kGroups * kWidth)
    tile<R, kGroups>(c, ldc, a, a_row, a_step, b, ldb, j, depth, kWidth);
  for (; j + kWidth <= cols; j += kWidth)
    tile<R, 1>(c, ldc, a, a_row, a_step, b, ldb, j, depth, kWidth);
  if (j < cols) tile<R, 1>(c, ldc, a, a_row, a_step, b, ldb, j, depth, cols - j);
}

}  // namespace

void accumulate_products(float* c, std::size_t ldc, const float* a, std::size_t a_row, std::size_t a_step,
                         const float* b, std::size_t ldb, std::size_t rows, std::size_t cols,
                         std::size_t depth) {
  std::size_t m = 0;
  for (; m + kRows <= rows; m += kRows)
    row_tile<kRows>(c + m * ldc, ldc, a + m * a_row, a_row, a_step, b, ldb, cols, depth);
  for (; m < rows; ++m)
    row_tile<1>(c + m * ldc, ldc, a + m * a_row, a_row, a_step, b, ldb, cols, depth);
}

}  // namespace glassbox::kernels
