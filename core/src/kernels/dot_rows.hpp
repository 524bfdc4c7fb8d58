// The canonical dot product (see kernels.hpp), for R rows of a matrix against one vector at once: the rows
// share each load of x, and every row still gets exactly the partial sums and tree of a single dot().
//
// Written so that the accumulators stay in registers: the loops over them are unrolled at compile time
// (indexed in a runtime loop, the arrays would live in memory and be zeroed by a memset call on every dot
// product, which in WebAssembly cost more than the arithmetic), and the helpers are forced inline.
#pragma once

#include <cstdint>
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
  // Four blocks per iteration (each still added after the one before), so that AVX2's one-row stream
  // (matvec.cpp) has four loads per pass of the loop's bookkeeping. (Measured only where it made no
  // difference: 256-bit batches on the AVX-512 machine, 30 tokens/s on 110M either way.)
  for (; i + 4 * kReductionLanes <= n; i += 4 * kReductionLanes) {
    unrolled<4>([&](auto k) __attribute__((always_inline)) {
      for (std::size_t r = 0; r < R; ++r)
        at[r] = rows[r] + i + k * kReductionLanes;
      accumulate_block<R>(acc, at, x + i + k * kReductionLanes);
    });
  }
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

#if GLASSBOX_AVX512_DQ_VL
// dot_rows<R> for an even R on AVX-512 machines, two rows to a 512-bit register: lanes 0-7 hold one row's 8
// partial sums, lanes 8-15 the next row's, and x's 8 values are loaded into both halves. Each row's partial
// sums see dot_rows' operations in its order (one product and one addition per value, block after block;
// the tail's padded products are +0), and each half is finished by the same tree, so the bits are dot()'s.
// What it saves over 256-bit batches is half the multiplications and additions: streaming a matrix from
// memory (generation, 110M, one thread) 256-bit batches reached 30 tokens/s where the earlier order (32
// partial sums, two 512-bit registers per row) had reached 34; this kernel, with rows asked for ahead
// (kPrefetchBytes, matvec.cpp), reaches 33-34.
template <std::size_t R, std::size_t kPrefetchBytes = 0>
GLASSBOX_INLINE void dot_row_pairs(const float* const* rows, const float* x, std::size_t n, float* out) {
  static_assert(R % 2 == 0 && kReductionLanes == 8);
  constexpr std::size_t P = R / 2;
  __m512 acc[P];
  unrolled<P>([&](auto p) __attribute__((always_inline)) { acc[p] = _mm512_setzero_ps(); });
  const auto pair_at = [&](std::size_t p, std::size_t i) __attribute__((always_inline)) {
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(rows[2 * p] + i)),
                              _mm256_loadu_ps(rows[2 * p + 1] + i), 1);
  };
  std::size_t i = 0;
  // Whole 64-byte lines of both rows (two blocks each), regrouped into the pairs of blocks [a, b] by a
  // shuffle: fewer instructions per line than two 256-bit loads and an insert.
  for (; i + 2 * 8 <= n; i += 2 * 8) {
    if constexpr (kPrefetchBytes > 0)
      for (std::size_t r = 0; r < R; ++r)  // (an address past the row's end is fine to ask for, not to form)
        __builtin_prefetch(
            reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(rows[r] + i) + kPrefetchBytes));
    const __m512 x0 = _mm512_broadcast_f32x8(_mm256_loadu_ps(x + i));
    const __m512 x1 = _mm512_broadcast_f32x8(_mm256_loadu_ps(x + i + 8));
    unrolled<P>([&](auto p) __attribute__((always_inline)) {
      const __m512 a = _mm512_loadu_ps(rows[2 * p] + i), b = _mm512_loadu_ps(rows[2 * p + 1] + i);
      acc[p] = _mm512_add_ps(acc[p], _mm512_mul_ps(_mm512_shuffle_f32x4(a, b, 0x44), x0));
      acc[p] = _mm512_add_ps(acc[p], _mm512_mul_ps(_mm512_shuffle_f32x4(a, b, 0xEE), x1));
    });
  }
  for (; i + 8 <= n; i += 8) {
    const __m512 xv = _mm512_broadcast_f32x8(_mm256_loadu_ps(x + i));
    unrolled<P>([&](auto p) __attribute__((always_inline)) {
      acc[p] = _mm512_add_ps(acc[p], _mm512_mul_ps(pair_at(p, i), xv));
    });
  }
  if (i < n) {
    const __m512 xv = _mm512_broadcast_f32x8(load_partial(x + i, n - i));
    unrolled<P>([&](auto p) __attribute__((always_inline)) {
      const __m512 w = _mm512_insertf32x8(_mm512_castps256_ps512(load_partial(rows[2 * p] + i, n - i)),
                                          load_partial(rows[2 * p + 1] + i, n - i), 1);
      acc[p] = _mm512_add_ps(acc[p], _mm512_mul_ps(w, xv));
    });
  }
  unrolled<P>([&](auto p) __attribute__((always_inline)) {
    const Batch first[1] = {Batch(_mm512_castps512_ps256(acc[p]))};
    const Batch second[1] = {Batch(_mm512_extractf32x8_ps(acc[p], 1))};
    out[2 * p] = finish_partials(first);
    out[2 * p + 1] = finish_partials(second);
  });
}
#endif

}  // namespace glassbox::kernels
