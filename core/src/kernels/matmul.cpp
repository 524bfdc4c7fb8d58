// The batched matrix product. What makes it faster than one matvec per token is reuse: each load feeds
// several products. The kernel works on tiles of kTileRows weight rows by kTileTokens tokens: per step it
// loads the tile's rows and tokens once (R + T loads) and makes R * T products from them, where dot_rows
// makes one product per load. Each (row, token) pair keeps its own kReductionLanes partial sums, summed in
// the canonical order, so every output is dot()'s to the bit.
//
// The tile takes as many accumulators as the register file holds beside the loads (AVX-512: 6 rows x 2
// tokens x 2 registers of 16 lanes = 24 of 32, with 6 + 1 for the loads; AVX2: 1 row x 3 tokens x 4
// registers of 8 lanes = 12 of 16; SSE and WebAssembly SIMD128: 1 x 1 x 8 registers of 4 lanes). On Zen 4,
// 6 x 2 ran the 110M prompt 5% faster than 4 x 3 and 12% faster than 3 x 4; tiles that split the two
// registers of a pair into separate passes over n (so 6 x 4 fit) were slower still, from L1 misses.
//
// Around the tiles, the tokens are taken kBlockTokens at a time: the block's vectors stay in L2 while every
// tile of rows passes over them, and a tile's rows, once loaded, stay in L1 or L2 while they meet the block.
#include "kernels/matmul.hpp"

#include <algorithm>

#include "dot_rows.hpp"

namespace glassbox::kernels {
namespace {

constexpr bool kWide = kWidth >= 16;
constexpr std::size_t kTileRows = kWide ? 6 : 1;
constexpr std::size_t kAccumulatorRegisters = kWide ? 24 : 12;
constexpr std::size_t kTileTokens =
    std::max<std::size_t>(1, kAccumulatorRegisters / (kTileRows * kAccumulatorsPerRow));
// Rows left over after the whole tiles (and a single decoded row, as linear_batch passes for 16-bit and
// quantized types without integer kernels) go one at a time against this many tokens: all the
// accumulators for one row (AVX-512: 12 tokens).
constexpr std::size_t kRowTokens = std::max<std::size_t>(1, kAccumulatorRegisters / kAccumulatorsPerRow);
// 64 tokens of 2,048 floats are 512 KiB: within the L2 of current x86 cores, beside the rows in flight.
constexpr std::size_t kBlockTokens = 64;

// out[t * out_stride + r] = dot(w + r * n, x + t * n, n) for r < R, t < T: dot_rows generalized to R rows
// against T vectors, with the same loads, products and tail for every pair.
template <std::size_t R, std::size_t T>
GLASSBOX_INLINE void dot_tile(const float* w, const float* x, std::size_t n, float* out,
                              std::size_t out_stride) {
  Batch acc[R][T][kAccumulatorsPerRow];
  unrolled<R>([&](auto r) __attribute__((always_inline)) {
    unrolled<T>([&](auto t) __attribute__((always_inline)) {
      unrolled<kAccumulatorsPerRow>([&](auto k)
                                        __attribute__((always_inline)) { acc[r][t][k] = Batch(0.0f); });
    });
  });

  std::size_t i = 0;
  for (; i + kReductionLanes <= n; i += kReductionLanes) {
    unrolled<kAccumulatorsPerRow>([&](auto k) __attribute__((always_inline)) {
      Batch wv[R];
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        wv[r] = Batch::load_unaligned(w + r * n + i + k * kWidth);
      });
      unrolled<T>([&](auto t) __attribute__((always_inline)) {
        const Batch xv = Batch::load_unaligned(x + t * n + i + k * kWidth);
        unrolled<R>([&](auto r) __attribute__((always_inline)) { acc[r][t][k] = acc[r][t][k] + wv[r] * xv; });
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
      auto load = [&](const float* p) __attribute__((always_inline)) {
        return whole ? Batch::load_unaligned(p + from) : load_partial(p + from, n - from);
      };
      unrolled<T>([&](auto t) __attribute__((always_inline)) {
        const Batch xv = load(x + t * n);
        unrolled<R>([&](auto r) __attribute__((always_inline)) {
          acc[r][t][k] = acc[r][t][k] + load(w + r * n) * xv;
        });
      });
    });
  }
  unrolled<R>([&](auto r) __attribute__((always_inline)) {
    unrolled<T>([&](auto t)
                    __attribute__((always_inline)) { out[t * out_stride + r] = finish_partials(acc[r][t]); });
  });
}

// The edges of the matrix, fewer rows or tokens than a whole tile: one call with a tile of exactly that
// shape (rows in [1, R], tokens in [1, T]).
template <std::size_t R, std::size_t T>
void dot_edge_tile(std::size_t rows, std::size_t tokens, const float* w, const float* x, std::size_t n,
                   float* out, std::size_t out_stride) {
  if constexpr (R > 0 && T > 0) {
    if (rows < R) return dot_edge_tile<R - 1, T>(rows, tokens, w, x, n, out, out_stride);
    if (tokens < T) return dot_edge_tile<R, T - 1>(rows, tokens, w, x, n, out, out_stride);
    dot_tile<R, T>(w, x, n, out, out_stride);
  }
}

// Tiles of R rows by T tokens over rows [0, n_rows) and tokens [t_begin, t_end), the last ones cut to fit.
template <std::size_t R, std::size_t T>
void tiles(float* out, std::size_t out_stride, const float* w, std::size_t n_rows, const float* x,
           std::size_t t_begin, std::size_t t_end, std::size_t n) {
  for (std::size_t r = 0; r < n_rows; r += R) {
    const std::size_t rows = std::min(R, n_rows - r);
    for (std::size_t t = t_begin; t < t_end; t += T) {
      const std::size_t tokens = std::min(T, t_end - t);
      const float* w_tile = w + r * n;
      const float* x_tile = x + t * n;
      float* out_tile = out + t * out_stride + r;
      if (rows == R && tokens == T) {
        dot_tile<R, T>(w_tile, x_tile, n, out_tile, out_stride);
      } else {
        dot_edge_tile<R, T>(rows, tokens, w_tile, x_tile, n, out_tile, out_stride);
      }
    }
  }
}

}  // namespace

void matmul(float* out, std::size_t out_stride, const float* w, std::size_t n_rows, const float* x,
            std::size_t n_tokens, std::size_t n) {
  const std::size_t whole_rows = n_rows / kTileRows * kTileRows;
  for (std::size_t block = 0; block < n_tokens; block += kBlockTokens) {
    const std::size_t block_end = std::min(n_tokens, block + kBlockTokens);
    tiles<kTileRows, kTileTokens>(out, out_stride, w, whole_rows, x, block, block_end, n);
    tiles<1, kRowTokens>(out + whole_rows, out_stride, w + whole_rows * n, n_rows - whole_rows, x, block,
                         block_end, n);
  }
}

}  // namespace glassbox::kernels
