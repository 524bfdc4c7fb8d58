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
// it is a partial one). kUnitRow: a's rows are 1 apart (a_row == 1, dW += dy^T x), so the R values of step k
// lie side by side at fixed offsets from one pointer.
//
// The inner loop walks b and a by pointers bumped once per step rather than by indices multiplied out
// (k * ldb, m * a_row + k * a_step): in WebAssembly, which has no scaled addressing, each such address is
// its own multiply and adds, and V8 keeps them, where a native compiler folds them into addressing modes.
template <std::size_t R, std::size_t G, bool kUnitRow>
GLASSBOX_INLINE void tile(float* c, std::size_t ldc, const float* a, std::size_t a_row, std::size_t a_step,
                          const float* b, std::size_t ldb, std::size_t j, std::size_t depth,
                          std::size_t last) {
  Batch acc[R][G];
  unrolled<R>([&](auto r) __attribute__((always_inline)) {
    unrolled<G>([&](auto g) __attribute__((always_inline)) { acc[r][g] = Batch(0.0f); });
  });
  const float* a_rows[R];  // row r's value of step k at a_rows[r][0] (kUnitRow: a_rows[0][r])
  unrolled<R>([&](auto r) __attribute__((always_inline)) { a_rows[r] = a + r * a_row; });
  const float* b_row = b + j;
  for (std::size_t k = 0; k < depth; ++k) {
    Batch bv[G];
    unrolled<G>([&](auto g) __attribute__((always_inline)) {
      bv[g] = g + 1 < G || last == kWidth ? Batch::load_unaligned(b_row + g * kWidth)
                                          : load_partial(b_row + g * kWidth, last);
    });
    unrolled<R>([&](auto r) __attribute__((always_inline)) {
      const Batch av(kUnitRow ? a_rows[0][r] : a_rows[r][0]);
      unrolled<G>([&](auto g) __attribute__((always_inline)) { acc[r][g] = acc[r][g] + av * bv[g]; });
    });
    b_row += ldb;
    if constexpr (kUnitRow) {
      a_rows[0] += a_step;
    } else {
      unrolled<R>([&](auto r) __attribute__((always_inline)) { a_rows[r] += a_step; });
    }
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
template <std::size_t R, bool kUnitRow>
void row_tile(float* c, std::size_t ldc, const float* a, std::size_t a_row, std::size_t a_step,
              const float* b, std::size_t ldb, std::size_t cols, std::size_t depth) {
  std::size_t j = 0;
  for (; j + kGroups * kWidth <= cols; j += kGroups * kWidth)
    tile<R, kGroups, kUnitRow>(c, ldc, a, a_row, a_step, b, ldb, j, depth, kWidth);
  for (; j + kWidth <= cols; j += kWidth)
    tile<R, 1, kUnitRow>(c, ldc, a, a_row, a_step, b, ldb, j, depth, kWidth);
  if (j < cols) tile<R, 1, kUnitRow>(c, ldc, a, a_row, a_step, b, ldb, j, depth, cols - j);
}

template <bool kUnitRow>
void all_rows(float* c, std::size_t ldc, const float* a, std::size_t a_row, std::size_t a_step,
              const float* b, std::size_t ldb, std::size_t rows, std::size_t cols, std::size_t depth) {
  std::size_t m = 0;
  for (; m + kRows <= rows; m += kRows)
    row_tile<kRows, kUnitRow>(c + m * ldc, ldc, a + m * a_row, a_row, a_step, b, ldb, cols, depth);
  for (; m < rows; ++m)
    row_tile<1, kUnitRow>(c + m * ldc, ldc, a + m * a_row, a_row, a_step, b, ldb, cols, depth);
}

}  // namespace

void accumulate_products(float* c, std::size_t ldc, const float* a, std::size_t a_row, std::size_t a_step,
                         const float* b, std::size_t ldb, std::size_t rows, std::size_t cols,
                         std::size_t depth) {
  if (a_row == 1) {
    all_rows<true>(c, ldc, a, a_row, a_step, b, ldb, rows, cols, depth);
  } else {
    all_rows<false>(c, ldc, a, a_row, a_step, b, ldb, rows, cols, depth);
  }
}

}  // namespace glassbox::kernels
