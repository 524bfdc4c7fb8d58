// The canonical dot product (see kernels.hpp), for R rows of a matrix against one vector at once: the rows
// share each load of x, and every row still gets exactly the partial sums and tree of a single dot().
#pragma once

#include "simd.hpp"

namespace glassbox::kernels {

inline constexpr std::size_t kAccumulatorsPerRow = kReductionLanes / kWidth;

inline float finish_partials(const Batch* acc) {
  alignas(64) float lanes[kReductionLanes];
  for (std::size_t k = 0; k < kAccumulatorsPerRow; ++k)
    acc[k].store_aligned(lanes + k * kWidth);
  return reduce_partials(lanes);
}

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
  // The tail: lanes past n multiply 0 * 0 and leave their partial sums unchanged.
  for (std::size_t k = 0; k < kAccumulatorsPerRow && i + k * kWidth < n; ++k) {
    const std::size_t at = i + k * kWidth;
    const Batch xv = load_partial(x + at, n - at);
    for (std::size_t r = 0; r < R; ++r)
      acc[r][k] = acc[r][k] + load_partial(rows[r] + at, n - at) * xv;
  }
  for (std::size_t r = 0; r < R; ++r)
    out[r] = finish_partials(acc[r]);
}

}  // namespace glassbox::kernels
