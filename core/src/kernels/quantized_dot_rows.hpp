// The fused decode-and-dot kernels (see quantized_dot.hpp for the contract), for R rows at once sharing the
// loads of x, like dot_rows<R> (dot_rows.hpp).
//
// Why the results match decode-then-dot bit for bit:
//   - every weight is the same float expression as in its decoder (quantized.cpp), evaluated lane by lane
//     (block scales are computed once per block with the decoder's scalar expression, then broadcast);
//     integer steps (nibble masks, 6-bit reassembly, the -8 / -32 offsets) are exact either way;
//   - weight i's product with x[i] is added to partial sum i mod kReductionLanes: a 32-value block (Q8_0,
//     Q4_0, a Q4_K sub-block, a Q6_K group of 32) is exactly one pass over the kAccumulatorsPerRow
//     accumulators, and the passes run in increasing order of i;
//   - the accumulators are finished by finish_partials, the tree dot() uses.
#pragma once

#include <cstring>

#include "dot_rows.hpp"
#include "quantized.hpp"
#include "quantized_lanes.hpp"

namespace glassbox::kernels::fused {

inline constexpr std::size_t kAcc = kAccumulatorsPerRow;
inline constexpr std::size_t kB16 = lanes::kBatchesPer16;

template <std::size_t R>
using Accumulators = Batch[R][kAcc];

template <std::size_t N>
GLASSBOX_INLINE void load_x(Batch (&xv)[N], const float* x) {
  unrolled<N>([&](auto k) __attribute__((always_inline)) { xv[k] = Batch::load_unaligned(x + k * kWidth); });
}

// Every integer the kernels convert (weights, nibbles, half magnitudes) is far below 2^22.
GLASSBOX_INLINE Batch to_float(IntBatch v) {
  return lanes::small_int_to_float(v);
}

// Q8_0: 32 values per 34-byte block, x = d * q.
struct Q8_0 {
  static constexpr std::size_t kValues = 32, kBytes = 34;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    Batch xv[kAcc];
    load_x(xv, x);
    unrolled<R>([&](auto r) __attribute__((always_inline)) {
      const Batch d(lanes::half_to_float_exact(lanes::load_u16(blocks[r])));
      IntBatch q[kAcc];
      lanes::widen_32_bytes<true>(blocks[r] + 2, q);
      unrolled<kAcc>([&](auto k) __attribute__((always_inline)) {
        acc[r][k] = acc[r][k] + (d * to_float(q[k])) * xv[k];
      });
    });
  }
};

// Q4_0: 32 values per 18-byte block; byte j holds value j (low nibble) and j + 16 (high), x = d * (q - 8).
struct Q4_0 {
  static constexpr std::size_t kValues = 32, kBytes = 18;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    Batch xv[kAcc];
    load_x(xv, x);
    unrolled<R>([&](auto r) __attribute__((always_inline)) {
      const Batch d(lanes::half_to_float_exact(lanes::load_u16(blocks[r])));
      IntBatch packed[kB16];
      lanes::widen_16_bytes<false>(blocks[r] + 2, packed);
      unrolled<kB16>([&](auto i) __attribute__((always_inline)) {
        const IntBatch low = (packed[i] & IntBatch(0x0F)) - IntBatch(8);
        const IntBatch high = (packed[i] >> 4) - IntBatch(8);
        acc[r][i] = acc[r][i] + (d * to_float(low)) * xv[i];
        acc[r][i + kB16] = acc[r][i + kB16] + (d * to_float(high)) * xv[i + kB16];
      });
    });
  }
};

// d * scale and dmin * min of the 8 sub-blocks of R super-blocks that start with Q4_K's header (f16 d, f16
// dmin, 12 bytes of packed 6-bit scales and mins), which Q5_K shares.
template <std::size_t R>
GLASSBOX_INLINE void q4_k_sub_block_scales(const std::byte* const* blocks, float (&scale)[R][8],
                                           float (&offset)[R][8]) {
  for (std::size_t r = 0; r < R; ++r) {
    const float d = lanes::half_to_float_exact(lanes::load_u16(blocks[r]));
    const float dmin = lanes::half_to_float_exact(lanes::load_u16(blocks[r] + 2));
    const auto* packed = reinterpret_cast<const uint8_t*>(blocks[r] + 4);
    for (int j = 0; j < 8; ++j) {
      uint8_t s, m;
      q4_k_scale_min(j, packed, &s, &m);
      scale[r][j] = d * s;
      offset[r][j] = dmin * m;
    }
  }
}

// Q4_K: super-blocks of 256 values in 144 bytes. Each 32 bytes of nibbles hold two sub-blocks of 32 (low
// nibbles, then high), each with its own scale and min: x = (d * scale) * q - dmin * min.
struct Q4_K {
  static constexpr std::size_t kValues = 256, kBytes = 144;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    float scale[R][8], offset[R][8];
    q4_k_sub_block_scales(blocks, scale, offset);
    for (int j = 0; j < 8; j += 2) {  // one pass per 32 bytes: sub-blocks j (low nibbles) and j + 1 (high)
      Batch xl[kAcc], xh[kAcc];
      load_x(xl, x + j * 32);
      load_x(xh, x + j * 32 + 32);
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        IntBatch q[kAcc];
        lanes::widen_32_bytes<false>(blocks[r] + 16 + j * 16, q);
        const Batch dl(scale[r][j]), ml(offset[r][j]), dh(scale[r][j + 1]), mh(offset[r][j + 1]);
        unrolled<kAcc>([&](auto k) __attribute__((always_inline)) {
          acc[r][k] = acc[r][k] + (dl * to_float(q[k] & IntBatch(0x0F)) - ml) * xl[k];
          acc[r][k] = acc[r][k] + (dh * to_float(q[k] >> 4) - mh) * xh[k];
        });
      });
    }
  }
};

// Q6_K: super-blocks of 256 values in 210 bytes, two halves of 128. In a half, lane l < 32 of the four
// groups of 32 takes its low four bits from ql[l] / ql[l + 32] (low, low, high, high nibble) and its top
// two from qh[l] (bits 0-1, 2-3, 4-5, 6-7); 16 lanes share an int8 scale: x = (d * scale) * (q - 32).
struct Q6_K {
  static constexpr std::size_t kValues = 256, kBytes = 210;
  template <std::size_t R>
  GLASSBOX_INLINE static void accumulate(Accumulators<R>& acc, const std::byte* const* blocks,
                                         const float* x) {
    float scale[R][16];
    for (std::size_t r = 0; r < R; ++r) {
      const float d = lanes::half_to_float_exact(lanes::load_u16(blocks[r] + 208));
      const auto* scales = reinterpret_cast<const int8_t*>(blocks[r] + 192);
      for (int g = 0; g < 16; ++g)
        scale[r][g] = d * static_cast<float>(scales[g]);
    }
    // 16 lanes at a time (s = 0, 1): one scale per group, and one 16-byte load of each source. Unrolled, so
    // the accumulators' indices are constants and they stay in registers.
    unrolled<2>([&](auto half) __attribute__((always_inline)) {
      unrolled<2>([&](auto s) __attribute__((always_inline)) {
        const float* xs = x + half * 128 + s * 16;
        Batch x1[kB16], x2[kB16], x3[kB16], x4[kB16];
        load_x(x1, xs);
        load_x(x2, xs + 32);
        load_x(x3, xs + 64);
        load_x(x4, xs + 96);
        unrolled<R>([&](auto r) __attribute__((always_inline)) {
          const std::byte* ql = blocks[r] + half * 64 + s * 16;
          const std::byte* qh = blocks[r] + 128 + half * 32 + s * 16;
          const float* g = scale[r] + half * 8 + s;
          IntBatch lo[kB16], hi[kB16], top[kB16];
          lanes::widen_16_bytes<false>(ql, lo);
          lanes::widen_16_bytes<false>(ql + 32, hi);
          lanes::widen_16_bytes<false>(qh, top);
          const Batch s1(g[0]), s2(g[2]), s3(g[4]), s4(g[6]);
          const IntBatch three(3), fifteen(15), bias(32);
          unrolled<kB16>([&](auto i) __attribute__((always_inline)) {
            const IntBatch q1 = ((lo[i] & fifteen) | ((top[i] & three) << 4)) - bias;
            const IntBatch q2 = ((hi[i] & fifteen) | (((top[i] >> 2) & three) << 4)) - bias;
            const IntBatch q3 = ((lo[i] >> 4) | (((top[i] >> 4) & three) << 4)) - bias;
            const IntBatch q4 = ((hi[i] >> 4) | ((top[i] >> 6) << 4)) - bias;
            Batch& a = acc[r][s * kB16 + i];
            a = a + (s1 * to_float(q1)) * x1[i];
            a = a + (s2 * to_float(q2)) * x2[i];
            a = a + (s3 * to_float(q3)) * x3[i];
            a = a + (s4 * to_float(q4)) * x4[i];
          });
        });
      });
    });
  }
};

// R rows of whole blocks: out[r] = dot(decoded rows[r][0, n), x[0, n)).
template <class Format, std::size_t R>
GLASSBOX_INLINE void block_rows(const std::byte* const* rows, const float* x, std::size_t n, float* out) {
  Accumulators<R> acc;
  unrolled<R>([&](auto r) __attribute__((always_inline)) {
    unrolled<kAcc>([&](auto k) __attribute__((always_inline)) { acc[r][k] = Batch(0.0f); });
  });
  const std::byte* at[R];
  for (std::size_t b = 0; b < n / Format::kValues; ++b) {
    for (std::size_t r = 0; r < R; ++r)
      at[r] = rows[r] + b * Format::kBytes;
    Format::template accumulate<R>(acc, at, x + b * Format::kValues);
  }
  unrolled<R>([&](auto r) __attribute__((always_inline)) { out[r] = finish_partials(acc[r]); });
}

// The 16-bit float types: kWidth values from kWidth little-endian uint16 at p.
struct F16 {
  GLASSBOX_INLINE static Batch decode(const std::byte* p) { return lanes::load_halves(p); }
};
struct BF16 {
  GLASSBOX_INLINE static Batch decode(const std::byte* p) {
    return lanes::bfloat16_bits_to_float(lanes::widen_u16(p));
  }
};

// R rows of any length, structured exactly as dot_rows<R>: whole passes of kReductionLanes values, then a
// tail whose last partial batch is padded with zeros (a zero half or bfloat16 decodes to +0, as the decoded
// row's load_partial pads) and whose batches past n are skipped.
template <class Format, std::size_t R>
GLASSBOX_INLINE void element_rows(const std::byte* const* rows, const float* x, std::size_t n, float* out) {
  Accumulators<R> acc;
  unrolled<R>([&](auto r) __attribute__((always_inline)) {
    unrolled<kAcc>([&](auto k) __attribute__((always_inline)) { acc[r][k] = Batch(0.0f); });
  });
  std::size_t i = 0;
  for (; i + kReductionLanes <= n; i += kReductionLanes) {
    unrolled<kAcc>([&](auto k) __attribute__((always_inline)) {
      const std::size_t from = i + k * kWidth;
      const Batch xv = Batch::load_unaligned(x + from);
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        acc[r][k] = acc[r][k] + Format::decode(rows[r] + 2 * from) * xv;
      });
    });
  }
  if (i < n) {
    unrolled<kAcc>([&](auto k) __attribute__((always_inline)) {
      const std::size_t from = i + k * kWidth;
      if (from >= n) return;
      const bool whole = from + kWidth <= n;
      const Batch xv = whole ? Batch::load_unaligned(x + from) : load_partial(x + from, n - from);
      unrolled<R>([&](auto r) __attribute__((always_inline)) {
        Batch w;
        if (whole) {
          w = Format::decode(rows[r] + 2 * from);
        } else {
          std::byte padded[2 * kWidth] = {};
          std::memcpy(padded, rows[r] + 2 * from, 2 * (n - from));
          w = Format::decode(padded);
        }
        acc[r][k] = acc[r][k] + w * xv;
      });
    });
  }
  unrolled<R>([&](auto r) __attribute__((always_inline)) { out[r] = finish_partials(acc[r]); });
}

// The row kernels as one interface: Kernel::rows<R>(rows, x, n, out).
template <class Format>
struct Blocks {
  template <std::size_t R>
  static void rows(const std::byte* const* rows, const float* x, std::size_t n, float* out) {
    block_rows<Format, R>(rows, x, n, out);
  }
};
template <class Format>
struct Elements {
  template <std::size_t R>
  static void rows(const std::byte* const* rows, const float* x, std::size_t n, float* out) {
    element_rows<Format, R>(rows, x, n, out);
  }
};

// out[r] for r in [begin, end), R rows per pass and the rest one at a time.
template <class Kernel, std::size_t R>
void matvec_rows(float* out, const std::byte* w, std::size_t row_bytes, std::size_t cols, const float* x,
                 std::size_t begin, std::size_t end) {
  std::size_t r = begin;
  for (; r + R <= end; r += R) {
    const std::byte* block[R];
    for (std::size_t j = 0; j < R; ++j)
      block[j] = w + (r + j) * row_bytes;
    Kernel::template rows<R>(block, x, cols, out + r);
  }
  for (; r < end; ++r) {
    const std::byte* row = w + r * row_bytes;
    Kernel::template rows<1>(&row, x, cols, out + r);
  }
}

}  // namespace glassbox::kernels::fused
