// The canonical dot product (see kernels.hpp), for R rows of a matrix against one vector at once: the rows
// share each load of x, and every row still gets exactly the partial sums and tree of a single dot().
//
// Written so that the accumulators stay in registers: the loops over them are unrolled at compile time
// (indexed in a runtime loop, the arrays would live in memory and be zeroed by a memset call on every dot
// product, which in WebAssembly cost more than the arithmetic), and the helpers are forced inline.
#pragma once

#include <utility>

#include "simd.hpp"

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

#define GLASSBOX_INLINE __attribute__((always_inline)) inline

namespace glassbox::kernels {

inline constexpr std::size_t kAccumulatorsPerRow = kReductionLanes / kWidth;

// Calls f(0), f(1), ... f(N-1) with compile-time indices.
template <std::size_t N, class F>
GLASSBOX_INLINE void unrolled(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) __attribute__((always_inline)) {
    (f(std::integral_constant<std::size_t, I>{}), ...);
  }
  (std::make_index_sequence<N>{});
}

// Lane j takes lane j + k (wrapping): puts the upper part of a pairwise-tree step beside the lower.
template <unsigned k>
struct RotateDown {
  static constexpr unsigned get(unsigned i, unsigned n) { return (i + k) % n; }
};

// v's lanes rotated down by k (RotateDown<k>).
//
// In WebAssembly through the opaque wasm_i32x4_shuffle: the tree uses only lane 0 of the last fold (and lanes
// 0 and 1 of the one before), and clang, seeing that through the generic shuffle xsimd's swizzle makes, fills
// the unused lanes' bytes with zeros. V8 then no longer sees a 32-bit lane shuffle (one pshufd) and builds a
// byte-shuffle mask on every dot product instead, which short dot products (training's attention scores over
// 32 values) feel: the opaque shuffle, which keeps every lane, took their time in a training step in Node
// from 1.8x to 1.65x that of the same SSE4.1 code natively.
template <unsigned k>
GLASSBOX_INLINE Batch rotate_lanes_down(Batch v) {
#if defined(__wasm_simd128__)
  static_assert(kWidth == 4, "WebAssembly SIMD128 holds 4 floats");
  const auto x = (v128_t) static_cast<typename Batch::register_type>(v);
  return Batch(
      (typename Batch::register_type)wasm_i32x4_shuffle(x, x, k % 4, (k + 1) % 4, (k + 2) % 4, (k + 3) % 4));
#else
  return xsimd::swizzle(v, xsimd::make_batch_constant<UintBatch, RotateDown<k> >());
#endif
}

template <unsigned half>
GLASSBOX_INLINE Batch fold_lanes(Batch v) {
  if constexpr (half == 0) {
    return v;
  } else {
    return fold_lanes<half / 2>(v + rotate_lanes_down<half>(v));
  }
}

// The fixed pairwise tree over the partial sums: partial[j] += partial[j + half] for half = 4, 2, 1.
// While a step pairs lanes of different accumulators it is one vector add per pair; the last log2(kWidth)
// steps fold lanes within one register.
template <std::size_t Count>
GLASSBOX_INLINE Batch tree_of_accumulators(const Batch (&acc)[Count]) {
  if constexpr (Count == 1) {
    return acc[0];
  } else {
    Batch halved[Count / 2];
    unrolled<Count / 2>([&](auto k)
                            __attribute__((always_inline)) { halved[k] = acc[k] + acc[k + Count / 2]; });
    return tree_of_accumulators(halved);
  }
}

GLASSBOX_INLINE float finish_partials(const Batch (&acc)[kAccumulatorsPerRow]) {
  alignas(64) float lanes[kWidth];
  fold_lanes<kWidth / 2>(tree_of_accumulators(acc)).store_aligned(lanes);
  return lanes[0];
}

// Adds one block of kReductionLanes products per row to the accumulators.
template <std::size_t R>
GLASSBOX_INLINE void accumulate_block(Batch (&acc)[R][kAccumulatorsPerRow], const float* const* rows,
                                      const float* x) {
  unrolled<kAccumulatorsPerRow>([&](auto k) __attribute__((always_inline)) {
    const Batch xv = Batch::load_unaligned(x + k * kWidth);
    unrolled<R>([&](auto r) __attribute__((always_inline)) {
      acc[r][k] = acc[r][k] + Batch::load_unaligned(rows[r] + k * kWidth) * xv;
    });
  });
}

// out[r] = canonical dot of rows[r][0, n) with x[0, n), for r < R.
template <std::size_t R>
GLASSBOX_INLINE void dot_rows(const float* const* rows, const float* x, std::size_t n, float* out) {
  Batch acc[R][kAccumulatorsPerRow];
  unrolled<R>([&](auto r) __attribute__((always_inline)) {
    unrolled<kAccumulatorsPerRow>([&](auto k) __attribute__((always_inline)) { acc[r][k] = Batch(0.0f); });
  });

  std::size_t i = 0;
  const float* at[R];
  for (; i + kReductionLanes <= n; i += kReductionLanes) {
    for (std::size_t r = 0; r < R; ++r)
      at[r] = rows[r] + i;
    accumulate_block<R>(acc, at, x + i);
  }
  // The tail: whole batches load directly; the last partial one is padded with zeros, whose products
  // (0 * 0) leave their partial sums unchanged.
  if (i < n) {
    unrolled<kAccumulatorsPerRow>([&](auto k) __attribute__((always_inline)) {
      const std::size_t from = i + k * kWidth;
      if (from >= n) return;
      const bool whole = from + kWidth <= n;
      const Batch xv = whole ? Batch::load_unaligned(x + from) : load_partial(x + from, n - from);
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        const Batch rv =
            whole ? Batch::load_unaligned(rows[r] + from) : load_partial(rows[r] + from, n - from);
        acc[r][k] = acc[r][k] + rv * xv;
      });
    });
  }
  unrolled<R>([&](auto r) __attribute__((always_inline)) { out[r] = finish_partials(acc[r]); });
}

}  // namespace glassbox::kernels
