// Fused decode-and-dot kernels (quantized_dot.hpp) for the 32-value blocks with a min or a fifth bit:
// Q4_1, Q5_0 and Q5_1. Each weight is its decoder's float expression (blocks/<type>.cpp) evaluated lane by
// lane, and a block's products are added in increasing order of value, as for Q4_0 (quantized_dot_rows.hpp
// says why that keeps the results bit-identical to decode-then-dot).
#pragma once

#include "quantized_dot_rows.hpp"

namespace glassbox::kernels::fused {

// Lane l of batch k holds 1 << (k * kWidth + l): the bit of the fifth-bit word that belongs to the value
// in that lane.
alignas(64) inline constexpr int32_t kValueBits[32] = {
    1 << 0,  1 << 1,  1 << 2,  1 << 3,  1 << 4,  1 << 5,  1 << 6,  1 << 7,
    1 << 8,  1 << 9,  1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15,
    1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20, 1 << 21, 1 << 22, 1 << 23,
    1 << 24, 1 << 25, 1 << 26, 1 << 27, 1 << 28, 1 << 29, 1 << 30, int32_t(1u << 31)};

// 16 in the lanes of batch k whose value has its bit set in `fifth`, else 0. (A compare and a select rather
// than a per-lane shift: SSE4.1 and WebAssembly SIMD have no variable shift.)
template <std::size_t k>
GLASSBOX_INLINE IntBatch fifth_bit_16(IntBatch fifth) {
  const IntBatch bit = IntBatch::load_aligned(kValueBits + k * kWidth);
  return xsimd::select((fifth & bit) != IntBatch(0), IntBatch(16), IntBatch(0));
}

// A block of 32 values: f16 d, then (kMin) f16 m, then (kFifth) a little-endian uint32 of fifth bits, then
// 16 bytes of nibbles, byte j holding value j (low) and j + 16 (high).
//   Q4_1  kMin:            x = d * q + m          (q = nibble, 0..15)
//   Q5_0  kFifth:          x = d * (q - 16)       (q = nibble | fifth bit << 4, 0..31)
//   Q5_1  kMin and kFifth: x = d * q + m
template <bool kMin, bool kFifth>
struct NibbleBlock {
  static constexpr std::size_t kHeader = 2 + (kMin ? 2 : 0) + (kFifth ? 4 : 0);
  static constexpr std::size_t kValues = 32, kBytes = kHeader + 16;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    Batch xv[kB32];
    load_x(xv, x);
    unrolled<R>([&](auto r) __attribute__((always_inline)) {
      const Batch d(lanes::half_to_float_exact(lanes::load_u16(blocks[r])));
      const Batch m(kMin ? lanes::half_to_float_exact(lanes::load_u16(blocks[r] + 2)) : 0.0f);
      uint32_t fifth_bits = 0;
      if constexpr (kFifth) std::memcpy(&fifth_bits, blocks[r] + kHeader - 4, 4);
      const IntBatch fifth(static_cast<int32_t>(fifth_bits));
      IntBatch packed[kB16];
      lanes::widen_16_bytes<false>(blocks[r] + kHeader, packed);
      Batch products[kB32];
      unrolled<kB16>([&](auto i) __attribute__((always_inline)) {
        IntBatch low = packed[i] & IntBatch(0x0F), high = packed[i] >> 4;
        if constexpr (kFifth) {
          low = low | fifth_bit_16<i>(fifth);
          high = high | fifth_bit_16<i + kB16>(fifth);
        }
        if constexpr (kMin) {
          products[i] = (d * to_float(low) + m) * xv[i];
          products[i + kB16] = (d * to_float(high) + m) * xv[i + kB16];
        } else {
          products[i] = (d * to_float(low - IntBatch(16))) * xv[i];
          products[i + kB16] = (d * to_float(high - IntBatch(16))) * xv[i + kB16];
        }
      });
      add_in_order(acc[r], products);
    });
  }
};

}  // namespace glassbox::kernels::fused
