// The batched matrix product. What makes it faster than one matvec per token is reuse: a weight row is read
// from memory once and then dotted with every token's vector while it sits in L1, kTileTokens tokens at a
// time so that each load of the row feeds several products. Each (row, token) pair keeps its own
// kReductionLanes partial sums, summed in the canonical order, so the result is dot()'s to the bit.
//
// The tile is one row by kTileTokens tokens: kTileTokens * kAccumulatorsPerRow accumulators, as many as fit
// the register file beside the row's and the tokens' loads (AVX2: 3 tokens x 4 registers of 8 lanes; SSE and
// WebAssembly SIMD128: 1 token x 8 registers of 4 lanes; AVX-512: 12 tokens x 2 registers of 16 lanes).
#include "kernels/matmul.hpp"

#include "dot_rows.hpp"

namespace glassbox::kernels {
namespace {

// Vector registers the accumulators may take: 12 of the 16 of AVX2, SSE and SIMD128, 24 of AVX-512's 32.
constexpr std::size_t kAccumulatorRegisters = kWidth >= 16 ? 24 : 12;
constexpr std::size_t kTileTokens =
    kAccumulatorRegisters / kAccumulatorsPerRow > 0 ? kAccumulatorRegisters / kAccumulatorsPerRow : 1;

// out[t * out_stride] = dot(row, x + t * n, n) for t < T: dot_rows with the roles of the rows and the vector
// swapped (one row, T vectors), and the same loads, products and tail.
template <std::size_t T>
GLASSBOX_INLINE void dot_tokens(const float* row, const float* x, std::size_t n, float* out,
                                std::size_t out_stride) {
  Batch acc[T][kAccumulatorsPerRow];
  unrolled<T>([&](auto t) __attribute__((always_inline)) {
    unrolled<kAccumulatorsPerRow>([&](auto k) __attribute__((always_inline)) { acc[t][k] = Batch(0.0f); });
  });

  std::size_t i = 0;
  for (; i + kReductionLanes <= n; i += kReductionLanes) {
    unrolled<kAccumulatorsPerRow>([&](auto k) __attribute__((always_inline)) {
      const Batch wv = Batch::load_unaligned(row + i + k * kWidth);
      unrolled<T>([&](auto t) __attribute__((always_inline)) {
        acc[t][k] = acc[t][k] + wv * Batch::load_unaligned(x + t * n + i + k * kWidth);
      });
    });
  }
  // The tail exactly as dot_rows takes it: whole batches load directly, the last partial one is padded with
  // zeros, batches past n are skipped.
  if (i < n) {
    unrolled<kAccumulatorsPerRow>([&](auto k) __attribute__((always_inline)) {
      const std::size_t from = i + k * kWidth;
      if (from >= n) return;
      const bool whole = from + kWidth <= n;
      const Batch wv = whole ? Batch::load_unaligned(row + from) : load_partial(row + from, n - from);
      unrolled<T>([&](auto t) __attribute__((always_inline)) {
        const float* xt = x + t * n + from;
        acc[t][k] = acc[t][k] + wv * (whole ? Batch::load_unaligned(xt) : load_partial(xt, n - from));
      });
    });
  }
  unrolled<T>([&](auto t) __attribute__((always_inline)) { out[t * out_stride] = finish_partials(acc[t]); });
}

// The last tokens of a row, fewer than a whole tile: one call with a tile of exactly that many.
template <std::size_t T>
void dot_remaining_tokens(std::size_t count, const float* row, const float* x, std::size_t n, float* out,
                          std::size_t out_stride) {
  if constexpr (T > 0) {
    if (count == T) return dot_tokens<T>(row, x, n, out, out_stride);
    dot_remaining_tokens<T - 1>(count, row, x, n, out, out_stride);
  }
}

}  // namespace

void matmul(float* out, std::size_t out_stride, const float* w, std::size_t n_rows, const float* x,
            std::size_t n_tokens, std::size_t n) {
  for (std::size_t r = 0; r < n_rows; ++r) {
    const float* row = w + r * n;
    std::size_t t = 0;
    for (; t + kTileTokens <= n_tokens; t += kTileTokens)
      dot_tokens<kTileTokens>(row, x + t * n, n, out + t * out_stride + r, out_stride);
    dot_remaining_tokens<kTileTokens - 1>(n_tokens - t, row, x + t * n, n, out + t * out_stride + r,
                                          out_stride);
  }
}

}  // namespace glassbox::kernels
