// The float side of the integer dot products: how the exact integer sums of the sub-blocks are scaled and
// added up, in the one order quantized_int_dot.hpp states (shared by the kernels of every weight type).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quantized_int_lanes.hpp"
#include "kernels/quantized_lanes.hpp"

namespace glassbox::kernels::int_terms {

GLASSBOX_INT_INLINE float f16_at(const std::byte* p) {
  const uint16_t bits = lanes::load_u16(p);
#if defined(__F16C__)
  return _cvtsh_ss(bits);  // exact, like the decoder (quantized_lanes.hpp, load_halves)
#else
  return lanes::half_to_float_exact(bits);
#endif
}

// The header's float order: the term of sub-block b goes to partial sum b % 4, finished pairwise.
struct Partials {
  float p[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  // Sub-blocks b .. b + 3, b a multiple of 4.
  GLASSBOX_INT_INLINE void add4(const float* ws, const float* dx, const int32_t* isum) {
    for (int k = 0; k < 4; ++k)
      p[k] += (ws[k] * dx[k]) * static_cast<float>(isum[k]);
  }
  // The same with offsets (Q4_K's mins): each term less (wm * dx) * xsum.
  GLASSBOX_INT_INLINE void add4(const float* ws, const float* wm, const float* dx, const int32_t* isum,
                                const int32_t* xsum) {
    for (int k = 0; k < 4; ++k) {
      const float t =
          (ws[k] * dx[k]) * static_cast<float>(isum[k]) - (wm[k] * dx[k]) * static_cast<float>(xsum[k]);
      p[k] += t;
    }
  }
  GLASSBOX_INT_INLINE void add(std::size_t b, float ws, float dx, int32_t isum) {
    p[b % 4] += (ws * dx) * static_cast<float>(isum);
  }
  GLASSBOX_INT_INLINE float total() const { return (p[0] + p[1]) + (p[2] + p[3]); }
};

}  // namespace glassbox::kernels::int_terms
