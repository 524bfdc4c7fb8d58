// The canonical dot product (see kernels.hpp), for R rows of a matrix against one vector at once: the rows
// share each load of x, and every row still gets exactly the partial sums and tree of a single dot().
#pragma once

#include "simd.hpp"

namespace glassbox::kernels {

inline constexpr std::size_t kAccumulatorsPerRow = kReductionLanes / kWidth;

// Lane j takes lane j + k (wrapping): puts the upper part of a pairwise-tree step beside the lower.
template <unsigned k>
struct RotateDown {
  static constexpr unsigned get(unsigned i, unsigned n) { return (i + k) % n; }
};

template <unsigned half>
inline Batch fold_lanes(Batch v) {
  if constexpr (half == 0) {
    return v;
  } else {
    const Batch folded =
        v + xsimd::swizzle(v, xsimd::make_batch_constant<xsimd::batch<uint32_t>, RotateDown<half>>());
    return fold_lanes<half / 2>(folded);
  }
}

// The fixed pairwise tree over the partial sums: partial[j] += partial[j + half] for half = 16, 8, 4, 2, 1.
// While a step pairs lanes of different accumulators it is one vector add per pair; the last log2(kWidth)
// steps fold lanes within one register.
inline float finish_partials(Batch* acc) {
  for (std::size_t n = kAccumulatorsPerRow / 2; n >= 1; n /= 2) {
    for (std::size_t k = 0; k < n; ++k)
      acc[k] = acc[k] + acc[k + n];
  }
  alignas(64) float lanes[kWidth];
  fold_lanes<kWidth / 2>(acc[0]).store_aligned(lanes);
  return lanes[0];
}

// out[r] = canonical dot of rows[r][0, n) with x[0, n), for r < R.
template <std::size_t R>
inline void dot_rows(const float* const* rows, const float* x, std::size_t n, float* out) {
  Batch acc[R][kAccumulatorsPerRow];
  for (auto& row_acc : acc)
    for (auto& a : row_acc)
      a = Batch(0.0f);

  std::size_t i = 0;
  for (; i + kReductionLanes <= n; i += kReductionLanes) {
    for (std::size_t k = 0; k < kAccumulatorsPerRow; ++k) {
      const std::size_t at = i + k * kWidth;
      const Batch xv = Batch::load_unaligned(x + at);
      for (std::size_t r = 0; r < R; ++r)
        acc[r][k] = acc[r][k] + Batch::load_unaligned(rows[r] + at) * xv;
    }
  }
  // The tail block: whole batches load directly; the last partial one is padded with zeros, whose products
  // (0 * 0) leave their partial sums unchanged.
  for (std::size_t k = 0; k < kAccumulatorsPerRow && i + k * kWidth < n; ++k) {
    const std::size_t at = i + k * kWidth;
    if (at + kWidth <= n) {
      const Batch xv = Batch::load_unaligned(x + at);
      for (std::size_t r = 0; r < R; ++r)
        acc[r][k] = acc[r][k] + Batch::load_unaligned(rows[r] + at) * xv;
    } else {
      const Batch xv = load_partial(x + at, n - at);
      for (std::size_t r = 0; r < R; ++r)
        acc[r][k] = acc[r][k] + load_partial(rows[r] + at, n - at) * xv;
    }
  }
  for (std::size_t r = 0; r < R; ++r)
    out[r] = finish_partials(acc[r]);
}

}  // namespace glassbox::kernels
