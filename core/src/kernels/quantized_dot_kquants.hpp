// Fused decode-and-dot kernels (quantized_dot.hpp) for the K-quants Q2_K, Q3_K and Q5_K. As for Q4_K and
// Q6_K (quantized_dot_rows.hpp): block scales are computed once per super-block with the decoder's scalar
// expression (quantized.cpp), each weight is the decoder's expression lane by lane, and every 32
// consecutive values are one pass over the accumulators, in increasing order.
#pragma once

#include "quantized_dot_rows.hpp"

namespace glassbox::kernels::fused {

// Q2_K and Q3_K have a scale per 16 values; a batch never straddles two of them.
static_assert(16 % kWidth == 0);

// Q2_K: super-blocks of 256 values in 84 bytes: 16 bytes of (scale, min) nibbles, 64 bytes of 2-bit q,
// f16 d, f16 dmin. Pass j (0..3) of half h reads bits 2j..2j+1 of the half's 32 bytes for values
// 128 h + 32 j + l; x = (d * scale) * q - dmin * min with scale and min number 8 h + 2 j + l / 16.
struct Q2_K {
  static constexpr std::size_t kValues = 256, kBytes = 84;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    float scale[R][16], offset[R][16];
    for (std::size_t r = 0; r < R; ++r) {
      const float d = lanes::half_to_float_exact(lanes::load_u16(blocks[r] + 80));
      const float dmin = lanes::half_to_float_exact(lanes::load_u16(blocks[r] + 82));
      const auto* sm = reinterpret_cast<const uint8_t*>(blocks[r]);
      for (int g = 0; g < 16; ++g) {
        scale[r][g] = d * static_cast<float>(sm[g] & 0x0F);
        offset[r][g] = dmin * static_cast<float>(sm[g] >> 4);
      }
    }
    for (int h = 0; h < 2; ++h) {
      for (int j = 0; j < 4; ++j) {
        Batch xv[kAcc];
        load_x(xv, x + 128 * h + 32 * j);
        unrolled<R>([&](auto r) __attribute__((always_inline)) {
          IntBatch q[kAcc];
          lanes::widen_32_bytes<false>(blocks[r] + 16 + 32 * h, q);
          const float* s = scale[r] + 8 * h + 2 * j;
          const float* o = offset[r] + 8 * h + 2 * j;
          unrolled<kAcc>([&](auto k) __attribute__((always_inline)) {
            constexpr std::size_t g = k * kWidth / 16;
            const Batch w = Batch(s[g]) * to_float((q[k] >> (2 * j)) & IntBatch(3)) - Batch(o[g]);
            acc[r][k] = acc[r][k] + w * xv[k];
          });
        });
      }
    }
  }
};

// Q3_K: super-blocks of 256 values in 110 bytes: 32 bytes of third bits, 64 bytes of 2-bit q, 12 bytes of
// 6-bit scales (q3_k_scale), f16 d. Value 128 h + 32 j + l: two low bits as Q2_K's, third bit from bit
// 4 h + j of mask byte l (clear: minus 4); x = (d * scale) * q with scale number 8 h + 2 j + l / 16.
struct Q3_K {
  static constexpr std::size_t kValues = 256, kBytes = 110;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    float scale[R][16];
    for (std::size_t r = 0; r < R; ++r) {
      const float d = lanes::half_to_float_exact(lanes::load_u16(blocks[r] + 108));
      const auto* packed = reinterpret_cast<const uint8_t*>(blocks[r] + 96);
      for (int g = 0; g < 16; ++g)
        scale[r][g] = d * static_cast<float>(q3_k_scale(g, packed));
    }
    for (int h = 0; h < 2; ++h) {
      for (int j = 0; j < 4; ++j) {
        Batch xv[kAcc];
        load_x(xv, x + 128 * h + 32 * j);
        unrolled<R>([&](auto r) __attribute__((always_inline)) {
          IntBatch q[kAcc], mask[kAcc];
          lanes::widen_32_bytes<false>(blocks[r] + 32 + 32 * h, q);
          lanes::widen_32_bytes<false>(blocks[r], mask);
          const float* s = scale[r] + 8 * h + 2 * j;
          unrolled<kAcc>([&](auto k) __attribute__((always_inline)) {
            constexpr std::size_t g = k * kWidth / 16;
            const IntBatch third = (mask[k] >> (4 * h + j)) & IntBatch(1);
            const IntBatch v = ((q[k] >> (2 * j)) & IntBatch(3)) - IntBatch(4) + (third << 2);
            acc[r][k] = acc[r][k] + (Batch(s[g]) * to_float(v)) * xv[k];
          });
        });
      }
    }
  }
};

// Q5_K: super-blocks of 256 values in 176 bytes: Q4_K's d, dmin and 12 bytes of packed (scale, min), then
// 32 bytes of fifth bits, then 128 bytes of nibbles. Each 32 bytes of nibbles (chunk c) hold sub-blocks 2c
// (low nibbles) and 2c + 1 (high); value l of them gains 16 from bit 2c / 2c + 1 of fifth-bit byte l:
// x = (d * scale) * q - dmin * min.
struct Q5_K {
  static constexpr std::size_t kValues = 256, kBytes = 176;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    float scale[R][8], offset[R][8];
    q4_k_sub_block_scales(blocks, scale, offset);
    for (int c = 0; c < 4; ++c) {
      Batch xl[kAcc], xh[kAcc];
      load_x(xl, x + c * 64);
      load_x(xh, x + c * 64 + 32);
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        IntBatch q[kAcc], fifth[kAcc];
        lanes::widen_32_bytes<false>(blocks[r] + 48 + c * 32, q);
        lanes::widen_32_bytes<false>(blocks[r] + 16, fifth);
        const Batch dl(scale[r][2 * c]), ml(offset[r][2 * c]);
        const Batch dh(scale[r][2 * c + 1]), mh(offset[r][2 * c + 1]);
        unrolled<kAcc>([&](auto k) __attribute__((always_inline)) {
          const IntBatch low = (q[k] & IntBatch(0x0F)) | (((fifth[k] >> (2 * c)) & IntBatch(1)) << 4);
          const IntBatch high = (q[k] >> 4) | (((fifth[k] >> (2 * c + 1)) & IntBatch(1)) << 4);
          acc[r][k] = acc[r][k] + (dl * to_float(low) - ml) * xl[k];
          acc[r][k] = acc[r][k] + (dh * to_float(high) - mh) * xh[k];
        });
      });
    }
  }
};

}  // namespace glassbox::kernels::fused
